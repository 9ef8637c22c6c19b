// Proves the shared Redis limiter is exact across gateway replicas, against a real redis-server.
// Fails (never skips) when redis-server is missing: the harness throws in beforeAll.

import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis } from "../../test/harness/redis.js";
import type { RedisServer } from "../../test/harness/redis.js";
import { rateLimitHeaders } from "./headers.js";
import { RedisRateLimiter } from "./redis.js";
import type { RedisRateLimitDecision } from "./redis.js";
import { mulberry32 as prng } from "../../kernel/random.js";

let server: RedisServer | undefined;
const clients: Redis[] = [];

/** One ioredis client per simulated gateway replica. */
function gatewayClient(): Redis {
  if (server === undefined) throw new Error("redis-server did not start");
  const client = new Redis(server.url, { enableAutoPipelining: true, maxRetriesPerRequest: 1 });
  clients.push(client);
  return client;
}

let keySeq = 0;
const freshKey = (name: string): string => `${name}-${++keySeq}`;

beforeAll(async () => {
  server = await startRedis();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit()));
  await server?.stop();
});

describe("RedisRateLimiter", () => {
  it("never accepts more than limit per window across two gateways bursting concurrently", async () => {
    const limit = 50;
    const windowMs = 1000;
    const windowUs = windowMs * 1000;
    const a = new RedisRateLimiter({ redis: gatewayClient(), limit, windowMs });
    const b = new RedisRateLimiter({ redis: gatewayClient(), limit, windowMs });
    const key = freshKey("burst");
    const random = prng(42);
    const decisions: RedisRateLimitDecision[] = [];

    for (let round = 0; round < 30; round++) {
      const calls: Promise<RedisRateLimitDecision>[] = [];
      for (const limiter of [a, b]) {
        const size = Math.floor(random() * 30);
        for (let i = 0; i < size; i++) calls.push(limiter.consume(key));
      }
      decisions.push(...(await Promise.all(calls)));
      await sleep(Math.floor(random() * 200));
    }

    // Scripts run one at a time, each at its own Redis TIME, so server times order every decision.
    const accepted = decisions
      .filter((d) => d.allowed)
      .map((d) => d.serverTimeUs)
      .sort((x, y) => x - y);
    const countAccepted = (t: number): number => accepted.filter((s) => s > t - windowUs && s <= t).length;
    for (const t of accepted) expect(countAccepted(t)).toBeLessThanOrEqual(limit);
    const refused = decisions.filter((d) => !d.allowed);
    for (const d of refused) {
      expect(countAccepted(d.serverTimeUs)).toBe(limit);
      expect(d.revoked).toBe(false);
      expect(d.retryAfterMs).toBeGreaterThanOrEqual(1);
    }
    expect(accepted.length).toBeGreaterThan(limit * 2);
    expect(refused.length).toBeGreaterThan(0);

    // Every accepted request still in the window is one distinct member of the sorted set.
    const lastT = Math.max(...decisions.map((d) => d.serverTimeUs));
    const stored = await clients[0]?.zrange(a.logKey(key), 0, "-1", "WITHSCORES");
    const storedScores = (stored ?? []).filter((_, i) => i % 2 === 1).map(Number);
    expect(storedScores).toEqual(accepted.filter((t) => t > lastT - windowUs));
  });

  it("never refuses a paced sender slightly below the rate", async () => {
    const limiter = new RedisRateLimiter({ redis: gatewayClient(), limit: 20, windowMs: 1000 });
    const key = freshKey("paced");
    const start = performance.now();
    const decisions: RedisRateLimitDecision[] = [];
    for (let i = 0; i * 55 < 3000; i++) {
      const wait = start + i * 55 - performance.now();
      if (wait > 0) await sleep(wait);
      decisions.push(await limiter.consume(key));
    }
    expect(decisions.filter((d) => !d.allowed)).toEqual([]);
    expect(decisions.length).toBeGreaterThan(50);
  });

  it("sees a revocation made by one gateway on the other gateway's very next consume", async () => {
    const a = new RedisRateLimiter({ redis: gatewayClient(), limit: 5, windowMs: 1000 });
    const b = new RedisRateLimiter({ redis: gatewayClient(), limit: 5, windowMs: 1000 });
    const key = freshKey("revoked");
    expect((await b.consume(key)).allowed).toBe(true);
    await a.markRevoked(key);
    const d = await b.consume(key);
    expect(d).toMatchObject({ allowed: false, revoked: true, limit: 5, remaining: 0, resetMs: 0, retryAfterMs: 0 });
    expect(rateLimitHeaders(d, 1000)["Retry-After"]).toBeUndefined();

    const redis = clients[0];
    expect(await redis?.zcard(b.logKey(key))).toBe(1);
    const ttl = (await redis?.ttl(a.revokedKey(key))) ?? 0;
    expect(ttl).toBeGreaterThan(604_000);
    expect(ttl).toBeLessThanOrEqual(604_800);
  });

  it("computes remaining, reset and retry-after from the Redis clock and emits matching headers", async () => {
    const limiter = new RedisRateLimiter({ redis: gatewayClient(), limit: 3, windowMs: 1000 });
    const key = freshKey("retry");
    const first = await limiter.consume(key);
    expect(first).toMatchObject({ allowed: true, revoked: false, limit: 3, remaining: 2, resetMs: 1000 });
    expect(first.retryAfterMs).toBe(0);
    await sleep(20);
    const second = await limiter.consume(key);
    expect(second.remaining).toBe(1);
    expect(second.resetMs).toBe(Math.ceil((first.serverTimeUs + 1_000_000 - second.serverTimeUs) / 1000));
    const third = await limiter.consume(key);
    expect(third.remaining).toBe(0);

    const refused = await limiter.consume(key);
    const expectedWait = Math.max(1, Math.ceil((first.serverTimeUs + 1_000_000 - refused.serverTimeUs) / 1000));
    expect(refused).toMatchObject({
      allowed: false,
      revoked: false,
      remaining: 0,
      resetMs: expectedWait,
      retryAfterMs: expectedWait,
    });
    expect(rateLimitHeaders(refused, 1000)).toEqual({
      "RateLimit-Policy": "3;w=1",
      RateLimit: "limit=3, remaining=0, reset=1",
      "Retry-After": "1",
    });

    // The refusal was not recorded, and the log expires with the window.
    const redis = clients[0];
    expect(await redis?.zcard(limiter.logKey(key))).toBe(3);
    const pttl = (await redis?.pttl(limiter.logKey(key))) ?? 0;
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(1000);

    await sleep(expectedWait + 10);
    expect((await limiter.consume(key)).allowed).toBe(true);
  });

  it("keeps keys and prefixes independent of each other", async () => {
    const redis = gatewayClient();
    const tenantA = new RedisRateLimiter({ redis, limit: 2, windowMs: 1000, prefix: "a:" });
    const tenantB = new RedisRateLimiter({ redis, limit: 2, windowMs: 1000, prefix: "b:" });
    const key = freshKey("iso");
    await tenantA.consume(key);
    await tenantA.consume(key);
    expect((await tenantA.consume(key)).allowed).toBe(false);
    expect((await tenantA.consume(freshKey("iso"))).allowed).toBe(true);
    expect((await tenantB.consume(key)).allowed).toBe(true);
    expect(tenantA.logKey(key)).toBe(`a:rl:${key}`);
    expect(new RedisRateLimiter({ redis, limit: 1, windowMs: 1000 }).revokedKey("k")).toBe("fts:revoked:k");
  });

  it("refuses to consume after close without closing the shared connection", async () => {
    const redis = gatewayClient();
    const limiter = new RedisRateLimiter({ redis, limit: 2, windowMs: 1000 });
    await limiter.close();
    await expect(limiter.consume("k")).rejects.toThrow(/closed/);
    expect(await redis.ping()).toBe("PONG");
  });
});
