import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bucketCounts, maxInWindow, percentile, spread, summarize, windowBounds, type Interval } from "./stats.js";

const oneTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

describe("percentile (nearest rank)", () => {
  it.each([
    [50, 50],
    [95, 95],
    [99, 99],
    [100, 100],
    [0, 1],
    [0.5, 1],
    [99.5, 100],
  ])("p%s of 1..100 is %s", (p, expected) => {
    expect(percentile(oneTo(100), p)).toBe(expected);
  });

  it("takes the next rank up on a small sample", () => {
    // 10 values: p95 is rank ceil(9.5) = 10, p50 is rank 5.
    expect(percentile(oneTo(10), 95)).toBe(10);
    expect(percentile(oneTo(10), 50)).toBe(5);
  });

  it("is NaN without values", () => {
    expect(percentile([], 50)).toBeNaN();
  });
});

describe("summarize", () => {
  it("sorts before ranking and reports mean and max", () => {
    const values = [...oneTo(100)].reverse();
    expect(summarize(values)).toEqual({ count: 100, p50: 50, p95: 95, p99: 99, max: 100, mean: 50.5 });
  });

  it("sorts numerically, not as text", () => {
    expect(summarize([9, 10, 100]).p50).toBe(10);
  });
});

describe("maxInWindow", () => {
  it("counts a window as half-open [a, a + W)", () => {
    expect(maxInWindow([0, 60], 60)).toBe(1);
    expect(maxInWindow([0, 59.999], 60)).toBe(2);
  });

  it("finds the busiest window wherever it starts, in any input order", () => {
    expect(maxInWindow([61, 0, 20, 10, 60, 59.999], 60)).toBe(5);
  });

  it("sees exactly the limit for a sender paced at it over several windows", () => {
    const times = Array.from({ length: 3 * 1200 }, (_, i) => i * 50 + 3);
    expect(maxInWindow(times, 60_000)).toBe(1200);
  });

  it("agrees with a brute force count", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 80 }),
        (t, w) => {
          let brute = 0;
          for (const a of t) brute = Math.max(brute, t.filter((x) => x >= a && x < a + w).length);
          expect(maxInWindow(t, w)).toBe(brute);
        },
      ),
    );
  });
});

describe("windowBounds", () => {
  it("is exact when every interval is a point", () => {
    const points = [0, 10, 20, 59, 60, 61].map((t) => ({ from: t, to: t }));
    expect(windowBounds(points, 60)).toEqual({ certain: 5, possible: 5 });
  });

  it("widens with the uncertainty of each event", () => {
    // Three events 30 apart, each known to ±5: all three may share a 60-wide window (from 25 to 75 … 55 to 75),
    // and two certainly do.
    const events: Interval[] = [
      { from: 0, to: 10 },
      { from: 30, to: 40 },
      { from: 60, to: 70 },
    ];
    expect(windowBounds(events, 60)).toEqual({ certain: 2, possible: 3 });
  });

  it("agrees with a brute force over every window start", () => {
    const interval = fc
      .tuple(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 20 }))
      .map(([from, len]) => ({ from, to: from + len }));
    fc.assert(
      fc.property(fc.array(interval, { maxLength: 40 }), fc.integer({ min: 1, max: 60 }), (events, w) => {
        let certain = 0;
        let possible = 0;
        // Integer end points: every distinct case shows up at an integer or half-integer start.
        for (let a2 = -2 * (w + 2); a2 <= 2 * 130; a2++) {
          const a = a2 / 2;
          certain = Math.max(certain, events.filter((e) => e.from >= a && e.to < a + w).length);
          possible = Math.max(possible, events.filter((e) => e.to >= a && e.from < a + w).length);
        }
        expect(windowBounds(events, w)).toEqual({ certain, possible });
      }),
    );
  });
});

describe("bucketCounts", () => {
  it("puts each time in its bucket and leaves out what is past the last", () => {
    expect(bucketCounts([0, 59_999, 60_000, 119_999, 120_000, 500_000], 60_000, 3)).toEqual([2, 2, 1]);
  });
});

describe("spread", () => {
  it("gives min, median and max", () => {
    expect(spread([5, 1, 3])).toEqual({ min: 1, median: 3, max: 5 });
  });
});
