// Key management through the real processes (docs/openapi.yaml, docs/decisions.md "Keys"), once on PostgreSQL and once
// on PGlite.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, stackOn, type TestStack } from "../harness/backends.js";
import { createKey, flipLast, newKey, request, revoke, v1 } from "../harness/client.js";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(BACKENDS)("key management on %s", (backend) => {
  let stack: TestStack;
  let api: string;
  let base: string;

  beforeAll(async () => {
    stack = await stackOn(backend);
    api = stack.gateways[0]?.api ?? "";
    base = stack.gateways[0]?.v1 ?? "";
  });
  afterAll(async () => {
    await stack.stop();
  });

  it("creates a key and shows the key and secret in the seed's formats, once", async () => {
    const created = await createKey(api, "alice", {
      label: "momentum bot",
      permissions: ["READ_ONLY", "TRADE"],
      ipWhitelist: ["10.0.0.0/8", "2001:db8::/32"],
      expiresAt: "2099-01-01T00:00:00Z",
    });
    expect(created.status).toBe(201);
    const apiKey = created.body.apiKey as Record<string, unknown>;
    expect(created.body.key).toMatch(/^svc_ak_[0-9a-f]{48}$/);
    expect(created.body.secret).toMatch(/^svc_sk_[0-9a-f]{48}$/);
    expect(apiKey.id).toMatch(UUID);
    expect(apiKey.keyPrefix).toBe(String(created.body.key).slice(0, 15));
    expect(apiKey).toMatchObject({
      label: "momentum bot",
      permissions: ["READ_ONLY", "TRADE"],
      ipWhitelist: ["10.0.0.0/8", "2001:db8::/32"],
      webhookUrl: null,
      expiresAt: "2099-01-01T00:00:00.000Z",
    });
    expect(apiKey.createdAt).toMatch(ISO_MS);
    expect(created.body).not.toHaveProperty("webhookSecret");
  });

  it("returns a webhookSecret only when a webhookUrl was given", async () => {
    const created = await createKey(api, "bob", {
      label: "hooks",
      permissions: ["READ_ONLY"],
      webhookUrl: "https://hooks.example.com/fts",
    });
    expect(created.status).toBe(201);
    expect(created.body.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(String(created.body.webhookSecret).slice(6), "base64")).toHaveLength(24);
    expect((created.body.apiKey as Record<string, unknown>).webhookUrl).toBe("https://hooks.example.com/fts");
  });

  it("lists only the caller's active keys, never a secret or a hash", async () => {
    const first = await newKey(api, "carol");
    const second = await newKey(api, "carol", { label: "second", permissions: ["MANAGE_ORDERS"] });
    await newKey(api, "dave");
    expect((await revoke(api, "carol", first.id)).status).toBe(200);

    const listed = await request(`${api}/api/api-keys`, { headers: { "x-user-id": "carol" } });
    expect(listed.status).toBe(200);
    const keys = listed.body.apiKeys as Record<string, unknown>[];
    expect(keys.map((k) => k.id)).toEqual([second.id]);
    expect(Object.keys(keys[0] ?? {}).sort()).toEqual(
      [
        "createdAt",
        "expiresAt",
        "id",
        "ipWhitelist",
        "keyPrefix",
        "label",
        "lastUsedAt",
        "permissions",
        "webhookUrl",
      ].sort(),
    );
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(second.secret);
    expect(text).not.toContain(second.key);
  });

  it("records lastUsedAt once the key is used", async () => {
    const key = await newKey(api, "erin");
    expect((await v1(base, "/v1/tickers", key)).status).toBe(200);
    const listed = await request(`${api}/api/api-keys`, { headers: { "x-user-id": "erin" } });
    const [entry] = listed.body.apiKeys as Record<string, unknown>[];
    expect(entry?.lastUsedAt).toMatch(ISO_MS);
  });

  it("revokes with 200 { id, revokedAt } and the key fails on the very next request", async () => {
    const key = await newKey(api, "frank");
    expect((await v1(base, "/v1/tickers", key)).status).toBe(200);
    const revoked = await revoke(api, "frank", key.id);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id: key.id, revokedAt: expect.stringMatching(ISO_MS) as unknown });
    const after = await v1(base, "/v1/tickers", key);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: "unauthorized" });
  });

  it("a revoked key no longer counts toward the limit of 10", async () => {
    const keys = [];
    for (let i = 0; i < 10; i++) keys.push(await newKey(api, "grace"));
    expect((await createKey(api, "grace")).status).toBe(409);
    await revoke(api, "grace", keys[0]?.id ?? "");
    expect((await createKey(api, "grace")).status).toBe(201);
  });

  it("validates a key over /api/api-keys/validate with the seed's bodies", async () => {
    const key = await newKey(api, "heidi", { label: "v", permissions: ["READ_ONLY"], ipWhitelist: ["127.0.0.1"] });
    const call = (body: Record<string, unknown>) =>
      request(`${api}/api/api-keys/validate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const ok = await call({ key: key.key, secret: key.secret, ip: "::ffff:127.0.0.1", permission: "READ_ONLY" });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ valid: true, userId: "heidi", keyId: key.id, permissions: ["READ_ONLY"] });
    const wrongSecret = await call({ key: key.key, secret: flipLast(key.secret), ip: "127.0.0.1" });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body).toEqual({ error: "unauthorized" });
    const wrongIp = await call({ key: key.key, secret: key.secret, ip: "127.0.0.2" });
    expect(wrongIp.status).toBe(403);
    expect(wrongIp.body).toEqual({ error: "IP not whitelisted for this API key" });
    const scope = await call({ key: key.key, secret: key.secret, ip: "127.0.0.1", permission: "TRADE" });
    expect(scope.status).toBe(403);
    expect(scope.body).toEqual({
      error: "permission_denied",
      required_scope: "TRADE",
      message: "this key lacks the TRADE scope (MANAGE_ORDERS also grants it)",
    });
    const badScope = await call({ key: key.key, secret: key.secret, ip: "127.0.0.1", permission: "ADMIN" });
    expect(badScope.status).toBe(400);
    expect(badScope.body).toEqual({
      error: "invalid_payload",
      issues: [{ path: "permission", message: "unknown scope" }],
    });
  });
});
