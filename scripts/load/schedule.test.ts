import { describe, expect, it } from "vitest";
import { countSends, dueTimes, keyTimes, planKeys, spikeBaseKeys, spikeSpan, type KeyPlan } from "./schedule.js";

const all = <T>(it: Iterable<T>): T[] => [...it];

describe("planKeys and keyTimes", () => {
  it("sends each key exactly its rate, evenly spaced, from its own offset", () => {
    const plans = planKeys({ scenario: "per-key", keys: 4, ratePerMinute: 1200, durationMs: 60_000 });
    expect(plans.map((p) => p.offsetMs)).toEqual([0, 12.5, 25, 37.5]);
    for (const plan of plans) {
      const times = all(keyTimes(plan));
      expect(times).toHaveLength(1200);
      expect(times[0]).toBe(plan.offsetMs);
      for (let i = 1; i < times.length; i++) expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeCloseTo(50, 9);
      expect(times.at(-1)).toBeLessThan(60_000);
    }
  });

  it("computes every time from the grid, so spacing errors do not add up", () => {
    // 1,300/min: 46.15… ms; the 2,600th send is at exactly 2,599 intervals.
    const [plan] = planKeys({ scenario: "over-limit", keys: 1, ratePerMinute: 1300, durationMs: 120_000 });
    const times = all(keyTimes(plan as KeyPlan));
    expect(times).toHaveLength(2600);
    expect(times[2599]).toBeCloseTo((2599 * 60_000) / 1300, 9);
  });

  it("keeps the spike keys to the middle third, on their grid", () => {
    const plans = planKeys({ scenario: "spike", keys: 10, ratePerMinute: 600, durationMs: 30_000, spikeBase: 0.2 });
    const span = spikeSpan(30_000);
    expect(span).toEqual({ fromMs: 10_000, untilMs: 20_000 });
    expect(spikeBaseKeys(10, 0.2)).toBe(2);
    const base = all(keyTimes(plans[1] as KeyPlan));
    expect(base).toHaveLength(300);
    const spiking = plans[7] as KeyPlan;
    const times = all(keyTimes(spiking));
    expect(times).toHaveLength(100);
    expect(times[0]).toBeGreaterThanOrEqual(10_000);
    expect(times[0]).toBeLessThan(10_000 + spiking.intervalMs);
    expect(times.at(-1)).toBeLessThan(20_000);
    for (const t of times) expect(Math.abs(((t - spiking.offsetMs) / spiking.intervalMs) % 1)).toBeLessThan(1e-9);
  });

  it("keeps at least one key outside the spike", () => {
    expect(spikeBaseKeys(3, 0.01)).toBe(1);
    expect(spikeBaseKeys(3, 1)).toBe(3);
  });

  it("refuses shapes that cannot be run", () => {
    expect(() => planKeys({ scenario: "per-key", keys: 0, ratePerMinute: 1200, durationMs: 1000 })).toThrow(/keys/);
    expect(() => planKeys({ scenario: "per-key", keys: 1, ratePerMinute: 0, durationMs: 1000 })).toThrow(/rate/);
  });
});

describe("dueTimes", () => {
  it("merges every key's sends in time order and numbers each key's own", () => {
    const plans = planKeys({ scenario: "spike", keys: 5, ratePerMinute: 1200, durationMs: 3_000, spikeBase: 0.4 });
    const due = all(dueTimes(plans));
    expect(due).toHaveLength(countSends(plans));
    for (let i = 1; i < due.length; i++) expect(due[i]?.atMs).toBeGreaterThanOrEqual(due[i - 1]?.atMs ?? 0);
    for (const plan of plans) {
      const mine = due.filter((d) => d.key === plan.key);
      expect(mine.map((d) => d.seq)).toEqual(mine.map((_, i) => i));
      expect(mine.map((d) => d.atMs)).toEqual(all(keyTimes(plan)));
    }
  });

  it("sends the same total rate all the time when every key is active", () => {
    const plans = planKeys({ scenario: "per-key", keys: 60, ratePerMinute: 1200, durationMs: 10_000 });
    const due = all(dueTimes(plans));
    expect(due).toHaveLength(60 * 200);
    // 1,200 requests/s in all: one every 1/1.2 ms, round-robin over the keys.
    due.forEach((d, i) => {
      expect(d.atMs).toBeCloseTo(i / 1.2, 6);
      expect(d.key).toBe(i % 60);
    });
  });

  it("breaks ties by key", () => {
    const plans: KeyPlan[] = [
      { key: 1, offsetMs: 0, intervalMs: 10, active: [{ fromMs: 0, untilMs: 20 }] },
      { key: 0, offsetMs: 0, intervalMs: 10, active: [{ fromMs: 0, untilMs: 20 }] },
    ];
    expect(all(dueTimes(plans)).map((d) => [d.atMs, d.key])).toEqual([
      [0, 0],
      [0, 1],
      [10, 0],
      [10, 1],
    ]);
  });
});

describe("warm-up", () => {
  it("runs the keys active from the start through the warm-up and shifts the spike after it", () => {
    const plans = planKeys({
      scenario: "spike",
      keys: 5,
      ratePerMinute: 600,
      durationMs: 30_000,
      warmupMs: 6_000,
      spikeBase: 0.2,
    });
    expect(plans[0]?.active).toEqual([{ fromMs: 0, untilMs: 36_000 }]);
    expect(plans[1]?.active).toEqual([{ fromMs: 16_000, untilMs: 26_000 }]);
    expect(all(keyTimes(plans[0] as KeyPlan))).toHaveLength(360);
  });
});
