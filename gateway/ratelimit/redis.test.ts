// Proves the shared Redis limiter is exact across gateway replicas, against a real redis-server, and makes
// the same decisions as the in-process limiter (replayed on an injected clock).
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
import { MemoryRateLimiter } from "./memory.js";
import { PATTERNS, arrivals, busiestWindow, countInWindow } from "./limiter-model.testing.js";
import { randomUUID } from "node:crypto";
import { revokedMarkerKey } from "../../kernel/redis-keys.js";

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
    const maxDelayUs = 100_000;
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

    // Every request counts at its acceptance time: its script's Redis TIME, or the slot it was held for.
    const accepted = decisions
      .filter((d) => d.allowed)
      .map((d) => d.acceptedAtUs)
      .sort((x, y) => x - y);
    expect(busiestWindow(accepted, windowUs)).toBeLessThanOrEqual(limit);
    for (const d of decisions.filter((d) => d.allowed)) {
      expect(d.acceptedAtUs).toBeGreaterThanOrEqual(d.serverTimeUs);
      expect(d.acceptedAtUs - d.serverTimeUs).toBeLessThanOrEqual(maxDelayUs);
      expect(d.delayMs).toBe(Math.ceil((d.acceptedAtUs - d.serverTimeUs) / 1000));
    }
    const refused = decisions.filter((d) => !d.allowed);
    for (const d of refused) {
      // Refused only when every slot up to the longest hold was taken.
      expect(countInWindow(accepted, d.serverTimeUs + maxDelayUs, windowUs)).toBe(limit);
      expect(d.revoked).toBe(false);
      expect(d.retryAfterMs).toBeGreaterThanOrEqual(1);
    }
    expect(accepted.length).toBeGreaterThan(limit * 2);
    expect(refused.length).toBeGreaterThan(0);

    // Every accepted request still in the window (or reserved ahead) is one distinct member of the sorted set.
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
    expect(await b.isMarkedRevoked(key)).toBe(false);
    await a.markRevoked(key);
    expect(await b.isMarkedRevoked(key)).toBe(true);
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
    expect(tenantA.logKey(key)).toBe(`a:rl:{a:revoked:${key}}`);
    expect(new RedisRateLimiter({ redis, limit: 1, windowMs: 1000 }).revokedKey("k")).toBe("fts:revoked:k");
  });

  it("refuses to consume after close without closing the shared connection", async () => {
    const redis = gatewayClient();
    const limiter = new RedisRateLimiter({ redis, limit: 2, windowMs: 1000 });
    await limiter.close();
    await expect(limiter.consume("k")).rejects.toThrow(/closed/);
    expect(await redis.ping()).toBe("PONG");
  });
  it.each(PATTERNS)("decides %s arrivals exactly as the in-process limiter, holds included", async (pattern) => {
    // A long window so the keys outlive the test in real time; the clock is injected into the script.
    const limit = 10;
    const windowMs = 60_000;
    const base = 1_800_000_000_000;
    for (const maxDelayMs of [0, 400]) {
      const times = arrivals(pattern, prng(maxDelayMs + pattern.length), {
        limit,
        windowMs,
        durationMs: 4 * windowMs,
        jitterMs: 450,
      });
      let now = base;
      const redis = new RedisRateLimiter({
        redis: gatewayClient(),
        limit,
        windowMs,
        maxDelayMs,
        clockUs: () => now * 1000,
      });
      const memory = new MemoryRateLimiter({ limit, windowMs, maxDelayMs, now: () => now, sweepIntervalMs: 0 });
      const key = freshKey(`replay-${pattern}`);
      const accepted: number[] = [];
      for (const t of times) {
        now = base + t;
        const d = await redis.consume(key);
        const { serverTimeUs, acceptedAtUs, grant, ...decision } = d;
        expect(decision).toEqual({ ...memory.consumeSync(key), grant: undefined });
        expect(grant).toEqual(d.allowed ? { keyId: key, units: 1, at: acceptedAtUs, id: grant?.id } : undefined);
        expect(serverTimeUs).toBe(now * 1000);
        if (d.allowed) {
          expect(acceptedAtUs).toBe((now + d.delayMs) * 1000);
          accepted.push(acceptedAtUs);
        }
      }
      await memory.close();
      expect(accepted.length).toBeGreaterThan(limit);
      expect(busiestWindow(accepted, windowMs * 1000)).toBeLessThanOrEqual(limit);
    }
  });

  it("takes several units at once or none, exactly as the in-process limiter does", async () => {
    const limit = 10;
    const windowMs = 60_000;
    const base = 1_800_000_000_000;
    for (const maxDelayMs of [0, 400]) {
      let now = base;
      const redis = new RedisRateLimiter({
        redis: gatewayClient(),
        limit,
        windowMs,
        maxDelayMs,
        clockUs: () => now * 1000,
      });
      const memory = new MemoryRateLimiter({ limit, windowMs, maxDelayMs, now: () => now, sweepIntervalMs: 0 });
      const key = freshKey("units");
      const random = prng(7 + maxDelayMs);
      const accepted: number[] = [];
      let refusedWhole = 0;
      for (let i = 0; i < 300; i++) {
        now += Math.floor(random() * 3000);
        // 1..limit + 1: more than the limit is always refused.
        const units = 1 + Math.floor(random() * (limit + 1));
        const d = await redis.consume(key, units);
        const { serverTimeUs, acceptedAtUs, grant, ...decision } = d;
        expect(decision).toEqual({ ...memory.consumeSync(key, units), grant: undefined });
        expect(grant).toEqual(d.allowed ? { keyId: key, units, at: acceptedAtUs, id: grant?.id } : undefined);
        if (d.allowed) for (let u = 0; u < units; u++) accepted.push(acceptedAtUs);
        else refusedWhole++;
        expect(serverTimeUs).toBe(now * 1000);
      }
      await memory.close();
      accepted.sort((x, y) => x - y);
      expect(refusedWhole).toBeGreaterThan(0);
      expect(accepted.length).toBeGreaterThan(limit);
      expect(busiestWindow(accepted, windowMs * 1000)).toBeLessThanOrEqual(limit);
    }
  });

  it("stores requests held for the same slot as distinct members and keeps the log until the last slot leaves", async () => {
    const redis = clients[0] ?? gatewayClient();
    let now = 1_800_000_000_000;
    const limiter = new RedisRateLimiter({
      redis,
      limit: 3,
      windowMs: 1000,
      maxDelayMs: 500,
      clockUs: () => now * 1000,
    });
    const key = freshKey("same-slot");
    for (let i = 0; i < 3; i++) expect((await limiter.consume(key)).delayMs).toBe(0);
    now += 600;
    const held = await Promise.all([limiter.consume(key), limiter.consume(key), limiter.consume(key)]);
    expect(held.map((d) => [d.allowed, d.delayMs, d.acceptedAtUs])).toEqual(
      Array.from({ length: 3 }, () => [true, 400, (now + 400) * 1000]),
    );
    expect(held.map((d) => d.remaining).sort()).toEqual([0, 1, 2]);
    expect((await limiter.consume(key)).allowed).toBe(false);
    expect(await redis.zcard(limiter.logKey(key))).toBe(6);
    // The newest entry is 400 ms ahead and stays counted for a window after that.
    const pttl = await redis.pttl(limiter.logKey(key));
    expect(pttl).toBeGreaterThan(1000);
    expect(pttl).toBeLessThanOrEqual(1400);
  });

  it("gives each slot freeing within the delay to one of many concurrent requests from two gateways", async () => {
    const limit = 20;
    const windowUs = 1_000_000;
    const a = new RedisRateLimiter({ redis: gatewayClient(), limit, windowMs: 1000, maxDelayMs: 900 });
    const b = new RedisRateLimiter({ redis: gatewayClient(), limit, windowMs: 1000, maxDelayMs: 900 });
    const key = freshKey("contended");
    const burst = (n: number): Promise<RedisRateLimitDecision[]> =>
      Promise.all(Array.from({ length: n }, (_, i) => (i % 2 === 0 ? a : b).consume(key)));
    const first = await burst(limit);
    expect(first.every((d) => d.allowed)).toBe(true);
    await sleep(300);
    const second = await burst(3 * limit);
    const taken = second.filter((d) => d.allowed);
    expect(taken).toHaveLength(limit);
    // Each takes the slot one first-burst request frees (or its own arrival, if a slow machine got there late).
    const freed = first.map((d) => d.acceptedAtUs + windowUs).sort((x, y) => x - y);
    taken.sort((x, y) => x.acceptedAtUs - y.acceptedAtUs);
    taken.forEach((d, i) => {
      expect(d.acceptedAtUs).toBe(Math.max(freed[i] ?? 0, d.serverTimeUs));
    });
    const all = [...first, ...taken].map((d) => d.acceptedAtUs).sort((x, y) => x - y);
    expect(busiestWindow(all, windowUs)).toBe(limit);
    const lastT = Math.max(...second.map((d) => d.serverTimeUs));
    expect(await clients[0]?.zcard(a.logKey(key))).toBe(all.filter((t) => t > lastT - windowUs).length);
  });
});

