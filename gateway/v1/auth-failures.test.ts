// Failed authentications per source (an IPv4 address, an IPv6 /64): blocked after `limit` failures until the
// window that started with the first of them ends; other sources are not affected; the tracked sources are
// bounded; a shared count (as in Redis) is consulted and fed too, and the local count decides when it fails.
import { describe, expect, it } from "vitest";
import { AuthFailureLimiter, SHARED_PAUSE_MS, type SharedFailureCount } from "./auth-failures.js";

function setup(limit = 3, maxAddresses = 100, shared?: SharedFailureCount) {
  const clock = { now: 1_000 };
  const limiter = new AuthFailureLimiter({ limit, windowMs: 10_000, maxAddresses, now: () => clock.now, shared });
  return { limiter, clock };
}

/** A shared count in memory, on the clock of the limiters using it (the semantics of RedisFailureCount). */
function sharedCount(clock: { now: number }) {
  const counts = new Map<string, { failures: number; until: number }>();
  const count: SharedFailureCount & { down: boolean } = {
    down: false,
    add(source, windowMs) {
      if (count.down) return Promise.reject(new Error("redis down"));
      const entry = counts.get(source);
      if (entry === undefined || entry.until <= clock.now)
        counts.set(source, { failures: 1, until: clock.now + windowMs });
      else entry.failures += 1;
      return Promise.resolve();
    },
    blockedFor(source, limit) {
      if (count.down) return Promise.reject(new Error("redis down"));
      const entry = counts.get(source);
      if (entry === undefined || entry.failures < limit || entry.until <= clock.now) return Promise.resolve(0);
      return Promise.resolve(entry.until - clock.now);
    },
  };
  return count;
}

