// Pins the exact sliding-log behaviour of the in-process limiter with a fake clock: refusals when a slot is
// far off, holds when it frees within maxDelayMs, and the bound over acceptance times under random arrivals.

import { afterEach, describe, expect, it } from "vitest";
import { MemoryRateLimiter } from "./memory.js";
import type { RateLimitDecision } from "./types.js";
import { mulberry32 as prng } from "../../kernel/random.js";
import {
  PATTERNS,
  arrivals,
  busiestWindow,
  countInWindow,
  earliestFit,
  fitsAt,
  insertSorted,
  type Pattern,
} from "./limiter-model.testing.js";

class FakeClock {
  t = 1_000_000;
  readonly now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

const limiters: MemoryRateLimiter[] = [];
/** maxDelayMs 0 (never hold) unless given: most of these tests pin exact refusals. */
function makeLimiter(limit: number, windowMs: number, clock: FakeClock, maxDelayMs = 0): MemoryRateLimiter {
  const limiter = new MemoryRateLimiter({ limit, windowMs, maxDelayMs, now: clock.now, sweepIntervalMs: 0 });
  limiters.push(limiter);
  return limiter;
}

afterEach(async () => {
  await Promise.all(limiters.splice(0).map((l) => l.close()));
});

describe("MemoryRateLimiter", () => {
  it("uses 1200 requests per 60 s, holding up to 100 ms, when no limit, window or delay is given", async () => {
    const limiter = new MemoryRateLimiter({ sweepIntervalMs: 0 });
    limiters.push(limiter);
    expect(limiter.limit).toBe(1200);
    expect(limiter.windowMs).toBe(60_000);
    expect(limiter.maxDelayMs).toBe(100);
    const d = await limiter.consume("k");
    expect(d).toMatchObject({ allowed: true, limit: 1200, remaining: 1199, resetMs: 60_000, delayMs: 0 });
  });

  it("rejects a limit or window that is not a positive integer, and a delay not in [0, window)", () => {
    expect(() => new MemoryRateLimiter({ limit: 0 })).toThrow(RangeError);
    expect(() => new MemoryRateLimiter({ limit: 1.5 })).toThrow(RangeError);
    expect(() => new MemoryRateLimiter({ windowMs: -1 })).toThrow(RangeError);
    expect(() => new MemoryRateLimiter({ maxDelayMs: -1 })).toThrow(RangeError);
    expect(() => new MemoryRateLimiter({ maxDelayMs: 2.5 })).toThrow(RangeError);
    expect(() => new MemoryRateLimiter({ windowMs: 1000, maxDelayMs: 1000 })).toThrow(RangeError);
    expect(new MemoryRateLimiter({ windowMs: 1000, maxDelayMs: 999, sweepIntervalMs: 0 }).maxDelayMs).toBe(999);
  });

  it("takes several units at once, or none when the window has not room for all of them", async () => {
    const clock = new FakeClock();
    const limiter = makeLimiter(5, 1000, clock);
    expect(await limiter.consume("k", 3)).toMatchObject({ allowed: true, remaining: 2 });
    clock.advance(100);
    // 3 more would make 6 in the window: refused whole, nothing recorded, until the first 3 leave.
    expect(await limiter.consume("k", 3)).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 900 });
    expect(await limiter.consume("k", 2)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.consume("k")).allowed).toBe(false);
    clock.advance(900);
    expect(await limiter.consume("k", 3)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("always refuses more units than the limit, and a unit count that is not a positive integer", async () => {
    const clock = new FakeClock();
    const limiter = makeLimiter(5, 1000, clock);
    expect(await limiter.consume("k", 6)).toMatchObject({ allowed: false, retryAfterMs: 1000 });
    expect(await limiter.consume("k", 5)).toMatchObject({ allowed: true, remaining: 0 });
    expect(() => limiter.consumeSync("k", 0)).toThrow(RangeError);
    expect(() => limiter.consumeSync("k", 1.5)).toThrow(RangeError);
  });

  it("holds a request of several units for the slots that free within the delay", async () => {
    const clock = new FakeClock();
    const limiter = makeLimiter(4, 1000, clock, 100);
    await limiter.consume("k", 2);
    clock.advance(10);
    await limiter.consume("k", 2);
    clock.advance(930);
    // Both units need the two slots of t = 0, which free 60 ms from now.
    expect(await limiter.consume("k", 2)).toMatchObject({ allowed: true, delayMs: 60, remaining: 0 });
    // Three more would need the slots just reserved (t = 1000) to leave the window: far off, refused.
    expect(await limiter.consume("k", 3)).toMatchObject({ allowed: false });
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
      expect(d).toEqual({
        allowed: false,
        revoked: false,
        limit: 20,
        remaining: 0,
        resetMs: 700,
        retryAfterMs: 700,
        delayMs: 0,
      });
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
      delayMs: 0,
      grant: { keyId: "k", units: 1, at: clock.t, id: "1" },
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
    expect(await limiter.isMarkedRevoked("k")).toBe(false);
    await limiter.markRevoked("k");
    expect(await limiter.isMarkedRevoked("k")).toBe(true);
    for (let i = 0; i < 5; i++) {
      expect(await limiter.consume("k")).toEqual({
        allowed: false,
        revoked: true,
        limit: 3,
        remaining: 0,
        resetMs: 0,
        retryAfterMs: 0,
        delayMs: 0,
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

  it("with maxDelayMs 0, never holds: under random arrivals it refuses exactly when the window is full", async () => {
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
      expect(d.delayMs).toBe(0);
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

/** Replays one key's arrivals (ms from now) on a fake clock; returns each decision with its arrival time. */
function replay(
  limiter: MemoryRateLimiter,
  clock: FakeClock,
  times: readonly number[],
  key = "k",
): { t: number; d: RateLimitDecision }[] {
  const start = clock.t;
  return times.map((at) => {
    clock.t = start + at;
    return { t: at, d: limiter.consumeSync(key) };
  });
}

describe("MemoryRateLimiter holding requests", () => {
  it("holds a request whose slot frees within maxDelayMs, reserving that slot, and refuses one further off", () => {
    const clock = new FakeClock();
    const t0 = clock.t;
    const limiter = makeLimiter(3, 1000, clock, 100);
    for (let i = 0; i < 3; i++) expect(limiter.consumeSync("k").delayMs).toBe(0);
    clock.advance(950);
    // The three slots taken at t0 free at t0 + 1000, 50 ms from now: three requests are held for them; as of
    // t0 + 1000 the window (t0, t0 + 1000] holds only the held requests.
    expect(limiter.consumeSync("k")).toEqual({
      allowed: true,
      revoked: false,
      limit: 3,
      remaining: 2,
      resetMs: 1000,
      retryAfterMs: 0,
      delayMs: 50,
      grant: { keyId: "k", units: 1, at: t0 + 1000, id: "4" },
    });
    expect(limiter.consumeSync("k")).toMatchObject({ allowed: true, remaining: 1, delayMs: 50 });
    expect(limiter.consumeSync("k")).toMatchObject({ allowed: true, remaining: 0, delayMs: 50 });
    // The next slot is t0 + 2000: 1050 ms away.
    expect(limiter.consumeSync("k")).toEqual({
      allowed: false,
      revoked: false,
      limit: 3,
      remaining: 0,
      resetMs: 1050,
      retryAfterMs: 1050,
      delayMs: 0,
    });
    clock.t = t0 + 1000;
    expect(limiter.consumeSync("k")).toMatchObject({ allowed: false, retryAfterMs: 1000 });
    clock.t = t0 + 1950;
    expect(limiter.consumeSync("k")).toMatchObject({ allowed: true, delayMs: 50, remaining: 2 });
  });

  it.each(PATTERNS.flatMap((p) => [0, 1, 100, 400].map((maxDelay) => [p, maxDelay] as [Pattern, number])))(
    "accepts %s arrivals at the earliest ms within maxDelayMs %i that keeps every rolling window at most limit",
    (pattern, maxDelayMs) => {
      const limit = 10;
      const windowMs = 1000;
      for (const seed of [1, 2, 3]) {
        const random = prng(seed * 7919 + maxDelayMs);
        const times = arrivals(pattern, random, { limit, windowMs, durationMs: 20 * windowMs, jitterMs: 150 });
        const clock = new FakeClock();
        const limiter = makeLimiter(limit, windowMs, clock, maxDelayMs);
        const accepted: number[] = [];
        let held = 0;
        let refused = 0;
        for (const { t, d } of replay(limiter, clock, times)) {
          const slot = earliestFit(accepted, t, maxDelayMs, limit, windowMs);
          if (slot === undefined) {
            refused++;
            expect(d).toMatchObject({ allowed: false, remaining: 0, delayMs: 0 });
            // Retry-After names the first ms at which the request would fit.
            expect(fitsAt(accepted, t + d.retryAfterMs, limit, windowMs)).toBe(true);
            if (d.retryAfterMs > 1) expect(fitsAt(accepted, t + d.retryAfterMs - 1, limit, windowMs)).toBe(false);
            expect(d.resetMs).toBe(d.retryAfterMs);
            continue;
          }
          expect(d.allowed).toBe(true);
          expect(d.delayMs).toBe(slot - t);
          if (d.delayMs > 0) held++;
          insertSorted(accepted, slot);
          const inWindow = countInWindow(accepted, slot, windowMs);
          expect(d.remaining).toBe(limit - inWindow);
          const oldest = accepted[accepted.length - inWindow] ?? 0;
          expect(d.resetMs).toBe(oldest + windowMs - slot);
        }
        expect(busiestWindow(accepted, windowMs)).toBeLessThanOrEqual(limit);
        if (pattern !== "steady") expect(refused + held).toBeGreaterThan(0);
        if (maxDelayMs === 0) expect(held).toBe(0);
      }
    },
  );

  it("never refuses a client paced at exactly limit per window whose arrivals jitter by less than maxDelayMs", () => {
    const limit = 20;
    const windowMs = 1000;
    let heldTotal = 0;
    let refusedWithoutHolding = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const times = arrivals("jitter", prng(seed), { limit, windowMs, durationMs: 30 * windowMs, jitterMs: 99 });
      const clock = new FakeClock();
      const decisions = replay(makeLimiter(limit, windowMs, clock, 100), clock, times);
      expect(decisions.filter(({ d }) => !d.allowed)).toEqual([]);
      const accepted = decisions.map(({ t, d }) => t + d.delayMs);
      expect(busiestWindow(accepted, windowMs)).toBe(limit);
      heldTotal += decisions.filter(({ d }) => d.delayMs > 0).length;

      const strict = new FakeClock();
      refusedWithoutHolding += replay(makeLimiter(limit, windowMs, strict, 0), strict, times).filter(
        ({ d }) => !d.allowed,
      ).length;
    }
    // The same arrivals without holding are refused now and then: the holds are what keeps them all.
    expect(heldTotal).toBeGreaterThan(0);
    expect(refusedWithoutHolding).toBeGreaterThan(0);

    const steady = arrivals("steady", prng(0), { limit, windowMs, durationMs: 30 * windowMs, jitterMs: 0 });
    const clock = new FakeClock();
    for (const { d } of replay(makeLimiter(limit, windowMs, clock, 100), clock, steady)) {
      expect(d).toMatchObject({ allowed: true, delayMs: 0 });
    }
  });

  it("gives a client at 13/12 of the rate exactly limit per rolling window in steady state and refuses the rest", () => {
    const limit = 120;
    const windowMs = 6000;
    const maxDelayMs = 100;
    const durationMs = 12 * windowMs;
    const random = prng(1300);
    const interval = windowMs / ((limit * 13) / 12);
    const times: number[] = [];
    for (let k = 0; k * interval < durationMs; k++) times.push(Math.floor(k * interval + random() * 30));
    times.sort((a, b) => a - b);
    const clock = new FakeClock();
    const decisions = replay(makeLimiter(limit, windowMs, clock, maxDelayMs), clock, times);
    const accepted = decisions.filter(({ d }) => d.allowed).map(({ t, d }) => t + d.delayMs);
    expect(busiestWindow(accepted, windowMs)).toBe(limit);
    // Once the first window is full, every window ending at an acceptance holds exactly `limit`.
    const steady = accepted.filter((t) => t >= 2 * windowMs);
    expect(steady.length).toBeGreaterThan(5 * limit);
    for (const t of steady) expect(countInWindow(accepted, t, windowMs)).toBe(limit);
    // Over the steady part the key got limit per window and the excess (1 in 13) was refused.
    const refusedLate = decisions.filter(({ t, d }) => !d.allowed && t >= 2 * windowMs).length;
    const sentLate = decisions.filter(({ t }) => t >= 2 * windowMs).length;
    expect(Math.abs(refusedLate - sentLate / 13)).toBeLessThan(limit / 12);
    for (const { d } of decisions) expect(d.delayMs).toBeLessThanOrEqual(maxDelayMs);
  });

  it("gives each slot freeing within maxDelayMs to exactly one of many simultaneous requests", async () => {
    const limit = 10;
    const windowMs = 1000;
    const clock = new FakeClock();
    const t0 = clock.t;
    const limiter = makeLimiter(limit, windowMs, clock, 500);
    for (let i = 0; i < limit; i++) {
      expect((await limiter.consume("k")).allowed).toBe(true);
      clock.advance(10);
    }
    clock.t = t0 + 600;
    const decisions = await Promise.all(Array.from({ length: 30 }, () => limiter.consume("k")));
    const slots = decisions.filter((d) => d.allowed).map((d) => clock.t + d.delayMs);
    expect(slots).toEqual(Array.from({ length: limit }, (_, i) => t0 + windowMs + 10 * i));
    expect(decisions.filter((d) => !d.allowed)).toHaveLength(20);
    const all = [...Array.from({ length: limit }, (_, i) => t0 + 10 * i), ...slots];
    expect(busiestWindow(all, windowMs)).toBe(limit);
  });

  it("keeps a key with reserved slots through a sweep", () => {
    const clock = new FakeClock();
    const limiter = makeLimiter(1, 1000, clock, 500);
    limiter.consumeSync("k");
    clock.advance(600);
    expect(limiter.consumeSync("k").delayMs).toBe(400);
    clock.advance(1300);
    limiter.sweep();
    expect(limiter.trackedKeys).toBe(1);
    clock.advance(100);
    limiter.sweep();
    expect(limiter.trackedKeys).toBe(0);
  });
});

describe("MemoryRateLimiter's memory stays bounded", () => {
  function bounded(clock: FakeClock, options: { maxKeys?: number; revokedTtlMs?: number; maxRevoked?: number }) {
    const limiter = new MemoryRateLimiter({
      limit: 2,
      windowMs: 1000,
      maxDelayMs: 0,
      now: clock.now,
      sweepIntervalMs: 0,
      ...options,
    });
    limiters.push(limiter);
    return limiter;
  }

  it("keeps at most maxKeys logs, however many keys send, dropping the least recently used", async () => {
    const clock = new FakeClock();
    const limiter = bounded(clock, { maxKeys: 100 });
    for (let i = 0; i < 10_000; i++) {
      await limiter.consume(`key-${i}`);
      expect(limiter.trackedKeys).toBeLessThanOrEqual(100);
    }
    expect(limiter.trackedKeys).toBe(100);
  });

  it("keeps a key that is in use when the cap is reached, and drops the one unused longest", async () => {
    const clock = new FakeClock();
    const limiter = bounded(clock, { maxKeys: 3 });
    await limiter.consume("a");
    await limiter.consume("b");
    await limiter.consume("c");
    await limiter.consume("a"); // a's window is now full; b is the least recently used
    await limiter.consume("d");
    expect(limiter.trackedKeys).toBe(3);
    expect((await limiter.consume("a")).allowed).toBe(false);
    // b was dropped: its window starts again.
    expect(await limiter.consume("b")).toMatchObject({ allowed: true, remaining: 1 });
  });

  it("remembers at most maxRevoked revoked keys, forgetting the oldest revocation first", async () => {
    const clock = new FakeClock();
    const limiter = bounded(clock, { maxRevoked: 50 });
    for (let i = 0; i < 5_000; i++) {
      await limiter.markRevoked(`key-${i}`);
      expect(limiter.revokedKeys).toBeLessThanOrEqual(50);
    }
    expect((await limiter.consume("key-4999")).revoked).toBe(true);
    expect((await limiter.consume("key-4950")).revoked).toBe(true);
    expect((await limiter.consume("key-0")).revoked).toBe(false);
  });

  it("forgets a revocation after revokedTtlMs, at a sweep or when the key is seen again", async () => {
    const clock = new FakeClock();
    const limiter = bounded(clock, { revokedTtlMs: 60_000 });
    await limiter.markRevoked("early");
    clock.advance(30_000);
    await limiter.markRevoked("late");
    clock.advance(29_999);
    expect((await limiter.consume("early")).revoked).toBe(true);
    expect(limiter.revokedKeys).toBe(2);
    clock.advance(1);
    limiter.sweep();
    expect(limiter.revokedKeys).toBe(1);
    expect((await limiter.consume("early")).revoked).toBe(false);
    clock.advance(30_000);
    expect((await limiter.consume("late")).revoked).toBe(false);
    expect(limiter.revokedKeys).toBe(0);
  });

  it("refuses a cap or lifetime that is not a positive integer", () => {
    expect(() => new MemoryRateLimiter({ maxKeys: 0, sweepIntervalMs: 0 })).toThrow(RangeError);
    expect(() => new MemoryRateLimiter({ maxRevoked: 1.5, sweepIntervalMs: 0 })).toThrow(RangeError);
    expect(() => new MemoryRateLimiter({ revokedTtlMs: -1, sweepIntervalMs: 0 })).toThrow(RangeError);
  });
});
