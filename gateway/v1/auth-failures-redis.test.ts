// The failed-authentication count shared in Redis, against a real redis-server: two gateways' limiters (each its
// own connection) spend one budget per source, the window ends for both at once, and a limiter whose Redis is
// gone decides on its own count. Fails (never skips) when redis-server is missing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Redis } from "ioredis";
import { authFailureKey } from "../../kernel/redis-keys.js";
import { startRedis, type RedisServer } from "../../test/harness/redis.js";
import { createGatewayRedis } from "../ratelimit/redis-client.js";
import { AuthFailureLimiter } from "./auth-failures.js";
import { RedisFailureCount } from "./auth-failures-redis.js";

let server: RedisServer;
const clients: Redis[] = [];

/** A gateway's limiter on a connection of its own (connected), with the gateway's connection settings. */
async function gateway(limit: number, windowMs = 60_000, errors: unknown[] = []): Promise<AuthFailureLimiter> {
  const redis = createGatewayRedis(server.url);
  redis.on("error", () => undefined);
  clients.push(redis);
  await new Promise((resolve) => redis.once("ready", resolve));
  return new AuthFailureLimiter({
    limit,
    windowMs,
    maxAddresses: 1_000,
    shared: new RedisFailureCount(redis),
    onSharedError: (error) => errors.push(error),
  });
}

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await server.stop();
});

describe("RedisFailureCount", () => {
  it("gives one IPv6 /64 one budget across two gateways, whichever addresses of it fail where", async () => {
    const [a, b] = [await gateway(10), await gateway(10)];
    for (let i = 1; i <= 10; i++) {
      const gatewayOf = i % 2 === 0 ? a : b;
      expect(await gatewayOf.blockedFor(`2001:db8:aa:1::${i.toString(16)}`, "guess")).toBe(0);
      await gatewayOf.failed(`2001:db8:aa:1::${i.toString(16)}`, "guess");
    }
    for (const limiter of [a, b]) {
      const left = await limiter.blockedFor("2001:db8:aa:1:ffff::1", "guess");
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThanOrEqual(60_000);
    }
    // Another /64, and another IPv4 address, have budgets of their own.
    expect(await a.blockedFor("2001:db8:aa:2::1", "guess")).toBe(0);
    expect(await b.blockedFor("192.0.2.50", "guess")).toBe(0);
  });

  it("counts an IPv4-mapped address as its IPv4 address on every gateway", async () => {
    const [a, b] = [await gateway(2), await gateway(2)];
    await a.failed("::ffff:192.0.2.60", "guess");
    await b.failed("192.0.2.60", "guess");
    expect(await a.blockedFor("192.0.2.60", "guess")).toBeGreaterThan(0);
    expect(await b.blockedFor("::ffff:192.0.2.60", "guess")).toBeGreaterThan(0);
  });

  it("keeps the window of the first failure: the counter expires with it and later failures do not extend it", async () => {
    const a = await gateway(3, 30_000);
    const probe = clients.at(-1);
    await a.failed("198.51.100.70", "guess");
    const first = await probe?.pttl(authFailureKey("198.51.100.70"));
    await a.failed("198.51.100.70", "guess");
    const second = await probe?.pttl(authFailureKey("198.51.100.70"));
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(30_000);
    expect(second).toBeLessThanOrEqual(first ?? 0);
    expect(await probe?.get(authFailureKey("198.51.100.70"))).toBe("2");
  });

  it("falls back to each gateway's own count while Redis is down", async () => {
    const errors: unknown[] = [];
    const a = await gateway(3, 60_000, errors);
    await server.stop();
    for (let i = 0; i < 3; i++) await a.failed("2001:db8:bb:1::1", "guess");
    expect(await a.blockedFor("2001:db8:bb:1::2", "guess")).toBeGreaterThan(0);
    expect(await a.blockedFor("2001:db8:bb:2::1", "guess")).toBe(0);
    expect(errors.length).toBeGreaterThanOrEqual(1);
  });
});