describe("AuthFailureLimiter", () => {
  it("blocks an address after `limit` failures for the rest of its window, and only that address", async () => {
    const { limiter, clock } = setup();
    for (let i = 0; i < 2; i++) await limiter.failed("10.0.0.1", "guess");
    expect(await limiter.blockedFor("10.0.0.1", "guess")).toBe(0);
    clock.now = 3_000;
    await limiter.failed("10.0.0.1", "guess");
    expect(await limiter.blockedFor("10.0.0.1", "guess")).toBe(8_000);
    expect(await limiter.blockedFor("10.0.0.2", "guess")).toBe(0);
    clock.now = 10_999.5;
    expect(await limiter.blockedFor("10.0.0.1", "guess")).toBe(1);
    clock.now = 11_000;
    expect(await limiter.blockedFor("10.0.0.1", "guess")).toBe(0);
    // A new window starts with the next failure.
    await limiter.failed("10.0.0.1", "guess");
    expect(await limiter.blockedFor("10.0.0.1", "guess")).toBe(0);
  });

  it("starts a new count once the window of the first failure has passed", async () => {
    const { limiter, clock } = setup();
    await limiter.failed("a", "guess");
    await limiter.failed("a", "guess");
    clock.now = 11_000;
    await limiter.failed("a", "guess");
    expect(await limiter.blockedFor("a", "guess")).toBe(0);
  });

  it("tracks at most `maxAddresses`, forgetting the least recently failing", async () => {
    const { limiter } = setup(2, 2);
    await limiter.failed("a", "guess");
    await limiter.failed("b", "guess");
    await limiter.failed("a", "guess");
    expect(await limiter.blockedFor("a", "guess")).toBeGreaterThan(0);
    await limiter.failed("c", "guess");
    expect(limiter.size).toBe(2);
    expect(await limiter.blockedFor("a", "guess")).toBeGreaterThan(0);
    await limiter.failed("b", "guess");
    expect(await limiter.blockedFor("b", "guess")).toBe(0);
  });

  it("neither counts nor blocks a key that authenticated lately", async () => {
    const { limiter } = setup(2);
    limiter.vouch("svc_ak_known");
    for (let i = 0; i < 5; i++) await limiter.failed("b", "svc_ak_known");
    expect(await limiter.blockedFor("b", "guess")).toBe(0);
    await limiter.failed("a", "guess");
    await limiter.failed("a", "guess");
    expect(await limiter.blockedFor("a", "guess")).toBeGreaterThan(0);
    expect(await limiter.blockedFor("a", "svc_ak_known")).toBe(0);
  });

  it("limits nothing with a limit of 0", async () => {
    const { limiter } = setup(0);
    for (let i = 0; i < 100; i++) await limiter.failed("a", "guess");
    expect(await limiter.blockedFor("a", "guess")).toBe(0);
    expect(limiter.size).toBe(0);
  });

  it("counts the ten addresses of one IPv6 /64 against one budget, and another /64 apart", async () => {
    const { limiter } = setup(3);
    const addresses = Array.from({ length: 10 }, (_, i) => `2001:db8:5:6::${(i + 1).toString(16)}`);
    for (const address of addresses.slice(0, 3)) await limiter.failed(address, "guess");
    for (const address of addresses) expect(await limiter.blockedFor(address, "guess")).toBeGreaterThan(0);
    expect(await limiter.blockedFor("2001:db8:5:6:ffff:ffff:ffff:ffff", "guess")).toBeGreaterThan(0);
    expect(await limiter.blockedFor("2001:db8:5:7::1", "guess")).toBe(0);
    expect(limiter.size).toBe(1);
  });

  it("counts an IPv4-mapped IPv6 address as the IPv4 address, and IPv4 addresses one by one", async () => {
    const { limiter } = setup(2);
    await limiter.failed("::ffff:192.0.2.1", "guess");
    await limiter.failed("192.0.2.1", "guess");
    expect(await limiter.blockedFor("192.0.2.1", "guess")).toBeGreaterThan(0);
    expect(await limiter.blockedFor("::ffff:192.0.2.1", "guess")).toBeGreaterThan(0);
    expect(await limiter.blockedFor("192.0.2.2", "guess")).toBe(0);
  });

  it("blocks a source on one gateway for failures counted on another through the shared count", async () => {
    const clock = { now: 1_000 };
    const shared = sharedCount(clock);
    const options = { limit: 3, windowMs: 10_000, maxAddresses: 100, now: () => clock.now, shared };
    const a = new AuthFailureLimiter(options);
    const b = new AuthFailureLimiter(options);
    await a.failed("2001:db8::1", "guess");
    await b.failed("2001:db8::2", "guess");
    expect(await a.blockedFor("2001:db8::3", "guess")).toBe(0);
    clock.now = 4_000;
    await a.failed("2001:db8::4", "guess");
    expect(await b.blockedFor("2001:db8::5", "guess")).toBe(7_000);
    expect(await a.blockedFor("2001:db8::5", "guess")).toBe(7_000);
    clock.now = 11_000;
    expect(await b.blockedFor("2001:db8::5", "guess")).toBe(0);
  });

  it("falls back to its own count while the shared one fails, and leaves it alone for a second after each failure", async () => {
    const clock = { now: 1_000 };
    const shared = sharedCount(clock);
    const errors: unknown[] = [];
    const limiter = new AuthFailureLimiter({
      limit: 2,
      windowMs: 10_000,
      maxAddresses: 100,
      now: () => clock.now,
      shared,
      onSharedError: (error) => errors.push(error),
    });
    shared.down = true;
    await limiter.failed("203.0.113.9", "guess");
    expect(errors).toHaveLength(1);
    // Within SHARED_PAUSE_MS of the failure the shared count is not asked.
    expect(await limiter.blockedFor("203.0.113.9", "guess")).toBe(0);
    await limiter.failed("203.0.113.9", "guess");
    expect(errors).toHaveLength(1);
    expect(await limiter.blockedFor("203.0.113.9", "guess")).toBe(10_000);
    // Back: asked again once the pause is over.
    shared.down = false;
    clock.now += SHARED_PAUSE_MS;
    await limiter.failed("203.0.113.10", "guess");
    await limiter.failed("203.0.113.10", "guess");
    expect(errors).toHaveLength(1);
    const other = new AuthFailureLimiter({
      limit: 2,
      windowMs: 10_000,
      maxAddresses: 100,
      now: () => clock.now,
      shared,
    });
    expect(await other.blockedFor("203.0.113.10", "guess")).toBe(10_000);
  });
});
