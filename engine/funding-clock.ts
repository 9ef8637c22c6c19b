// When funding ticks run (docs/risk.md, "Funding"): at each multiple of the interval since the Unix epoch
// (00:00, 08:00 and 16:00 UTC for 8 hours), every boundary once, in order, never before its time. Node's timers
// run on a monotonic clock and may fire a millisecond before the wall clock reaches the boundary; a tick started
// then would be stamped before its time, so the clock remembers the boundary it waits for and waits again if
// woken early. One tick runs at a time. Boundaries that came meanwhile (a slow tick, a process that slept, an
// engine that was down: `after` names the latest boundary already paid) run one after another, oldest first.
// A failed tick (a shard's commit refused) is tried again for the same boundary every few seconds until it
// succeeds, and the boundaries after it wait: the accounts record the boundary they were paid for, so a retry
// pays each at most once and a later boundary never runs before an earlier one.
import { MAX_TIMER_MS } from "../kernel/time.js";
import { nextFundingAt } from "./risk/funding.js";

/** How long after a failed funding tick the same boundary is tried again (ms). */
export const FUNDING_RETRY_MS = 5_000;

export interface FundingClockDeps {
  intervalMs: number;
  /** Wall clock, epoch ms. */
  now: () => number;
  /**
   * The latest boundary already paid (a restart continues after it); absent: the clock starts with the next
   * boundary after now.
   */
  after?: number;
  /** Runs one tick for a boundary. One at a time, boundaries in order. */
  tick: (boundary: number) => Promise<void>;
  /**
   * Reports a tick that failed. The same boundary is tried again `retryMs` later, and again, until a try
   * succeeds (a retried tick pays only the accounts not paid for the boundary yet); later boundaries wait.
   */
  onError: (error: unknown) => void;
  retryMs?: number;
  setTimer?: (run: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

export interface FundingClock {
  /** The boundary the clock waits for: the oldest one not paid yet. */
  readonly nextAt: number;
  /**
   * Resolves once the boundaries that had come when the clock started are paid, or one of them failed (the clock
   * tries it again): a start pays what it missed before it decides anything else.
   */
  readonly caughtUp: Promise<void>;
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
  let nextAt = nextFundingAt(deps.after ?? deps.now(), deps.intervalMs);
  /** Set after a failed tick: the same boundary is not tried again before then. */
  let retryAt: number | undefined;
  let timer: unknown;
  let running = false;
  let stopped = false;
  let caughtUp = (): void => undefined;
  const caughtUpOnce = new Promise<void>((resolve) => {
    caughtUp = resolve;
  });

  const arm = (): void => {
    clearTimer(timer);
    const dueAt = retryAt === undefined ? nextAt : Math.max(nextAt, retryAt);
    // setTimeout runs a longer delay after 1 ms: a boundary further away is waited for in steps (each early
    // wake-up waits again).
    timer = setTimer(fire, Math.min(MAX_TIMER_MS, Math.max(0, dueAt - deps.now())));
  };
  const fire = (): void => {
    if (stopped || running) return;
    const now = deps.now();
    if (now < nextAt || (retryAt !== undefined && now < retryAt)) {
      // Woken before the boundary (timer slack, or a clock step back) or before the retry: wait for the rest.
      caughtUp();
      arm();
      return;
    }
    const boundary = nextAt;
    retryAt = undefined;
    running = true;
    deps
      .tick(boundary)
      .then(
        () => {
          nextAt = boundary + deps.intervalMs;
        },
        (error: unknown) => {
          // Set before reporting: a report that throws must not make the retry immediate.
          retryAt = deps.now() + retryMs;
          caughtUp();
          try {
            deps.onError(error);
          } catch {
            // A failing report changes nothing about the schedule.
          }
        },
      )
      .finally(() => {
        running = false;
        // The next boundary may have come already (a catch-up, a slow tick): it runs at once, else at its time.
        fire();
      });
  };
  fire();
  return {
    get nextAt() {
      return nextAt;
    },
    caughtUp: caughtUpOnce,
    stop() {
      stopped = true;
      clearTimer(timer);
      caughtUp();
    },
  };
}
