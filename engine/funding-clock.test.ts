import { describe, expect, it } from "vitest";
import { MAX_TIMER_MS } from "../kernel/time.js";
import { startFundingClock } from "./funding-clock.js";

const HOUR = 3_600_000;
const EIGHT_HOURS = 8 * HOUR;
const T0 = Date.parse("2026-11-25T07:59:00.000Z");
const AT_8 = Date.parse("2026-11-25T08:00:00.000Z");
const AT_16 = Date.parse("2026-11-25T16:00:00.000Z");

/** A wall clock and one pending timer, both driven by the test. */
function harness(start: number, intervalMs = EIGHT_HOURS, after?: number) {
  let now = start;
  let pending: { run: () => void; ms: number } | undefined;
  const ticks: { boundary: number; at: number }[] = [];
  const resolvers: (() => void)[] = [];
  const rejecters: (() => void)[] = [];
  const errors: unknown[] = [];
  const clock = startFundingClock({
    intervalMs,
    ...(after === undefined ? {} : { after }),
    now: () => now,
    tick: (boundary) => {
      ticks.push({ boundary, at: now });
      return new Promise<void>((resolve, reject) => {
        resolvers.push(resolve);
        rejecters.push(() => {
          reject(new Error("commit failed"));
        });
      });
    },
    onError: (error) => errors.push(error),
    setTimer: (run, ms) => {
      pending = { run, ms };
      return pending;
    },
    clearTimer: () => {
      pending = undefined;
    },
  });
  return {
    clock,
    ticks,
    /** Sets the wall clock and fires the pending timer. */
    fireAt(at: number) {
      now = at;
      const timer = pending;
      pending = undefined;
      timer?.run();
    },
    get delay() {
      return pending?.ms;
    },
    errors,
    finishTicks: async () => {
      rejecters.splice(0);
      for (const resolve of resolvers.splice(0)) resolve();
      await Promise.resolve();
      await Promise.resolve();
    },
    failTicks: async () => {
      resolvers.splice(0);
      for (const reject of rejecters.splice(0)) reject();
      await Promise.resolve();
      await Promise.resolve();
    },
  };
}

