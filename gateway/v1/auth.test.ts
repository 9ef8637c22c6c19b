// Scope enforcement of the /v1 authentication middleware against a real wallet (docs/openapi.yaml): any scope
// reads; TRADE or MANAGE_ORDERS trades; only MANAGE_ORDERS cancels and amends. Denials still carry RateLimit
// headers.
// A request whose rate-limit slot frees within the limiter's max delay is held until then, then served.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import express from "express";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../kernel/log.js";
import { loadWalletSettings } from "../../wallet/config.js";
import { startWallet, type RunningWallet } from "../../wallet/main.js";
import { createClients, type Clients } from "../clients.js";
import { untraced } from "../origin.js";
import { errorResponder } from "../http/errors.js";
import { requestId } from "../http/request.js";
import { MemoryRateLimiter } from "../ratelimit/index.js";
import { authenticate, holdFor } from "./auth.js";
import { AuthFailureLimiter } from "./auth-failures.js";

const SCOPES = ["READ_ONLY", "TRADE", "MANAGE_ORDERS"] as const;

describe("authenticate(scope)", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "fts-auth-"));
  const log = createLogger("test", "silent");
  let wallet: RunningWallet;
  let clients: Clients;
  let server: http.Server;
  let base = "";
  const keys = new Map<string, { key: string; secret: string }>();
  const charged: number[] = [];

  beforeAll(async () => {
    wallet = await startWallet(
      loadWalletSettings({ DATA_DIR: dataDir, WALLET_GRPC_PORT: "0", WALLET_METRICS_PORT: "0", LOG_LEVEL: "silent" }),
      log,
    );
    clients = createClients(`127.0.0.1:${wallet.grpcPort}`, ["127.0.0.1:9"], undefined);
    for (const scope of SCOPES) {
      const created = await clients.wallet.createApiKey(
        { user_id: "scopes", label: scope, permissions: [scope], ip_whitelist: [] },
        untraced("test"),
      );
      keys.set(scope, { key: created.key, secret: created.secret });
    }
    const deps = { clients, limiter: new MemoryRateLimiter({ limit: 1200, windowMs: 60_000 }), windowMs: 60_000 };
    const app = express();
    app.use(requestId());
    app.get("/read", authenticate(deps, "READ_ONLY"), (_req, res) => {
      res.json({ ok: true });
    });
    app.post("/trade", authenticate(deps, "TRADE"), (_req, res) => {
      res.json({ ok: true });
    });
    app.delete("/manage", authenticate(deps, "MANAGE_ORDERS"), (_req, res) => {
      res.json({ ok: true });
    });
    // A request that counts as `n` (as a batch counts its orders), on a limiter that records what it is charged.
    const memory = new MemoryRateLimiter({ limit: 1200, windowMs: 60_000 });
    const recording = {
      consume: (keyId: string, units?: number) => {
        charged.push(units ?? 1);
        return memory.consume(keyId, units);
      },
      refund: memory.refund.bind(memory),
      markRevoked: (keyId: string) => memory.markRevoked(keyId),
      isMarkedRevoked: (keyId: string) => memory.isMarkedRevoked(keyId),
      close: () => memory.close(),
    };
    const cost = { body: express.json(), units: (body: unknown) => (body as { n?: number }).n ?? 1 };
    app.post("/costly", authenticate({ ...deps, limiter: recording }, "TRADE", cost), (req, res) => {
      res.json({ n: (req.body as { n: number }).n });
    });
    app.use(errorResponder(log));
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  });

  afterAll(async () => {
    server.close();
    clients.close();
    await wallet.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each([
    ["READ_ONLY", "GET", "/read", 200],
    ["READ_ONLY", "POST", "/trade", 403],
    ["READ_ONLY", "DELETE", "/manage", 403],
    ["TRADE", "GET", "/read", 200],
    ["TRADE", "POST", "/trade", 200],
    ["TRADE", "DELETE", "/manage", 403],
    ["MANAGE_ORDERS", "GET", "/read", 200],
    ["MANAGE_ORDERS", "POST", "/trade", 200],
    ["MANAGE_ORDERS", "DELETE", "/manage", 200],
  ] as const)("a %s key calling %s %s gets %i", async (scope, method, route, status) => {
    const key = keys.get(scope);
    if (key === undefined) throw new Error("key missing");
    const response = await fetch(`${base}${route}`, {
      method,
      headers: { "x-api-key": key.key, "x-api-secret": key.secret },
    });
    expect(response.status).toBe(status);
    if (status === 403) {
      const required = route === "/trade" ? "TRADE" : "MANAGE_ORDERS";
      expect(await response.json()).toMatchObject({ error: "permission_denied", required_scope: required });
    }
    expect(response.headers.get("ratelimit-policy")).toBe("1200;w=60");
    expect(response.headers.get("ratelimit")).toMatch(/^limit=1200, remaining=\d+, reset=\d+$/);
  });
  describe("holding a request for a slot that frees soon", () => {
    let now = 1_000_000;
    const t0 = now;
    const holds: number[] = [];
    const releases: (() => void)[] = [];
    const decisions: string[] = [];
    /** The limiter's clock when the route handler ran, per request. */
    const served: number[] = [];
    let heldServer: http.Server;
    let heldBase = "";

    beforeAll(async () => {
      const limiter = new MemoryRateLimiter({
        limit: 2,
        windowMs: 1000,
        maxDelayMs: 100,
        now: () => now,
        sweepIntervalMs: 0,
      });
      const deps = {
        clients,
        limiter,
        windowMs: 1000,
        onDecision: (d: string) => decisions.push(d),
        hold: (ms: number) =>
          new Promise<void>((resolve) => {
            holds.push(ms);
            releases.push(resolve);
          }),
      };
      const app = express();
      app.use(requestId());
      app.get("/held", authenticate(deps, "READ_ONLY"), (_req, res) => {
        served.push(now);
        res.json({ ok: true });
      });
      app.use(errorResponder(log));
      heldServer = http.createServer(app);
      await new Promise<void>((resolve) => heldServer.listen(0, "127.0.0.1", resolve));
      const address = heldServer.address();
      heldBase = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
    });

    afterAll(() => {
      heldServer.close();
    });

    it("answers after the hold, not 429, with the RateLimit headers as of the reserved slot", async () => {
      const key = keys.get("READ_ONLY");
      if (key === undefined) throw new Error("key missing");
      const get = () => fetch(`${heldBase}/held`, { headers: { "x-api-key": key.key, "x-api-secret": key.secret } });
      for (let i = 0; i < 2; i++) expect((await get()).status).toBe(200);
      expect(holds).toEqual([]);

      // 50 ms before the two slots free: two requests are held for them, the next one is refused.
      now = t0 + 950;
      const first = get();
      const second = get();
      await vi.waitFor(() => {
        expect(holds).toEqual([50, 50]);
      });
      const refused = await get();
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({ error: "rate_limited", retry_after_ms: 1050 });
      expect(refused.headers.get("retry-after")).toBe("2");
      expect(served).toEqual([t0, t0]);

      now = t0 + 1000;
      for (const release of releases) release();
      const answers = await Promise.all([first, second]);
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      expect(served).toEqual([t0, t0, t0 + 1000, t0 + 1000]);
      for (const answer of answers) {
        expect(answer.headers.get("ratelimit-policy")).toBe("2;w=1");
        expect(answer.headers.get("retry-after")).toBeNull();
      }
      expect(answers.map((r) => r.headers.get("ratelimit")).sort()).toEqual([
        "limit=2, remaining=0, reset=1",
        "limit=2, remaining=1, reset=1",
      ]);
      expect(decisions).toEqual(["allowed", "allowed", "held", "held", "limited"]);
    });
  });

  it("charges a request that counts as several its units, read from its body once key, IP and scope passed", async () => {
    const post = (scope: (typeof SCOPES)[number], body: string) => {
      const key = keys.get(scope);
      if (key === undefined) throw new Error("key missing");
      return fetch(`${base}/costly`, {
        method: "POST",
        headers: { "x-api-key": key.key, "x-api-secret": key.secret, "content-type": "application/json" },
        body,
      });
    };
    charged.length = 0;
    const five = await post("TRADE", JSON.stringify({ n: 5 }));
    expect(five.status).toBe(200);
    expect(await five.json()).toEqual({ n: 5 });
    expect(five.headers.get("ratelimit")).toMatch(/^limit=1200, remaining=1195,/);
    // Refused 403 (no TRADE): one request, its body not counted.
    expect((await post("READ_ONLY", JSON.stringify({ n: 5 }))).status).toBe(403);
    // A body that cannot be read: one request, then the 400.
    const broken = await post("TRADE", "{");
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: "invalid_payload" });
    expect(charged).toEqual([5, 1, 1]);
  });
});

