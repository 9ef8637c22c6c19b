// Pins the exact sliding-log behaviour of the in-process limiter with a fake clock.

import { afterEach, describe, expect, it } from "vitest";
import { MemoryRateLimiter } from "./memory.js";
import type { RateLimitDecision } from "./types.js";
import { mulberry32 as prng } from "../../kernel/random.js";

class FakeClock {
  t = 1_000_000;
  readonly now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

const limiters: MemoryRateLimiter[] = [];
function makeLimiter(limit: number, windowMs: number, clock: FakeClock): MemoryRateLimiter {
  const limiter = new MemoryRateLimiter({ limit, windowMs, now: clock.now, sweepIntervalMs: 0 });
  limiters.push(limiter);
  return limiter;
}

afterEach(async () => {
  await Promise.all(limiters.splice(0).map((l) => l.close()));
});

describe("MemoryRateLimiter", () => {
  it("uses 1200 requests per 60 s when no limit or window is given", async () => {
    const limiter = new MemoryRateLimiter({ sweepIntervalMs: 0 });
    limiters.push(limiter);
    expect(limiter.limit).toBe(1200);
    expect(limiter.windowMs).toBe(60_000);
    const d = await limiter.consume("k");
    expect(d).toMatchObject({ allowed: true, limit: 1200, remaining: 1199, resetMs: 60_000 });
  });

  it("rejects a limit or window that is not a positive integer", () => {
    expect(() => new MemoryRateLimiter({ limit: 0 })).toThrow(RangeError);
    expect(() => new MemoryRateLimiter({ limit: 1.5 })).toThrow(RangeError);
    expect(() => new MemoryRateLimiter({ windowMs: -1 })).toThrow(RangeError);
  });

  it("never refuses a sender pacing exactly limit requests per window", async () => {
    const clock = new FakeClock();
    const limiter = makeLimiter(20, 1000, clock);
    for (let i = 0; i < 20 * 10; i++) {
      const d = await limiter.consume("steady");
      expect(d.allowed, `request ${i}`).toBe(true);
      // From the second window on, the request that just left frees exactly the slot we took.
      expect(d.remaining).toBe(i < 20 ? 19 - i : 0);
      clock.advance(50);
    }
  });

  it("accepts exactly limit requests of a burst and refuses the rest until the oldest leaves", async () => {
    const clock = new FakeClock();
    const limiter = makeLimiter(20, 1000, clock);
    const first: RateLimitDecision[] = [];
    for (let i = 0; i < 10; i++) first.push(await limiter.consume("burst"));
    clock.advance(300);
    const second: RateLimitDecision[] = [];
    for (let i = 0; i < 15; i++) second.push(await limiter.consume("burst"));
    expect([...first, ...second].filter((d) => d.allowed)).toHaveLength(20);
    const refused = second.slice(10);
    expect(refused).toHaveLength(5);
    for (const d of refused) {
      expect(d).toEqual({ allowed: false, revoked: false, limit: 20, remaining: 0, resetMs: 700, retryAfterMs: 700 });
    }

    clock.advance(699);
    expect((await limiter.consume("burst")).retryAfterMs).toBe(1);
    clock.advance(1);
    // The ten requests from t=0 leave together: ten slots free, the next slot frees at t=1300.
    for (let i = 0; i < 10; i++) expect((await limiter.consume("burst")).allowed).toBe(true);
    const after = await limiter.consume("burst");
    expect(after).toMatchObject({ allowed: false, retryAfterMs: 300 });
  });

  it("reports remaining slots and the time until the oldest accepted request leaves", async () => {
    const clock = new FakeClock();
    const limiter = makeLimiter(5, 1000, clock);
    expect(await limiter.consume("k")).toEqual({
      allowed: true,
      revoked: false,
      limit: 5,
      remaining: 4,
      resetMs: 1000,
      retryAfterMs: 0,
    });
    clock.advance(250);
    expect(await limiter.consume("k")).toMatchObject({ remaining: 3, resetMs: 750 });
    clock.advance(750);
    // The first request left exactly now; the second is now the oldest.
    expect(await limiter.consume("k")).toMatchObject({ remaining: 3, resetMs: 250 });
    clock.advance(2000);
    expect(await limiter.consume("k")).toMatchObject({ remaining: 4, resetMs: 1000 });
  });

  it("keeps keys independent of each other", async () => {
    const clock = new FakeClock();
    const limiter = makeLimiter(3, 1000, clock);
    for (let i = 0; i < 3; i++) await limiter.consume("a");
    expect((await limiter.consume("a")).allowed).toBe(false);
    expect(await limiter.consume("b")).toMatchObject({ allowed: true, remaining: 2 });
  });

  it("answers revoked without consuming once a key is marked revoked", async () => {
    const clock = new FakeClock();
    const limiter = makeLimiter(3, 1000, clock);
    await limiter.consume("k");
    await limiter.markRevoked("k");
    for (let i = 0; i < 5; i++) {
      expect(await limiter.consume("k")).toEqual({
        allowed: false,
        revoked: true,
        limit: 3,
        remaining: 0,
        resetMs: 0,
        retryAfterMs: 0,
      });
    }
    expect(limiter.trackedKeys).toBe(0);
    expect((await limiter.consume("other")).allowed).toBe(true);
  });

  it("forgets keys that sent nothing for a whole window when swept", async () => {
    const clock = new FakeClock();
    const limiter = makeLimiter(3, 1000, clock);
    await limiter.consume("idle");
    clock.advance(500);
    await limiter.consume("busy");
    limiter.sweep();
    expect(limiter.trackedKeys).toBe(2);
    clock.advance(500);
    limiter.sweep();
    expect(limiter.trackedKeys).toBe(1);
    clock.advance(500);
    limiter.sweep();
    expect(limiter.trackedKeys).toBe(0);
  });

  it("never accepts more than limit in any window under random arrivals, and refuses only when full", async () => {
    const limit = 10;
    const windowMs = 100;
    const clock = new FakeClock();
    const limiter = makeLimiter(limit, windowMs, clock);
    const random = prng(0xc0ffee);
    const keys = ["k1", "k2", "k3", "k4"];
    const accepted = new Map<string, number[]>(keys.map((k) => [k, []]));
    const refusals: { key: string; t: number; d: RateLimitDecision }[] = [];
    const allowedDecisions: { key: string; t: number; index: number; d: RateLimitDecision }[] = [];

    for (let i = 0; i < 20_000; i++) {
      // Alternate overload (about 2x the allowed rate per key) and light load, with simultaneous bursts.
      const hot = Math.floor(i / 1000) % 2 === 0;
      if (random() > 0.3) clock.advance(Math.floor(random() * (hot ? 6 : 40)));
      const key = keys[Math.floor(random() * keys.length)] ?? "k1";
      const d = await limiter.consume(key);
      if (d.allowed) {
        const ts = accepted.get(key) ?? [];
        allowedDecisions.push({ key, t: clock.t, index: ts.length, d });
        ts.push(clock.t);
      } else {
        refusals.push({ key, t: clock.t, d });
      }
    }

    const inWindow = (key: string, t: number): number[] =>
      (accepted.get(key) ?? []).filter((s) => s > t - windowMs && s <= t);

    let totalAccepted = 0;
    for (const key of keys) {
      const ts = accepted.get(key) ?? [];
      totalAccepted += ts.length;
      let lo = 0;
      for (let hi = 0; hi < ts.length; hi++) {
        const t = ts[hi] ?? 0;
        while ((ts[lo] ?? 0) <= t - windowMs) lo++;
        // Later entries with the same timestamp are also in (t - windowMs, t].
        let end = hi;
        while (end + 1 < ts.length && ts[end + 1] === t) end++;
        expect(end - lo + 1).toBeLessThanOrEqual(limit);
      }
    }
    expect(totalAccepted).toBeGreaterThan(limit * 10);
    expect(refusals.length).toBeGreaterThan(100);

    for (const { key, t, d } of refusals) {
      const window = inWindow(key, t);
      expect(window).toHaveLength(limit);
      expect(d.retryAfterMs).toBe(Math.max(1, (window[0] ?? 0) + windowMs - t));
      expect(d.remaining).toBe(0);
    }
    for (const { key, t, index, d } of allowedDecisions) {
      // This decision saw its own request and the earlier ones still in the window, not later ones at the same t.
      const window = (accepted.get(key) ?? [])
        .slice(Math.max(0, index - limit), index + 1)
        .filter((s) => s > t - windowMs);
      expect(d.remaining).toBe(limit - window.length);
      expect(d.resetMs).toBe((window[0] ?? 0) + windowMs - t);
    }
  });
});
