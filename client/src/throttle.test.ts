import { describe, expect, it } from "vitest";
import { AdaptiveThrottle } from "./throttle.js";

/** A throttle on a clock the test moves, refusing whenever the probability is above `draw`. */
function throttle(draw = 0.5) {
  const clock = { now: 0 };
  const t = new AdaptiveThrottle({ now: () => clock.now, random: () => draw });
  return { t, clock };
}

/** Counts `n` answered requests, accepted or refused as overloaded. */
function answers(t: AdaptiveThrottle, n: number, accepted: boolean): void {
  for (let i = 0; i < n; i++) t.record(accepted);
}

describe("AdaptiveThrottle", () => {
  it("refuses nothing while the service accepts", () => {
    const { t } = throttle(0);
    answers(t, 1_000, true);
    expect(t.stats.probability).toBe(0);
    expect(t.admit()).toBe(true);
  });

  it("refuses with probability (requests − 2·accepts) / (requests + 1) when accepts collapse", () => {
    const { t } = throttle(0.5);
    answers(t, 10, true);
    answers(t, 90, false);
    expect(t.stats.probability).toBeCloseTo((100 - 20) / 101, 10);
    expect(t.admit()).toBe(false);
    // The refusal is counted as a request that was not accepted.
    expect(t.stats).toMatchObject({ requests: 101, accepts: 10, refused: 1 });
    const lucky = throttle(0.9);
    answers(lucky.t, 10, true);
    answers(lucky.t, 90, false);
    expect(lucky.t.admit()).toBe(true);
  });

  it("refuses at most nine requests in ten, however few are accepted", () => {
    const { t } = throttle(0.89);
    answers(t, 10_000, false);
    expect(t.stats.probability).toBe(0.9);
    expect(t.admit()).toBe(false);
    const lucky = throttle(0.9);
    answers(lucky.t, 10_000, false);
    expect(lucky.t.admit()).toBe(true);
  });

  it("stops refusing once accepts are back to half the requests", () => {
    const { t } = throttle(0);
    answers(t, 10, true);
    answers(t, 90, false);
    expect(t.admit()).toBe(false);
    answers(t, 90, true);
    expect(t.stats).toMatchObject({ requests: 191, accepts: 100 });
    expect(t.stats.probability).toBe(0);
    expect(t.admit()).toBe(true);
  });

  it("forgets what is older than its two-minute window", () => {
    const { t, clock } = throttle(0);
    answers(t, 100, false);
    clock.now = 60_000;
    answers(t, 50, false);
    expect(t.stats.requests).toBe(150);
    clock.now = 121_000;
    expect(t.stats.requests).toBe(50);
    clock.now = 182_000;
    expect(t.stats).toMatchObject({ requests: 0, probability: 0 });
    expect(t.admit()).toBe(true);
  });
});