describe("authenticate: a held request, and failed authentications per address", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "fts-auth-held-"));
  const log = createLogger("test", "silent");
  let wallet: RunningWallet;
  let clients: Clients;
  let server: http.Server;
  let base = "";
  let now = 5_000_000;
  const releases: (() => void)[] = [];
  let limiter: MemoryRateLimiter;
  const walletAsked: string[] = [];

  beforeAll(async () => {
    wallet = await startWallet(
      loadWalletSettings({ DATA_DIR: dataDir, WALLET_GRPC_PORT: "0", WALLET_METRICS_PORT: "0", LOG_LEVEL: "silent" }),
      log,
    );
    clients = createClients(`127.0.0.1:${wallet.grpcPort}`, ["127.0.0.1:9"], undefined);
    limiter = new MemoryRateLimiter({ limit: 1, windowMs: 1000, maxDelayMs: 100, now: () => now, sweepIntervalMs: 0 });
    const deps = {
      clients,
      limiter,
      windowMs: 1000,
      onValidation: (source: string) => walletAsked.push(source),
      hold: () =>
        new Promise<void>((resolve) => {
          releases.push(resolve);
        }),
      failures: new AuthFailureLimiter({ limit: 3, windowMs: 60_000, maxAddresses: 100 }),
    };
    const app = express();
    // The client address from X-Forwarded-For, as behind a trusted proxy (TRUSTED_PROXIES).
    app.set("trust proxy", true);
    app.use(requestId());
    app.get("/read", authenticate(deps, "READ_ONLY"), (_req, res) => {
      res.json({ ok: true });
    });
    app.use(errorResponder(log));
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  });

  afterAll(async () => {
    server.close();
    clients.close();
    await wallet.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const get = (key: { key: string; secret: string }, from = "192.0.2.1") =>
    fetch(`${base}/read`, { headers: { "x-api-key": key.key, "x-api-secret": key.secret, "x-forwarded-for": from } });

  /** A fresh key whose only slot of the window is spent, so its next request is held. */
  async function keyAboutToBeHeld(user: string): Promise<{ key: string; secret: string; id: string }> {
    const created = await clients.wallet.createApiKey(
      { user_id: user, label: "held", permissions: ["READ_ONLY"], ip_whitelist: [] },
      untraced("test"),
    );
    const key = { key: created.key, secret: created.secret, id: created.api_key?.id ?? "" };
    now += 10_000;
    expect((await get(key)).status).toBe(200);
    now += 950;
    return key;
  }

  it("refuses a held request whose key was revoked at the wallet while it waited", async () => {
    const key = await keyAboutToBeHeld("held-revoked");
    const held = get(key);
    await vi.waitFor(() => {
      expect(releases).toHaveLength(1);
    });
    await clients.wallet.revokeApiKey("held-revoked", key.id, untraced("test"));
    now += 50;
    releases.shift()?.();
    const answer = await held;
    expect(answer.status).toBe(401);
    expect(await answer.json()).toEqual({ error: "unauthorized" });
    expect(answer.headers.get("ratelimit")).toBeNull();
  });

  it("refuses a held request whose key the limiter marked revoked while it waited", async () => {
    const key = await keyAboutToBeHeld("held-marked");
    const held = get(key);
    await vi.waitFor(() => {
      expect(releases).toHaveLength(1);
    });
    await limiter.markRevoked(key.id);
    now += 50;
    releases.shift()?.();
    expect((await held).status).toBe(401);
  });

  it("still serves a held request whose key is intact", async () => {
    const key = await keyAboutToBeHeld("held-intact");
    const held = get(key);
    await vi.waitFor(() => {
      expect(releases).toHaveLength(1);
    });
    now += 50;
    releases.shift()?.();
    expect((await held).status).toBe(200);
  });

  it("answers 429 with Retry-After to an address after 3 failures, without asking the wallet; others unaffected", async () => {
    const random = () => ({
      key: `svc_ak_${randomBytes(24).toString("hex")}`,
      secret: `svc_sk_${randomBytes(24).toString("hex")}`,
    });
    const attacker = "198.51.100.7";
    for (let i = 0; i < 3; i++) expect((await get(random(), attacker)).status).toBe(401);
    const asked = walletAsked.length;
    for (let i = 0; i < 5; i++) {
      const refused = await get(random(), attacker);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      const body = (await refused.json()) as { error: string; retry_after_ms: number };
      expect(body.error).toBe("rate_limited");
      expect(body.retry_after_ms).toBeGreaterThan(0);
    }
    expect(walletAsked.length).toBe(asked);
    // Another address: its own failures and successes as usual.
    expect((await get(random(), "198.51.100.8")).status).toBe(401);
    const key = await keyAboutToBeHeld("other-address");
    now += 10_000;
    expect((await get(key, "198.51.100.8")).status).toBe(200);
    // A key that has authenticated on this gateway is still judged from the blocked address (a shared NAT).
    now += 10_000;
    expect((await get(key, attacker)).status).toBe(200);
    expect((await get(random(), attacker)).status).toBe(429);
  });
});

describe("holdFor", () => {
  it("never resumes before the delay has passed on the monotonic clock, though a timer may fire early", async () => {
    for (let i = 0; i < 200; i++) {
      // A busy moment of varying length first, so the timer starts from a stale event-loop time.
      const busy = performance.now() + (i % 10) / 10;
      while (performance.now() < busy);
      const start = performance.now();
      await holdFor(2);
      expect(performance.now() - start).toBeGreaterThanOrEqual(2);
    }
  });
});
