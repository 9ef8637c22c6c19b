// The real stack with its shared Redis stopped: /v1 answers 503 rate_limiter_unavailable with Retry-After,
// while the gateway stays ready (/readyz 200), so an orchestrator keeps routing to it and clients get that
// answer rather than the ingress's bare 503 (docs/runbook.md, "Backend unavailable (503)"); once Redis is
// back the same gateway serves again without a restart.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type CreatedKey } from "../harness/client.js";
import { startRedis, type RedisServer } from "../harness/redis.js";
import { eventually } from "../harness/eventually.js";

describe("the stack with its Redis stopped", () => {
  let stack: TestStack;
  let key: CreatedKey;
  let base = "";
  let restarted: RedisServer | undefined;

  beforeAll(async () => {
    stack = await stackOn("pglite", { redis: true });
    const gateway = stack.gateways[0];
    if (gateway === undefined) throw new Error("no gateway");
    base = gateway.v1;
    key = await newKey(gateway.api, "redis-down");
  });
  afterAll(async () => {
    await stack.stop();
    await restarted?.stop();
  });

  it("answers /v1 with 503 and Retry-After, stays ready, and serves again once Redis is back", async () => {
    const redis = stack.redis;
    if (redis === undefined) throw new Error("no redis");
    expect((await v1(base, "/v1/tickers", key)).status).toBe(200);

    await redis.stop();
    const refused = await v1(base, "/v1/tickers", key);
    expect(refused.status).toBe(503);
    expect(refused.body.error).toBe("rate_limiter_unavailable");
    expect(refused.headers.get("retry-after")).toBe("1");
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready" });

    restarted = await startRedis({ port: redis.port });
    await eventually(async () => (await v1(base, "/v1/tickers", key)).status === 200, "requests served again");
  });
});