describe("the funding clock", () => {
  it("waits for the next multiple of the interval", () => {
    const h = harness(T0);
    expect(h.clock.nextAt).toBe(AT_8);
    expect(h.delay).toBe(60_000);
  });

  it("ticks once at the boundary even when its timer fires a millisecond early", async () => {
    const h = harness(T0);
    h.fireAt(AT_8 - 1);
    // Woken early: no tick yet, a timer for the last millisecond, the same boundary.
    expect(h.ticks).toEqual([]);
    expect(h.delay).toBe(1);
    expect(h.clock.nextAt).toBe(AT_8);
    h.fireAt(AT_8);
    expect(h.ticks).toEqual([{ boundary: AT_8, at: AT_8 }]);
    await h.finishTicks();
    // Then the next boundary, not the same one again.
    expect(h.clock.nextAt).toBe(AT_16);
    expect(h.delay).toBe(EIGHT_HOURS);
    h.fireAt(AT_16 + 3);
    expect(h.ticks.map((t) => t.boundary)).toEqual([AT_8, AT_16]);
  });

  it("runs every boundary it slept through, oldest first, one at a time", async () => {
    const h = harness(T0);
    h.fireAt(AT_16 + HOUR);
    expect(h.ticks).toEqual([{ boundary: AT_8, at: AT_16 + HOUR }]);
    await h.finishTicks();
    expect(h.ticks.map((t) => t.boundary)).toEqual([AT_8, AT_16]);
    await h.finishTicks();
    expect(h.ticks.map((t) => t.boundary)).toEqual([AT_8, AT_16]);
    expect(h.clock.nextAt).toBe(Date.parse("2026-11-26T00:00:00.000Z"));
    expect(h.delay).toBe(7 * HOUR);
  });

  it("starts after the latest boundary paid: those missed while down run at once, in order, each once", async () => {
    const yesterday16 = AT_8 - 16 * HOUR;
    const h = harness(AT_16 + HOUR, EIGHT_HOURS, yesterday16);
    expect(h.ticks.map((t) => t.boundary)).toEqual([AT_8 - EIGHT_HOURS]);
    await h.finishTicks();
    await h.finishTicks();
    await h.finishTicks();
    expect(h.ticks.map((t) => t.boundary)).toEqual([AT_8 - EIGHT_HOURS, AT_8, AT_16]);
    expect(h.clock.nextAt).toBe(AT_16 + EIGHT_HOURS);
  });

  it("continues on the grid of its own interval after a boundary paid on another one", async () => {
    // Paid through 16:00 on an 8 h grid; the interval is 3 h now: the next boundaries are 18:00, 21:00, 00:00.
    const h = harness(AT_16 + 8 * HOUR + 1, 3 * HOUR, AT_16);
    await h.finishTicks();
    await h.finishTicks();
    await h.finishTicks();
    expect(h.ticks.map((t) => t.boundary - AT_16)).toEqual([2 * HOUR, 5 * HOUR, 8 * HOUR]);
  });

  it("says when it caught up: once the boundaries missed are paid, or one of them failed", async () => {
    const yesterday16 = AT_8 - 16 * HOUR;
    const h = harness(AT_16 + HOUR, EIGHT_HOURS, yesterday16);
    let caughtUp = false;
    void h.clock.caughtUp.then(() => (caughtUp = true));
    await h.finishTicks();
    await h.finishTicks();
    expect(caughtUp).toBe(false);
    await h.finishTicks();
    await Promise.resolve();
    expect(caughtUp).toBe(true);
    const failing = harness(AT_16 + HOUR, EIGHT_HOURS, yesterday16);
    let failed = false;
    void failing.clock.caughtUp.then(() => (failed = true));
    await failing.failTicks();
    await Promise.resolve();
    expect(failed).toBe(true);
    expect(failing.delay).toBe(5_000);
  });

  it("starts with the next boundary when the latest boundary paid is the last one before now", () => {
    const h = harness(AT_8 + HOUR, EIGHT_HOURS, AT_8);
    expect(h.ticks).toEqual([]);
    expect(h.clock.nextAt).toBe(AT_16);
    expect(h.delay).toBe(7 * HOUR);
  });

  it("runs a boundary that comes while the previous tick still runs once that tick ends, never two at once", async () => {
    const h = harness(T0);
    h.fireAt(AT_8);
    h.fireAt(AT_16);
    expect(h.ticks.map((t) => t.boundary)).toEqual([AT_8]);
    await h.finishTicks();
    expect(h.ticks.map((t) => t.boundary)).toEqual([AT_8, AT_16]);
    await h.finishTicks();
    h.fireAt(Date.parse("2026-11-26T00:00:00.000Z"));
    expect(h.ticks.map((t) => t.boundary)).toEqual([AT_8, AT_16, Date.parse("2026-11-26T00:00:00.000Z")]);
  });

  it("retries a boundary that failed after the next one came before running the next one", async () => {
    const h = harness(T0);
    h.fireAt(AT_8);
    h.fireAt(AT_16); // while AT_8 still runs
    await h.failTicks();
    expect(h.ticks.map((t) => t.boundary)).toEqual([AT_8]);
    expect(h.delay).toBe(5_000);
    h.fireAt(AT_16 + 5_000);
    await h.finishTicks();
    expect(h.ticks.map((t) => t.boundary)).toEqual([AT_8, AT_8, AT_16]);
    await h.finishTicks();
    expect(h.delay).toBe(EIGHT_HOURS - 5_000);
  });

  it("runs the next boundary after a retry of the previous one that was still running when it came", async () => {
    const h = harness(T0, 10_000);
    const first = h.clock.nextAt;
    h.fireAt(first);
    await h.failTicks();
    h.fireAt(first + 5_000); // the retry, still running when the next boundary comes
    h.fireAt(first + 10_000);
    await h.finishTicks(); // the retry succeeds
    expect(h.ticks.map((t) => t.boundary)).toEqual([first, first, first + 10_000]);
  });

  it("waits for a boundary beyond setTimeout's range in steps, not with a timer Node would run after 1 ms", () => {
    const thirtyDays = 30 * 24 * HOUR;
    // Just after a boundary: the next one is 30 days away, past the 24.8 days a timer can wait.
    const start = Math.floor(T0 / thirtyDays) * thirtyDays + 1;
    const h = harness(start, thirtyDays);
    const boundary = h.clock.nextAt;
    expect(boundary - start).toBeGreaterThan(MAX_TIMER_MS);
    expect(h.delay).toBe(MAX_TIMER_MS);
    h.fireAt(start + MAX_TIMER_MS);
    expect(h.ticks).toEqual([]);
    expect(h.delay).toBe(boundary - (start + MAX_TIMER_MS));
    h.fireAt(boundary);
    expect(h.ticks.map((t) => t.boundary)).toEqual([boundary]);
  });

  it("tries a failed tick again for the same boundary every 5 s until it succeeds", async () => {
    const h = harness(T0);
    h.fireAt(AT_8);
    await h.failTicks();
    expect(h.errors).toHaveLength(1);
    expect(h.delay).toBe(5_000);
    h.fireAt(AT_8 + 5_000);
    await h.failTicks();
    h.fireAt(AT_8 + 10_000);
    expect(h.ticks.map((t) => t.boundary)).toEqual([AT_8, AT_8, AT_8]);
    await h.finishTicks();
    // Succeeded: the next boundary, no more retries.
    expect(h.delay).toBe(EIGHT_HOURS - 10_000);
    h.fireAt(AT_16);
    expect(h.ticks.map((t) => t.boundary)).toEqual([AT_8, AT_8, AT_8, AT_16]);
  });

  it("waits before a retry even when reporting the failure throws", async () => {
    let now = T0;
    let pending: { run: () => void; ms: number } | undefined;
    const ticks: number[] = [];
    startFundingClock({
      intervalMs: EIGHT_HOURS,
      now: () => now,
      tick: (boundary) => {
        ticks.push(boundary);
        // Fails the first three times (an immediate retry would show them all at once).
        return ticks.length <= 3 ? Promise.reject(new Error("commit failed")) : Promise.resolve();
      },
      onError: () => {
        throw new Error("logger down");
      },
      setTimer: (run, ms) => (pending = { run, ms }),
      clearTimer: () => {
        pending = undefined;
      },
    });
    now = AT_8;
    pending?.run();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(ticks).toEqual([AT_8]);
    expect(pending?.ms).toBe(5_000);
  });

  it("keeps trying a failing boundary when the next one comes, and runs the next one only after it", async () => {
    const h = harness(T0, 10_000);
    const first = h.clock.nextAt;
    h.fireAt(first);
    await h.failTicks();
    h.fireAt(first + 5_000);
    await h.failTicks();
    expect(h.delay).toBe(5_000);
    h.fireAt(first + 10_000);
    expect(h.ticks.map((t) => t.boundary)).toEqual([first, first, first]);
    await h.finishTicks();
    expect(h.ticks.map((t) => t.boundary)).toEqual([first, first, first, first + 10_000]);
  });

  it("stops: no timer, no tick", () => {
    const h = harness(T0);
    h.clock.stop();
    expect(h.delay).toBeUndefined();
    h.fireAt(AT_8);
    expect(h.ticks).toEqual([]);
  });
});
