// A request charged to its key and answered 503 gives its units back (docs/openapi.yaml, rate limits): its retry
// is served, not refused 429. Any other answer keeps the charge (200, 400, 500), a 429 stays a 429, and a client
// that hangs up before its 503 is sent keeps the charge too. A fake wallet accepts every key as its own key id; the
// routes stand in for an engine that answers, fails or does not answer. Run on the in-process limiter and on the
// Redis one (a throwaway redis-server; fails, never skips, without one), whose refund is asynchronous. A refund
// that fails leaves the charge and nothing unhandled.
import http from "node:http";
import express from "express";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ServiceError } from "../../kernel/errors.js";
import type { Validation } from "../../kernel/key-cache.js";
import { createLogger } from "../../kernel/log.js";
import type { Clients } from "../clients.js";
import { errorResponder } from "../http/errors.js";
import { requestId } from "../http/request.js";
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from "../ratelimit/index.js";
import { startRedis, type RedisServer } from "../../test/harness/redis.js";
import { authenticate } from "./auth.js";

const LIMIT = 3;
const OPTIONS = { limit: LIMIT, windowMs: 60_000, maxDelayMs: 0 };

let redisServer: RedisServer | undefined;
let redis: Redis | undefined;

/** Limiters on a clock that stands still: nothing leaves the window during a test. */
const LIMITERS: [string, () => Promise<RateLimiter>][] = [
  ["in process", () => Promise.resolve(new MemoryRateLimiter({ ...OPTIONS, now: () => 1_000_000 }))],
  [
    "in Redis",
    async () => {
      redisServer = await startRedis();
      redis = new Redis(redisServer.url, { enableAutoPipelining: true, maxRetriesPerRequest: 1 });
      return new RedisRateLimiter({ ...OPTIONS, redis, clockUs: () => 1_800_000_000_000_000 });
    },
  ],
];

afterAll(async () => {
  await redis?.quit();
  await redisServer?.stop();
});

