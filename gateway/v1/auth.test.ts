// Scope enforcement of the /v1 authentication middleware against a real wallet (CONTRACT 2): any scope reads;
// TRADE or MANAGE_ORDERS trades; only MANAGE_ORDERS cancels and amends. Denials still carry RateLimit headers.
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../kernel/log.js";
import { loadWalletSettings } from "../../wallet/config.js";
import { startWallet, type RunningWallet } from "../../wallet/main.js";
import { createClients, type Clients } from "../clients.js";
import { errorResponder, requestId } from "../http/common.js";
import { MemoryRateLimiter } from "../ratelimit/index.js";
import { authenticate } from "./auth.js";

const SCOPES = ["READ_ONLY", "TRADE", "MANAGE_ORDERS"] as const;

describe("authenticate(scope)", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "fts-auth-"));
  const log = createLogger("test", "silent");
  let wallet: RunningWallet;
  let clients: Clients;
  let server: http.Server;
  let base = "";
  const keys = new Map<string, { key: string; secret: string }>();

  beforeAll(async () => {
    wallet = await startWallet(
      loadWalletSettings({ DATA_DIR: dataDir, WALLET_GRPC_PORT: "0", WALLET_METRICS_PORT: "0", LOG_LEVEL: "silent" }),
      log,
    );
    clients = createClients(`127.0.0.1:${wallet.grpcPort}`, ["127.0.0.1:9"], undefined);
    for (const scope of SCOPES) {
      const created = await clients.wallet.createApiKey(
        { user_id: "scopes", label: scope, permissions: [scope], ip_whitelist: [] },
        "test",
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
    if (status === 403) expect(await response.json()).toEqual({ error: "permission_denied" });
    expect(response.headers.get("ratelimit-policy")).toBe("1200;w=60");
    expect(response.headers.get("ratelimit")).toMatch(/^limit=1200, remaining=\d+, reset=\d+$/);
  });
});
