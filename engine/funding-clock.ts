// When funding ticks run (docs/risk.md, "Funding"): at each multiple of the interval since the Unix epoch
// (00:00, 08:00 and 16:00 UTC for 8 hours), once per boundary, never before it. Node's timers run on a
// monotonic clock and may fire a millisecond before the wall clock reaches the boundary; a tick started then
// would be stamped before its time, and asking for "the next boundary" at that moment would give the same one
// again (a second tick). So the clock remembers the boundary it waits for, waits again if woken early, and
// after a tick waits for the boundary after it. One tick runs at a time: a boundary that comes meanwhile runs
// when it ends, and only the latest one that came. A failed tick (a shard's commit refused) is tried again for
// the same boundary every few seconds until it succeeds or a newer boundary replaces it: the accounts record
// the boundary they were paid for, so a retry pays each at most once.
import { MAX_TIMER_MS } from "../kernel/time.js";
import { nextFundingAt } from "./risk/funding.js";

/** How long after a failed funding tick the same boundary is tried again (ms). */
export const FUNDING_RETRY_MS = 5_000;

export interface FundingClockDeps {
  intervalMs: number;
  /** Wall clock, epoch ms. */
  now: () => number;
  /**
   * Runs one tick for a boundary. One at a time: a boundary that comes while a tick runs is run when it ends
   * (only the latest one that came).
   */
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

/** The deps' timers, else Node's. */
function timersOf(deps: FundingClockDeps): Required<Pick<FundingClockDeps, "setTimer" | "clearTimer">> {
  return {
    setTimer: deps.setTimer ?? ((run, ms) => setTimeout(run, ms)),
    clearTimer:
      deps.clearTimer ??
      ((timer) => {
        clearTimeout(timer as NodeJS.Timeout);
      }),
  };
}

export function startFundingClock(deps: FundingClockDeps): FundingClock {
  const { setTimer, clearTimer } = timersOf(deps);
  const retryMs = deps.retryMs ?? FUNDING_RETRY_MS;
  let nextAt = nextFundingAt(deps.now(), deps.intervalMs);
  /**
   * The latest boundary that came and has not been paid yet: run at once, or after the tick that is running,
   * or again at `retryAt` after a failure. A newer boundary replaces it (ticks never pile up, and a retry never
   * outlives the next boundary).
   */
  let due: number | undefined;
  let retryAt: number | undefined;
  let timer: unknown;
  let running = false;
  let stopped = false;

  const arm = (): void => {
    if (stopped) return;
    clearTimer(timer);
    const dueAt = retryAt !== undefined && retryAt < nextAt ? retryAt : nextAt;
    // setTimeout runs a longer delay after 1 ms: a boundary further away is waited for in steps (each early
    // wake-up waits again).
    timer = setTimer(fire, Math.min(MAX_TIMER_MS, Math.max(0, dueAt - deps.now())));
  };
  const runDue = (): void => {
    if (stopped || running || due === undefined) return;
    if (retryAt !== undefined && deps.now() < retryAt) return;
    const boundary = due;
    retryAt = undefined;
    running = true;
    deps
      .tick(boundary)
      .then(
        () => {
          if (due === boundary) due = undefined;
        },
        (error: unknown) => {
          // Tried again for the same boundary (accounts already paid for it pay nothing more), unless a newer
          // boundary came meanwhile: that one runs instead. Set before reporting: a report that throws must
          // not make the retry immediate.
          if (due === boundary) retryAt = deps.now() + retryMs;
          try {
            deps.onError(error);
          } catch {
            // A failing report changes nothing about the schedule.
          }
        },
      )
      .finally(() => {
        running = false;
        runDue();
        arm();
      });
  };
  const fire = (): void => {
    if (stopped) return;
    const now = deps.now();
    if (now >= nextAt) {
      // The latest boundary that has come (the last of several when the process slept through them: one tick,
      // for the positions open at that boundary), and the boundary after now.
      due = nextFundingAt(now, deps.intervalMs) - deps.intervalMs;
      nextAt = due + deps.intervalMs;
      retryAt = undefined;
    }
    // Woken before the boundary (timer slack, or a clock step back) with nothing due: wait for the rest.
    runDue();
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
