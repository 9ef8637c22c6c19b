import { describe, expect, it } from "vitest";
import { GradientLimit } from "./gradient-limit.js";

/** `windows` windows of `window` samples, each of `latency` ms with `inFlight` in flight. */
function feed(limit: GradientLimit, windows: number, latency: number, inFlight: number | "full", window = 10): void {
  for (let w = 0; w < windows; w++) {
    for (let i = 0; i < window; i++) limit.sample(latency, inFlight === "full" ? limit.limit : inFlight);
  }
}

describe("GradientLimit", () => {
  it("grows while the requests use it and their latency holds", () => {
    const limit = new GradientLimit({ initial: 16, min: 4, max: 256, window: 10 });
    feed(limit, 50, 5, "full");
    expect(limit.limit).toBeGreaterThan(40);
    expect(limit.limit).toBeLessThanOrEqual(256);
  });

  it("does not grow when the requests use less than half of it", () => {
    const limit = new GradientLimit({ initial: 16, min: 4, max: 256, window: 10 });
    feed(limit, 50, 5, 3);
    expect(limit.limit).toBe(16);
  });

  it("shrinks when latency rises beyond its tolerance, down to its floor and no further", () => {
    const limit = new GradientLimit({ initial: 200, min: 20, max: 256, window: 10, longWindow: 1_000 });
    feed(limit, 5, 5, "full");
    const before = limit.limit;
    feed(limit, 10, 50, "full");
    expect(limit.limit).toBeLessThan(before);
    feed(limit, 500, 500, "full");
    expect(limit.limit).toBe(20);
  });

  it("never exceeds its ceiling", () => {
    const limit = new GradientLimit({ initial: 16, min: 4, max: 32, window: 10 });
    feed(limit, 500, 1, "full");
    expect(limit.limit).toBe(32);
  });

  it("recovers once latency falls back after an overload", () => {
    const limit = new GradientLimit({ initial: 64, min: 8, max: 256, window: 10, longWindow: 50 });
    feed(limit, 20, 5, "full");
    feed(limit, 200, 80, "full");
    const during = limit.limit;
    feed(limit, 200, 5, "full");
    expect(limit.limit).toBeGreaterThan(during);
  });

  it("refuses bounds out of order", () => {
    expect(() => new GradientLimit({ initial: 8, min: 16, max: 32 })).toThrow(RangeError);
    expect(() => new GradientLimit({ initial: 64, min: 16, max: 32 })).toThrow(RangeError);
    expect(() => new GradientLimit({ initial: 0, min: 0, max: 32 })).toThrow(RangeError);
  });
});
