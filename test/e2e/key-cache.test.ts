// The gateway's key cache end to end: repeat requests are answered without asking the wallet, a revocation
// made at the wallet directly (an internal service, not through this gateway's /api) is refused on the very
// next request, and last_used_at keeps moving for requests the cache answered.
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, loadWalletProto, outgoingMetadata } from "../../kernel/grpc.js";
import type { WalletClient } from "../../proto/gen/wallet/v1/Wallet.js";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, request, v1, type CreatedKey } from "../harness/client.js";

async function cacheAnswers(api: string): Promise<number> {
  const response = await fetch(`${api}/metrics`);
  const text = await response.text();
  const match = /^gateway_key_validations_total\{[^}]*source="cache"[^}]*\} (\d+)/m.exec(text);
  return Number(match?.[1] ?? 0);
}

async function lastUsedAt(api: string, userId: string, id: string): Promise<string | undefined> {
  const listed = await request(`${api}/api/api-keys`, { headers: { "x-user-id": userId } });
  const keys = listed.body.apiKeys as { id: string; lastUsedAt?: string }[];
  return keys.find((k) => k.id === id)?.lastUsedAt;
}

describe("gateway key cache", () => {
  let stack: TestStack;
  let api: string;
  let base: string;
  let wallet: WalletClient;

  beforeAll(async () => {
    stack = await stackOn("pglite");
    const gateway = stack.gateways[0];
    const target = stack.walletGrpc[0];
    if (gateway === undefined || target === undefined) throw new Error("stack without gateway or wallet");
    api = gateway.api;
    base = gateway.v1;
    wallet = new (loadWalletProto().wallet.v1.Wallet)(target, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    wallet.close();
    await stack.stop();
  });

  it("answers repeat requests from the cache, with the same results as the wallet", async () => {
    const key = await newKey(api, "u-cache", { label: "bot", permissions: ["READ_ONLY"] });
    const before = await cacheAnswers(api);
    for (let i = 0; i < 5; i++) expect((await v1(base, "/v1/tickers", key)).status).toBe(200);
    // The first request asks the wallet; the rest are the cache's.
    expect((await cacheAnswers(api)) - before).toBeGreaterThanOrEqual(4);
    // Denials the cache can judge itself: a wrong secret, a scope the key lacks.
    const wrong = await v1(base, "/v1/tickers", { key: key.key, secret: `${key.secret.slice(0, -1)}x` });
    expect(wrong.status).toBe(401);
    const denied = await v1(base, "/v1/order", key, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ account_id: "a", symbol: "BTC-USD", side: "BUY", type: "MARKET", quantity: "1" }),
    });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: "permission_denied", required_scope: "TRADE" });
  });

  it("refuses a key revoked at the wallet directly on the very next request", async () => {
    for (let round = 0; round < 5; round++) {
      const userId = `u-direct-${round}`;
      const key: CreatedKey = await newKey(api, userId);
      expect((await v1(base, "/v1/tickers", key)).status).toBe(200);
      const cached = await cacheAnswers(api);
      expect((await v1(base, "/v1/tickers", key)).status).toBe(200);
      expect(await cacheAnswers(api)).toBe(cached + 1);

      await call(
        (req, metadata, options, cb) => wallet.RevokeApiKey(req, metadata, options, cb),
        { user_id: userId, id: key.id },
        outgoingMetadata(`revoke-${round}`, undefined),
      );
      const next = await v1(base, "/v1/tickers", key);
      expect(next.status).toBe(401);
      expect(next.body).toEqual({ error: "unauthorized" });
    }
  });

  it("refuses a key revoked by its id in upper case on the very next request, and answers the stored id", async () => {
    const userId = "u-upper";
    const key: CreatedKey = await newKey(api, userId);
    expect((await v1(base, "/v1/tickers", key)).status).toBe(200);
    const cached = await cacheAnswers(api);
    expect((await v1(base, "/v1/tickers", key)).status).toBe(200);
    expect(await cacheAnswers(api)).toBe(cached + 1);

    const revoked = await request(`${api}/api/api-keys/${key.id.toUpperCase()}`, {
      method: "DELETE",
      headers: { "x-user-id": userId },
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.id).toBe(key.id);
    const next = await v1(base, "/v1/tickers", key);
    expect(next.status).toBe(401);
    expect(next.body).toEqual({ error: "unauthorized" });
  });

  it("keeps last_used_at current for requests the cache answered", async () => {
    const key = await newKey(api, "u-last-used");
    expect((await v1(base, "/v1/tickers", key)).status).toBe(200);
    // Past the wallet's own record of the first use, so only the cache's report can explain a later one.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const cached = await cacheAnswers(api);
    const usedAt = Date.now();
    expect((await v1(base, "/v1/tickers", key)).status).toBe(200);
    expect(await cacheAnswers(api)).toBe(cached + 1);
    const deadline = Date.now() + 10_000;
    let seen: string | undefined;
    while (Date.now() < deadline) {
      seen = await lastUsedAt(api, "u-last-used", key.id);
      if (seen !== undefined && Date.parse(seen) >= usedAt) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(seen).toBeDefined();
    expect(Date.parse(seen ?? "")).toBeGreaterThanOrEqual(usedAt);
  });
});