describe.each(LIMITERS)("authenticate, limiter %s: a charged request answered 503 gives its units back", (_, make) => {
  let server: http.Server;
  let base = "";
  const decisions: string[] = [];
  /** Requests whose answer is done ('close', after every 'finish' listener), in order. */
  let done = 0;
  let releaseSlow: (() => void) | undefined;
  let slowArrived = false;
  /** Set once the error responder has written the slow request's 503 (to a closed connection). */
  let slowAnswered = false;
  let limiter: RateLimiter;

  beforeAll(async () => {
    limiter = await make();
    const wallet = {
      validateApiKey: ({ key }: { key: string }): Promise<Validation> =>
        Promise.resolve({
          valid: true,
          code: "",
          user_id: "u1",
          key_id: key,
          permissions: ["TRADE"],
          expires_at_ms: 0,
        }),
    };
    const deps = {
      clients: { wallet } as unknown as Clients,
      limiter,
      windowMs: 60_000,
      onDecision: (d: string) => decisions.push(d),
    };
    const app = express();
    app.use(requestId());
    app.use((_req, res, next) => {
      res.once("close", () => done++);
      next();
    });
    app.get("/ok", authenticate(deps, "READ_ONLY"), (_req, res) => {
      res.json({ ok: true });
    });
    app.get("/fail/:code", authenticate(deps, "READ_ONLY"), (req) => {
      const code = req.params.code;
      if (code === "invalid") throw ServiceError.invalid([{ path: "", message: "bad" }]);
      throw new ServiceError(code as "engine_unavailable");
    });
    app.get("/slow", authenticate(deps, "READ_ONLY"), async () => {
      slowArrived = true;
      await new Promise<void>((resolve) => (releaseSlow = resolve));
      throw new ServiceError("engine_unavailable");
    });
    const cost = { body: express.json(), units: (body: unknown) => (body as { n: number }).n };
    app.post("/batch", authenticate(deps, "TRADE", cost), () => {
      throw new ServiceError("engine_unavailable");
    });
    const responder = errorResponder(createLogger("test", "silent"));
    app.use((error: unknown, req: express.Request, res: express.Response, next: express.NextFunction) => {
      responder(error, req, res, next);
      if (req.path === "/slow") slowAnswered = true;
    });
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await limiter.close();
  });

  /** One request of `key`; resolves once the server is done with it, refund included. */
  async function call(key: string, route: string, init: RequestInit = {}): Promise<Response> {
    const before = done;
    const response = await fetch(`${base}${route}`, {
      ...init,
      headers: { "x-api-key": key, "x-api-secret": "s", "content-type": "application/json" },
    });
    await response.arrayBuffer();
    await vi.waitFor(() => {
      expect(done).toBeGreaterThan(before);
    });
    return response;
  }

  /** Statuses of `n` more plain requests of `key`. */
  async function spend(key: string, n: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push((await call(key, "/ok")).status);
    return statuses;
  }

  it("lets a key answered 503 engine_unavailable more times than its limit still make limit requests", async () => {
    decisions.length = 0;
    for (let i = 0; i < 2 * LIMIT; i++) {
      const response = await call("engine-down", "/fail/engine_unavailable");
      expect(response.status).toBe(503);
    }
    // The Redis limiter's refund resolves after the answer is done; the next request's charge comes after it.
    await vi.waitFor(() => {
      expect(decisions.filter((d) => d === "refunded")).toHaveLength(2 * LIMIT);
    });
    expect(await spend("engine-down", LIMIT + 1)).toEqual([200, 200, 200, 429]);
  });

  it.each(["wallet_unavailable", "rate_limiter_unavailable"])("gives back the unit of a 503 %s", async (code) => {
    for (let i = 0; i < LIMIT; i++) expect((await call(code, `/fail/${code}`)).status).toBe(503);
    expect(await spend(code, LIMIT + 1)).toEqual([200, 200, 200, 429]);
  });

  it("keeps the charge of a 200, a 400 and a 500, and a 429 stays a 429", async () => {
    decisions.length = 0;
    expect((await call("kept", "/ok")).status).toBe(200);
    expect((await call("kept", "/fail/invalid")).status).toBe(400);
    expect((await call("kept", "/fail/engine_error")).status).toBe(500);
    expect((await call("kept", "/fail/engine_unavailable")).status).toBe(429);
    expect(await spend("kept", 1)).toEqual([429]);
    expect(decisions).not.toContain("refunded");
  });

  it("gives back every unit of a batch answered 503", async () => {
    const response = await call("batch", "/batch", { method: "POST", body: JSON.stringify({ n: LIMIT }) });
    expect(response.status).toBe(503);
    expect(response.headers.get("ratelimit")).toMatch(/^limit=3, remaining=0, /);
    expect(await spend("batch", LIMIT + 1)).toEqual([200, 200, 200, 429]);
  });

  it("keeps the charge of a request whose client hung up before its 503 was sent", async () => {
    decisions.length = 0;
    const before = done;
    const aborted = new AbortController();
    const request = fetch(`${base}/slow`, {
      headers: { "x-api-key": "gone", "x-api-secret": "s" },
      signal: aborted.signal,
    }).catch(() => "aborted");
    await vi.waitFor(() => {
      expect(slowArrived).toBe(true);
    });
    aborted.abort();
    expect(await request).toBe("aborted");
    await vi.waitFor(() => {
      expect(done).toBeGreaterThan(before);
    });
    releaseSlow?.();
    await vi.waitFor(() => {
      expect(slowAnswered).toBe(true);
    });
    // The 503 goes to a closed connection: no 'finish', no refund.
    expect(await spend("gone", LIMIT)).toEqual([200, 200, 429]);
    expect(decisions).not.toContain("refunded");
  });
});

describe("authenticate: a refund that fails", () => {
  it("leaves the charge and the 503 as answered, with nothing unhandled", async () => {
    const memory = new MemoryRateLimiter({ ...OPTIONS, now: () => 1_000_000 });
    const tried: string[] = [];
    const limiter: RateLimiter = {
      consume: (keyId, units) => memory.consume(keyId, units),
      refund: (grant) => {
        tried.push(grant.keyId);
        return Promise.reject(new ServiceError("rate_limiter_unavailable"));
      },
      markRevoked: (keyId) => memory.markRevoked(keyId),
      isMarkedRevoked: (keyId) => memory.isMarkedRevoked(keyId),
      close: () => memory.close(),
    };
    const wallet = {
      validateApiKey: (): Promise<Validation> =>
        Promise.resolve({ valid: true, code: "", user_id: "u1", key_id: "k", permissions: [], expires_at_ms: 0 }),
    };
    const app = express();
    app.get("/", authenticate({ clients: { wallet } as unknown as Clients, limiter, windowMs: 60_000 }, ""), () => {
      throw new ServiceError("engine_unavailable");
    });
    app.use(errorResponder(createLogger("test", "silent")));
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/`;
    try {
      const response = await fetch(url, { headers: { "x-api-key": "k", "x-api-secret": "s" } });
      expect(response.status).toBe(503);
      await vi.waitFor(() => {
        expect(tried).toEqual(["k"]);
      });
      expect((await memory.consume("k", LIMIT)).allowed).toBe(false);
      expect((await memory.consume("k", LIMIT - 1)).allowed).toBe(true);
    } finally {
      server.closeAllConnections();
      server.close();
      await memory.close();
    }
  });
});
