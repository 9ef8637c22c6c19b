// Refunds in both limiters, with the same expectations on an injected clock: a grant gives back exactly the
// entries its consume recorded, once, while they are in the window; random interleavings of consumes and refunds
// keep every rolling window at most the limit. The Redis half runs against a throwaway redis-server and fails
// (never skips) when it is missing.

import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mulberry32 as prng } from "../../kernel/random.js";
import { startRedis, type RedisServer } from "../../test/harness/redis.js";
import { replayWithRefunds, type ModelSubject } from "./limiter-model.testing.js";
import { MemoryRateLimiter } from "./memory.js";
import { RedisRateLimiter } from "./redis.js";
import type { RateLimitGrant, RateLimiter, RateLimitOptions } from "./types.js";

let server: RedisServer | undefined;
let redis: Redis | undefined;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { enableAutoPipelining: true, maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await redis?.quit();
  await server?.stop();
});

/** A limiter on a clock in whole ms that the test sets, and how its grants count time. */
interface Made {
  limiter: RateLimiter;
  setNow: (ms: number) => void;
  grantMs: (grant: RateLimitGrant) => number;
}

type Make = (options: Required<RateLimitOptions>) => Made;

const BASE_MS = 1_800_000_000_000;

const makeMemory: Make = (options) => {
  let now = BASE_MS;
  const limiter = new MemoryRateLimiter({ ...options, now: () => now, sweepIntervalMs: 0 });
  closers.push(() => limiter.close());
  return { limiter, setNow: (ms) => (now = BASE_MS + ms), grantMs: (g) => g.at - BASE_MS };
};

const makeRedis: Make = (options) => {
  if (redis === undefined) throw new Error("redis-server did not start");
  let now = BASE_MS;
  const limiter = new RedisRateLimiter({ ...options, redis, clockUs: () => now * 1000 });
  closers.push(() => limiter.close());
  return { limiter, setNow: (ms) => (now = BASE_MS + ms), grantMs: (g) => g.at / 1000 - BASE_MS };
};

let keySeq = 0;
const freshKey = (): string => `refund-${++keySeq}`;

function granted(d: { grant?: RateLimitGrant | undefined }): RateLimitGrant {
  if (d.grant === undefined) throw new Error("expected an accepted decision with a grant");
  return d.grant;
}

describe.each([
  ["MemoryRateLimiter", makeMemory],
  ["RedisRateLimiter", makeRedis],
] as const)("%s refund", (_name, make) => {
  it("gives back exactly the units of one accepted consume, so that many more are accepted", async () => {
    const { limiter, setNow } = make({ limit: 5, windowMs: 1000, maxDelayMs: 0 });
    const key = freshKey();
    setNow(0);
    const batch = granted(await limiter.consume(key, 3));
    expect(batch).toMatchObject({ keyId: key, units: 3 });
    expect(await limiter.consume(key, 2)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.consume(key)).toMatchObject({ allowed: false });
    setNow(10);
    expect(await limiter.refund(batch)).toBe(3);
    expect(await limiter.consume(key, 3)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.consume(key)).toMatchObject({ allowed: false });
  });

  it("removes nothing on a second refund of the same grant, nor another consume's entries of the same ms", async () => {
    const { limiter, setNow } = make({ limit: 3, windowMs: 1000, maxDelayMs: 0 });
    const key = freshKey();
    setNow(0);
    const first = granted(await limiter.consume(key));
    const second = granted(await limiter.consume(key));
    expect(second.at).toBe(first.at);
    expect(second.id).not.toBe(first.id);
    expect(await limiter.refund(first)).toBe(1);
    expect(await limiter.refund(first)).toBe(0);
    // One entry (second's) is left: two slots.
    expect(await limiter.consume(key)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await limiter.consume(key)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.consume(key)).toMatchObject({ allowed: false });
  });

  it("removes nothing once the grant's entries left the window", async () => {
    const { limiter, setNow } = make({ limit: 2, windowMs: 1000, maxDelayMs: 0 });
    const key = freshKey();
    setNow(0);
    const old = granted(await limiter.consume(key));
    setNow(1000);
    expect(await limiter.consume(key, 2)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.refund(old)).toBe(0);
    expect(await limiter.consume(key)).toMatchObject({ allowed: false, retryAfterMs: 1000 });
  });

  it("gives back a held request's slot reserved ahead, and leaves the other held requests where they are", async () => {
    const { limiter, setNow, grantMs } = make({ limit: 2, windowMs: 1000, maxDelayMs: 100 });
    const key = freshKey();
    setNow(0);
    await limiter.consume(key, 2);
    setNow(950);
    const heldA = granted(await limiter.consume(key));
    const heldB = granted(await limiter.consume(key));
    expect([grantMs(heldA), grantMs(heldB)]).toEqual([1000, 1000]);
    expect(await limiter.consume(key)).toMatchObject({ allowed: false });
    expect(await limiter.refund(heldA)).toBe(1);
    // heldA's slot is free again: the next request takes it, held for as long.
    const next = await limiter.consume(key);
    expect(next).toMatchObject({ allowed: true, delayMs: 50, remaining: 0 });
    expect(grantMs(granted(next))).toBe(1000);
    expect(await limiter.refund(heldB)).toBe(1);
  });

  it("is harmless for a revoked key: nothing removed, the key stays revoked", async () => {
    const { limiter, setNow } = make({ limit: 2, windowMs: 1000, maxDelayMs: 0 });
    const key = freshKey();
    setNow(0);
    const grant = granted(await limiter.consume(key));
    await limiter.markRevoked(key);
    const removed = await limiter.refund(grant);
    // The in-process limiter drops a revoked key's log; the Redis one keeps it under the marker.
    expect(removed).toBeLessThanOrEqual(1);
    expect(await limiter.refund(grant)).toBe(0);
    expect(await limiter.consume(key)).toMatchObject({ allowed: false, revoked: true });
    expect(await limiter.isMarkedRevoked(key)).toBe(true);
  });

  it.each([
    [0, 1],
    [150, 2],
    [150, 3],
  ])(
    "keeps every rolling window at most limit under random consumes and refunds (max delay %i ms, seed %i)",
    async (maxDelayMs, seed) => {
      const limit = 6;
      const windowMs = 1000;
      const { limiter, setNow, grantMs } = make({ limit, windowMs, maxDelayMs });
      const key = freshKey();
      const subject: ModelSubject = {
        setNow,
        grantMs,
        consume: (units) => limiter.consume(key, units),
        refund: (grant) => limiter.refund(grant),
      };
      const counts = await replayWithRefunds(subject, prng(seed * 104_729 + maxDelayMs), {
        limit,
        windowMs,
        maxDelayMs,
        steps: 600,
      });
      expect(counts.accepted).toBeGreaterThan(limit * 4);
      expect(counts.refunded).toBeGreaterThan(limit * 2);
    },
  );
});
