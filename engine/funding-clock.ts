// When funding ticks run (docs/risk.md, "Funding"): at each multiple of the interval since the Unix epoch
// (00:00, 08:00 and 16:00 UTC for 8 hours), once per boundary, never before it. Node's timers run on a
// monotonic clock and may fire a millisecond before the wall clock reaches the boundary; a tick started then
// would be stamped before its time, and asking for "the next boundary" at that moment would give the same one
// again (a second tick). So the clock remembers the boundary it waits for, waits again if woken early, and
// after a tick waits for the boundary after it. A slow tick never piles up behind itself. A failed tick (a
// shard's commit refused) is tried again for the same boundary every few seconds until it succeeds or the next
// boundary comes: the accounts record the boundary they were paid for, so a retry pays each at most once.
import { MAX_TIMER_MS } from "../kernel/time.js";
import { nextFundingAt } from "./risk/funding.js";

/** How long after a failed funding tick the same boundary is tried again (ms). */
export const FUNDING_RETRY_MS = 5_000;

export interface FundingClockDeps {
  intervalMs: number;
  /** Wall clock, epoch ms. */
  now: () => number;
  /** Runs one tick; the clock skips a boundary that comes while the previous tick still runs. */
  tick: (boundary: number) => Promise<void>;
  /**
   * Reports a tick that failed. The same boundary is tried again `retryMs` later, and again, until a try
   * succeeds or the next boundary comes (a retried tick pays only the accounts not paid for the boundary yet).
   */
  onError: (error: unknown) => void;
  retryMs?: number;
  setTimer?: (run: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

export interface FundingClock {
  /** The boundary the clock waits for. */
  readonly nextAt: number;
  stop(): void;
}

export function startFundingClock(deps: FundingClockDeps): FundingClock {
  const setTimer = deps.setTimer ?? ((run: () => void, ms: number): unknown => setTimeout(run, ms));
  const clearTimer =
    deps.clearTimer ??
    ((timer: unknown): void => {
      clearTimeout(timer as NodeJS.Timeout);
    });
  const retryMs = deps.retryMs ?? FUNDING_RETRY_MS;
  let nextAt = nextFundingAt(deps.now(), deps.intervalMs);
  /** A boundary whose tick failed, tried again at `at` (only while its next boundary has not come). */
  let retry: { boundary: number; at: number } | undefined;
  let timer: unknown;
  let running = false;
  let stopped = false;

  const arm = (): void => {
    if (stopped) return;
    clearTimer(timer);
    const dueAt = retry !== undefined && retry.at < nextAt ? retry.at : nextAt;
    // setTimeout runs a longer delay after 1 ms: a boundary further away is waited for in steps (each early
    // wake-up waits again).
    timer = setTimer(fire, Math.min(MAX_TIMER_MS, Math.max(0, dueAt - deps.now())));
  };
  const run = (boundary: number): void => {
    running = true;
    deps.tick(boundary).then(
      () => {
        running = false;
      },
      (error: unknown) => {
        running = false;
        deps.onError(error);
        // Tried again for the same boundary (accounts already paid for it pay nothing more), until the next
        // boundary comes.
        const at = deps.now() + retryMs;
        retry = at < nextAt ? { boundary, at } : undefined;
        arm();
      },
    );
  };
  const fire = (): void => {
    if (stopped) return;
    const now = deps.now();
    if (now >= nextAt) {
      const boundary = nextAt;
      // The boundary after this one, or after now when the process slept through several: each runs once.
      nextAt = nextFundingAt(Math.max(now, boundary), deps.intervalMs);
      retry = undefined;
      arm();
      if (!running) run(boundary);
      return;
    }
    if (retry !== undefined && now >= retry.at && !running) {
      const boundary = retry.boundary;
      retry = undefined;
      arm();
      run(boundary);
      return;
    }
    // Woken before the boundary (timer slack, or a clock step back): wait for the rest.
    arm();
  };
  arm();
  return {
    get nextAt() {
      return nextAt;
    },
    stop() {
      stopped = true;
      clearTimer(timer);
    },
  };
}
