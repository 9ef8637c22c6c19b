// The admission gate in front of the real /v1 application: a shed request is answered 503 overloaded before
// authentication, the rate limiter or any gRPC call, and what it did not do is visible in the backends' counts.
import http from "node:http";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../kernel/log.js";
import { buildV1App, type AppOptions } from "../app.js";
import type { Clients } from "../clients.js";
import { MemoryRateLimiter, type RateLimiter } from "../ratelimit/index.js";
import { Admission } from "./admission.js";
import { admissionGate, reducesRisk } from "./admission-gate.js";

const VALID = {
  valid: true,
  code: "",
  user_id: "u1",
  key_id: "11111111-1111-4111-8111-111111111111",
  permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
  expires_at_ms: 0,
  ip_whitelist: [],
};

interface Calls {
  wallet: number;
  engine: number;
  charged: number;
}

/** Backends that count their calls; the engine answers once `release` is called. */
function stack(): { options: AppOptions; calls: Calls; release: () => void } {
  const calls: Calls = { wallet: 0, engine: 0, charged: 0 };
  const waiting: (() => void)[] = [];
  const wallet = {
    validateApiKey: () => {
      calls.wallet += 1;
      return Promise.resolve(VALID);
    },
  };
  const engine = {
    listTickers: () => {
      calls.engine += 1;
      return new Promise((resolve) =>
        waiting.push(() => {
          resolve({ data: [] });
        }),
      );
    },
  };
  const clients = { wallet, engine, close: () => undefined } as unknown as Clients;
  const memory = new MemoryRateLimiter({ limit: 1_000, windowMs: 60_000 });
  const limiter: RateLimiter = Object.assign(Object.create(memory) as RateLimiter, {
    consume: (keyId: string, units?: number) => {
      calls.charged += 1;
      return memory.consume(keyId, units);
    },
  });
  const options: AppOptions = {
    clients,
    auth: { clients, limiter, windowMs: 60_000 },
    registry: new Registry(),
    metricsEnabled: false,
    log: createLogger("test", "silent"),
    trustedProxies: [],
    adminToken: undefined,
    bodyLimitBytes: 65_536,
    ready: () => Promise.resolve(true),
    onRevoked: () => Promise.resolve(),
  };
  return {
    options,
    calls,
    release: () => {
      waiting.splice(0).forEach((go) => {
        go();
      });
    },
  };
}

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

async function listening(listener: http.RequestListener): Promise<string> {
  const server = http.createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
}

/** `limit` requests in flight (per key too) and no queue: every request beyond is shed at once. */
const noQueue = (limit: number): Admission =>
  new Admission({
    limit: { initial: limit, min: limit, max: limit },
    perKey: limit,
    maxQueue: 0,
    perKeyQueue: 0,
    queueTimeoutMs: 0,
  });

const HEADERS = { "x-api-key": "ft_live_key", "x-api-secret": "secret" };

describe("admission gate", () => {
  it("answers a shed request 503 overloaded before authentication, the limiter or any gRPC call", async () => {
    const { options, calls, release } = stack();
    const admission = noQueue(1);
    const sheds: string[] = [];
    const base = await listening(
      admissionGate(admission, buildV1App(options), {
        onShed: (reason) => sheds.push(reason),
        random: () => 0.5,
      }),
    );
    const first = fetch(`${base}/v1/tickers`, { headers: HEADERS });
    await expect.poll(() => calls.engine).toBe(1);
    const shed = await fetch(`${base}/v1/tickers`, { headers: { ...HEADERS, "x-request-id": "shed-1" } });
    expect(shed.status).toBe(503);
    expect(shed.headers.get("retry-after")).toBe("2");
    expect(shed.headers.get("x-request-id")).toBe("shed-1");
    expect(shed.headers.get("ratelimit")).toBeNull();
    expect(await shed.json()).toEqual({ error: "overloaded", retry_after_ms: 2_000 });
    expect(sheds).toEqual(["queue_full"]);
    // Only the first request was authenticated, charged and sent to the engine.
    expect(calls).toEqual({ wallet: 1, engine: 1, charged: 1 });
    release();
    expect((await first).status).toBe(200);
    // Its slot is free again: the next request is served.
    const next = fetch(`${base}/v1/tickers`, { headers: HEADERS });
    await expect.poll(() => calls.engine).toBe(2);
    release();
    expect((await next).status).toBe(200);
    expect(admission.inFlight).toBe(0);
  });

  it("lets health, readiness and metrics through whatever the load", async () => {
    const { options, release } = stack();
    const admission = noQueue(1);
    const base = await listening(admissionGate(admission, buildV1App(options)));
    const held = fetch(`${base}/v1/tickers`, { headers: HEADERS });
    await expect.poll(() => admission.inFlight).toBe(1);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/v1/tickers`, { headers: HEADERS })).status).toBe(503);
    release();
    expect((await held).status).toBe(200);
  });

  it("frees the slot of a client that hangs up", async () => {
    const { options, calls } = stack();
    const admission = noQueue(4);
    const base = await listening(admissionGate(admission, buildV1App(options)));
    const abort = new AbortController();
    const cut = fetch(`${base}/v1/tickers`, { headers: HEADERS, signal: abort.signal });
    await expect.poll(() => calls.engine).toBe(1);
    abort.abort();
    await expect(cut).rejects.toThrow();
    await expect.poll(() => admission.inFlight).toBe(0);
  });
});

describe("reducesRisk", () => {
  it("names cancels, cancel-all, flatten and closes, and nothing else", () => {
    expect(reducesRisk("DELETE", "/v1/order/abc")).toBe(true);
    expect(reducesRisk("DELETE", "/v1/account/acc/orders")).toBe(true);
    expect(reducesRisk("DELETE", "/v1/account/acc/orders?x=1")).toBe(true);
    expect(reducesRisk("POST", "/v1/account/acc/flatten")).toBe(true);
    expect(reducesRisk("POST", "/v1/position/close")).toBe(true);
    expect(reducesRisk("POST", "/v1/order")).toBe(false);
    expect(reducesRisk("PATCH", "/v1/order/abc")).toBe(false);
    expect(reducesRisk("GET", "/v1/account/acc/orders")).toBe(false);
    expect(reducesRisk("POST", "/v1/orders/batch")).toBe(false);
    expect(reducesRisk("DELETE", undefined)).toBe(false);
  });
});
