// The Redis revocation bus: the publishing replica applies a revocation to itself before anything goes to
// Redis, and a Redis that is down or does not answer neither fails nor hangs the revocation (the other
// replicas then apply it from the database, wallet/reconciler.ts). Each replica applies a key once.
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../kernel/log.js";
import { startRedis, type RedisServer } from "../test/harness/redis.js";
import { startStallProxy, type StallProxy } from "../test/harness/stall-proxy.js";
import { RedisRevocationBus, type RevocationNotice } from "./revocation-bus.js";

const log = createLogger("test", "silent");
const notice = (keyId: string): RevocationNotice => ({ keyId, keyHash: Buffer.from(keyId).toString("base64") });

describe("RedisRevocationBus", () => {
  const buses: RedisRevocationBus[] = [];
  let redis: RedisServer | undefined;
  let proxy: StallProxy | undefined;

  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
    await proxy?.stop();
    proxy = undefined;
    await redis?.stop();
    redis = undefined;
  });

  function replica(url: string, ackTimeoutMs = 2_000): { bus: RedisRevocationBus; applied: string[] } {
    const bus = new RedisRevocationBus(url, log, ackTimeoutMs);
    buses.push(bus);
    const applied: string[] = [];
    bus.onRevoked((n) => {
      applied.push(n.keyId);
    });
    return { bus, applied };
  }

  it("reaches every subscribed replica, each applying a key once, the publisher first", async () => {
    redis = await startRedis();
    const a = replica(redis.url);
    const b = replica(redis.url);
    await Promise.all([a.bus.ready(), b.bus.ready()]);
    await a.bus.publish(notice("k1"));
    expect(a.applied).toEqual(["k1"]);
    expect(b.applied).toEqual(["k1"]);
    // The same key learnt again (the database poll) is not applied twice.
    expect(await b.bus.applyLocally(notice("k1"))).toBe(false);
    expect(await b.bus.applyLocally(notice("k2"))).toBe(true);
    expect(b.applied).toEqual(["k1", "k2"]);
  });

  it("applies the revocation on the publisher and resolves when Redis is down", async () => {
    redis = await startRedis();
    const a = replica(redis.url);
    await a.bus.ready();
    await redis.stop();
    await a.bus.publish(notice("k-down"));
    expect(a.applied).toEqual(["k-down"]);
  });

  it("resolves within its ack timeout when Redis accepts the connection but never answers", async () => {
    redis = await startRedis();
    proxy = await startStallProxy(redis.url);
    const a = replica(proxy.url, 300);
    await a.bus.ready();
    proxy.stall();
    await a.bus.publish(notice("k-stalled"));
    expect(a.applied).toEqual(["k-stalled"]);
  });
});
