// Redis down or hung: a /v1 request is answered 503 rate_limiter_unavailable with Retry-After, counted under
// service="redis", instead of waiting in ioredis's queues and failing as a 500; once Redis answers again the same
// client serves requests without a restart. Driven through the gateway's authentication middleware, error
// responder and Redis client settings, against a real redis-server that the test stops, restarts and freezes.
import http from "node:http";
import express from "express";
import { pino } from "pino";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Dependency } from "../../kernel/errors.js";
import { startRedis, type RedisServer } from "../../test/harness/redis.js";
import type { Clients } from "../clients.js";
import { errorResponder } from "../http/errors.js";
import { requestId } from "../http/request.js";
import { authenticate } from "../v1/auth.js";
import { GATEWAY_REDIS_OPTIONS, createGatewayRedis, redisFailure } from "./redis-client.js";
import { RedisRateLimiter } from "./redis.js";
import { eventually } from "../../test/harness/eventually.js";

/** A wallet that knows one key: validation never needs Redis. */
const clients = {
  wallet: {
    validateApiKey: () =>
      Promise.resolve({
        valid: true,
        user_id: "user-1",
        key_id: "6f1c1f9e-3f55-4c8e-9a51-0c4d3c1b2a10",
        permissions: ["READ_ONLY"],
        expires_at_ms: 0,
        code: "",
        ip_whitelist: [],
      }),
  },
} as unknown as Clients;

describe("the gateway with its Redis down", () => {
  let redisServer: RedisServer;
  let redis: Redis;
  let server: http.Server;
  let base = "";
  const counted: Dependency[] = [];
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    redisServer = await startRedis();
    redis = createGatewayRedis(redisServer.url);
    redis.on("error", () => undefined);
    const limiter = new RedisRateLimiter({ redis, limit: 1000, windowMs: 60_000 });
    const log = pino(
      { level: "warn" },
      { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    const app = express();
    app.use(requestId());
    app.get("/v1/ping", authenticate({ clients, limiter, windowMs: 60_000 }, "READ_ONLY"), (_req, res) => {
      res.json({ ok: true });
    });
    app.use(
      errorResponder(log, {
        backend: "engine",
        onUnavailable: (dependency) => counted.push(dependency),
      }),
    );
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (typeof address !== "object" || address === null) throw new Error("no address");
    base = `http://127.0.0.1:${address.port}`;
    await eventually(async () => (await redis.ping().catch(() => "")) === "PONG", "the first connection");
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    redis.disconnect();
    await redisServer.stop();
  });

  const get = () => fetch(`${base}/v1/ping`, { headers: { "x-api-key": "pk", "x-api-secret": "sk" } });

  async function expectUnavailable(): Promise<void> {
    const answer = await get();
    expect(answer.status).toBe(503);
    expect(answer.headers.get("retry-after")).toBe("1");
    expect(answer.headers.get("ratelimit")).toBeNull();
    expect(await answer.json()).toEqual({ error: "rate_limiter_unavailable" });
  }

  it("serves while Redis answers", async () => {
    expect((await get()).status).toBe(200);
  });

  it("answers 503 rate_limiter_unavailable with Retry-After while Redis is stopped, counted and logged once each", async () => {
    counted.length = 0;
    lines.length = 0;
    await redisServer.stop();
    await eventually(() => Promise.resolve(redis.status !== "ready"), "the client to see the connection gone");
    for (let i = 0; i < 5; i++) await expectUnavailable();
    expect(counted).toEqual(["redis", "redis", "redis", "redis", "redis"]);
    expect(lines.filter((line) => line.msg === "redis unavailable")).toHaveLength(5);
    expect(lines[0]).toMatchObject({ level: 40, upstream: "redis", code: "rate_limiter_unavailable" });
    expect(lines[0]).not.toHaveProperty("service");
  });

  it("serves again once Redis is back on its address, with the same client", async () => {
    redisServer = await startRedis({ port: redisServer.port });
    await eventually(async () => (await get()).status === 200, "requests to succeed again");
    expect((await get()).status).toBe(200);
  });

  it("answers 503 when Redis hangs (connection open, no answer): the command has a deadline", async () => {
    redisServer.pause();
    try {
      await expectUnavailable();
    } finally {
      redisServer.resume();
    }
    await eventually(async () => (await get()).status === 200, "requests to succeed after the pause");
  });
});

describe("the gateway's Redis client settings", () => {
  it("queues nothing while disconnected, re-sends nothing, bounds every command and reconnects within a second", () => {
    expect(GATEWAY_REDIS_OPTIONS).toMatchObject({
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      enableAutoPipelining: true,
    });
    expect(GATEWAY_REDIS_OPTIONS.commandTimeout).toBeGreaterThan(0);
    expect(GATEWAY_REDIS_OPTIONS.connectTimeout).toBeGreaterThan(0);
    for (const attempt of [1, 5, 50, 5000])
      expect(GATEWAY_REDIS_OPTIONS.retryStrategy(attempt)).toBeLessThanOrEqual(1000);
  });

  it.each([
    ["a dropped connection", new Error("Connection is closed."), true],
    ["a command past its deadline", new Error("Command timed out"), true],
    ["a server still loading", Object.assign(new Error("LOADING Redis is loading"), { name: "ReplyError" }), true],
    ["a busy script", Object.assign(new Error("BUSY Redis is busy running a script"), { name: "ReplyError" }), true],
    ["a script error", Object.assign(new Error("ERR user_script:1: oops"), { name: "ReplyError" }), false],
    ["keys in different slots", Object.assign(new Error("CROSSSLOT Keys in request"), { name: "ReplyError" }), false],
  ])("maps %s (%s) to rate_limiter_unavailable: %s", (_what, error, unavailable) => {
    const mapped = redisFailure(error);
    if (unavailable) expect(mapped).toMatchObject({ code: "rate_limiter_unavailable" });
    else expect(mapped).toBe(error);
  });
});
