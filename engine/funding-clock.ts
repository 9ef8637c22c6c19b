// When funding ticks run (docs/risk.md, "Funding"): at each multiple of the interval since the Unix epoch
// (00:00, 08:00 and 16:00 UTC for 8 hours), once per boundary, never before it. Node's timers run on a
// monotonic clock and may fire a millisecond before the wall clock reaches the boundary; a tick started then
// would be stamped before its time, and asking for "the next boundary" at that moment would give the same one
// again (a second tick). So the clock remembers the boundary it waits for, waits again if woken early, and
// after a tick waits for the boundary after it. A slow tick never piles up behind itself.
import { MAX_TIMER_MS } from "../kernel/time.js";
import { nextFundingAt } from "./risk/funding.js";

export interface FundingClockDeps {
  intervalMs: number;
  /** Wall clock, epoch ms. */
  now: () => number;
  /** Runs one tick; the clock skips a boundary that comes while the previous tick still runs. */
  tick: (boundary: number) => Promise<void>;
  /** Reports a tick that failed (the next boundary runs as usual). */
  onError: (error: unknown) => void;
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
  let nextAt = nextFundingAt(deps.now(), deps.intervalMs);
  let timer: unknown;
  let running = false;
  let stopped = false;

  const arm = (): void => {
    if (stopped) return;
    // setTimeout runs a longer delay after 1 ms: a boundary further away is waited for in steps (each early
    // wake-up waits again).
    timer = setTimer(fire, Math.min(MAX_TIMER_MS, Math.max(0, nextAt - deps.now())));
  };
  const fire = (): void => {
    if (stopped) return;
    const now = deps.now();
    // Woken before the boundary (timer slack, or a clock step back): wait for the rest.
    if (now < nextAt) {
      arm();
      return;
    }
    const boundary = nextAt;
    // The boundary after this one, or after now when the process slept through several: each runs once.
    nextAt = nextFundingAt(Math.max(now, boundary), deps.intervalMs);
    arm();
    if (running) return;
    running = true;
    deps
      .tick(boundary)
      .catch(deps.onError)
      .finally(() => {
        running = false;
      });
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