/** CRC16/XMODEM of the key's hash tag modulo 16384: the Redis Cluster slot (the cluster specification). */
function hashSlot(key: string): number {
  const open = key.indexOf("{");
  const close = open === -1 ? -1 : key.indexOf("}", open + 1);
  const tagged = close > open + 1 ? key.slice(open + 1, close) : key;
  let crc = 0;
  for (const byte of Buffer.from(tagged, "utf8")) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

describe("RedisRateLimiter on Redis Cluster", () => {
  it("computes Redis's slots (the specification's examples)", () => {
    expect(hashSlot("123456789")).toBe(0x31c3 % 16384);
    expect(hashSlot("{user1000}.following")).toBe(hashSlot("{user1000}.followers"));
    expect(hashSlot("foo{{bar}}zap")).toBe(hashSlot("{bar"));
  });

  it("hands the script keys that share one hash slot, for every key id and prefix, the marker keeping its name", () => {
    const redis = gatewayClient();
    for (const prefix of ["fts:", "a:", "tenant-7:"]) {
      const limiter = new RedisRateLimiter({ redis, limit: 1, windowMs: 1000, prefix });
      for (let i = 0; i < 500; i++) {
        const keyId = randomUUID();
        expect(limiter.revokedKey(keyId)).toBe(revokedMarkerKey(keyId, prefix));
        expect(hashSlot(limiter.logKey(keyId))).toBe(hashSlot(limiter.revokedKey(keyId)));
      }
    }
  });

  it("refuses a key id with a brace, which would move the hash tag", () => {
    const limiter = new RedisRateLimiter({ redis: gatewayClient(), limit: 1, windowMs: 1000 });
    expect(() => limiter.logKey("a{b}")).toThrow(/braces/);
  });

  it("limits, holds and sees revocations on a cluster-mode redis-server (no CROSSSLOT)", async () => {
    const cluster = await startRedis({ cluster: true });
    const redis = new Redis(cluster.url, { maxRetriesPerRequest: 1 });
    try {
      const limiter = new RedisRateLimiter({ redis, limit: 2, windowMs: 60_000 });
      const keyId = randomUUID();
      expect((await limiter.consume(keyId)).allowed).toBe(true);
      expect((await limiter.consume(keyId)).allowed).toBe(true);
      expect(await limiter.consume(keyId)).toMatchObject({ allowed: false, revoked: false });
      await limiter.markRevoked(keyId);
      expect(await limiter.consume(keyId)).toMatchObject({ allowed: false, revoked: true });
      // The wallet's marker, set under its own name, is the one the script reads.
      const other = randomUUID();
      await redis.set(revokedMarkerKey(other), "1", "EX", 60);
      expect(await limiter.consume(other)).toMatchObject({ revoked: true });
    } finally {
      redis.disconnect();
      await cluster.stop();
    }
  });
});
