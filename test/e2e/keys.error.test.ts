// Refusals of the key-management surface (docs/openapi.yaml, docs/decisions.md "Keys"), once on PostgreSQL and once on
// PGlite.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, stackOn, type TestStack } from "../harness/backends.js";
import { createKey, newKey, request, revoke } from "../harness/client.js";

describe.each(BACKENDS)("key management refusals on %s", (backend) => {
  let stack: TestStack;
  let api: string;

  beforeAll(async () => {
    stack = await stackOn(backend);
    api = stack.gateways[0]?.api ?? "";
  });
  afterAll(async () => {
    await stack.stop();
  });

  it("answers 401 unauthorized without X-User-Id on every /api route", async () => {
    const responses = await Promise.all([
      request(`${api}/api/api-keys`),
      request(`${api}/api/api-keys`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ label: "x", permissions: ["READ_ONLY"] }),
      }),
      request(`${api}/api/api-keys/00000000-0000-4000-8000-000000000000`, { method: "DELETE" }),
      // Who asks comes before the path and the body: a malformed or unknown path, a body that is no JSON.
      request(`${api}/api/api-keys/%zz`, { method: "DELETE" }),
      request(`${api}/api/api-keys/00000000-0000-4000-8000-000000000000`),
      request(`${api}/api/nothing-here`),
      request(`${api}/api/api-keys`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" }),
    ]);
    for (const response of responses) {
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: "unauthorized" });
    }
  });

  it("refuses an 11th active key with 409 key_limit_reached and limit 10", async () => {
    for (let i = 0; i < 10; i++) expect((await createKey(api, "ivan")).status).toBe(201);
    const eleventh = await createKey(api, "ivan");
    expect(eleventh.status).toBe(409);
    expect(eleventh.body).toEqual({ error: "key_limit_reached", limit: 10 });
  });

  it("counts only active keys toward the 10: a revoked key and an expired key each free a slot", async () => {
    const user = "kate";
    const soon = new Date(Date.now() + 1_500).toISOString();
    const expiring = await createKey(api, user, { label: "bot", permissions: ["READ_ONLY"], expiresAt: soon });
    expect(expiring.status).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < 9; i++) {
      const created = await createKey(api, user);
      expect(created.status).toBe(201);
      ids.push((created.body.apiKey as { id: string }).id);
    }
    expect((await createKey(api, user)).status).toBe(409);
    // Revoked: its slot is free at once.
    expect((await revoke(api, user, ids[0] ?? "")).status).toBe(200);
    expect((await createKey(api, user)).status).toBe(201);
    expect((await createKey(api, user)).status).toBe(409);
    // Expired (never revoked): its slot is free once expiresAt has passed.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(soon) - Date.now()) + 100));
    expect((await createKey(api, user)).status).toBe(201);
    expect((await createKey(api, user)).status).toBe(409);
    // An expired key is no longer active: revoking it is 404 like any other operation on it.
    const expiredId = (expiring.body.apiKey as { id: string }).id;
    const revokedExpired = await revoke(api, user, expiredId);
    expect(revokedExpired.status).toBe(404);
    expect(revokedExpired.body).toEqual({ error: "not_found" });
  });

  it("leaves exactly 10 active keys after 50 concurrent creates for one user", async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => createKey(api, "judy")));
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    expect(results.filter((r) => r.status === 409)).toHaveLength(40);
    const listed = await request(`${api}/api/api-keys`, { headers: { "x-user-id": "judy" } });
    expect(listed.body.apiKeys).toHaveLength(10);
  });

  it.each([
    ["expiresAt in the past", { expiresAt: "2020-01-01T00:00:00Z" }, "expiresAt", "must be in the future"],
    [
      "expiresAt not ISO 8601",
      { expiresAt: "next tuesday" },
      "expiresAt",
      "must be an ISO 8601 date-time with a time zone",
    ],
    ["webhookUrl over http", { webhookUrl: "http://hooks.example.com" }, "webhookUrl", "must start with https://"],
    ["empty permissions", { permissions: [] }, "permissions", "at least one scope is required"],
    [
      "an unknown scope",
      { permissions: ["READ_ONLY", "ADMIN"] },
      "permissions.1",
      "unknown scope: use READ_ONLY, TRADE or MANAGE_ORDERS",
    ],
    [
      "a malformed IP",
      { ipWhitelist: ["10.0.0.1", "10.0.0.300"] },
      "ipWhitelist.1",
      "must be an IP address or CIDR range",
    ],
    [
      "a CIDR prefix too long",
      { ipWhitelist: ["10.0.0.0/33"] },
      "ipWhitelist.0",
      "CIDR prefix length must be at most 32",
    ],
    ["an empty label", { label: "  " }, "label", "label is required"],
  ])("answers 400 invalid_payload for %s", async (_name, patch, path, message) => {
    const response = await createKey(api, "ken", { label: "x", permissions: ["READ_ONLY"], ...patch });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: "invalid_payload", issues: [{ path, message }] });
  });

  it("lists every failed field at once", async () => {
    const response = await createKey(api, "ken", { label: 7, permissions: "TRADE", surprise: true });
    expect(response.status).toBe(400);
    const paths = (response.body.issues as { path: string }[]).map((i) => i.path).sort();
    expect(paths).toEqual(["label", "permissions", "surprise"]);
  });

  it("refuses a label with an unpaired surrogate with 400 rather than store it changed", async () => {
    // JSON.stringify escapes a lone surrogate as \ud800, as a client sending it would.
    const response = await request(`${api}/api/api-keys`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-user-id": "sam" },
      body: JSON.stringify({ label: "a\ud800b", permissions: ["READ_ONLY"] }),
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: "invalid_payload", issues: [{ path: "label" }] });
    const listed = await request(`${api}/api/api-keys`, { headers: { "x-user-id": "sam" } });
    expect(listed.body.apiKeys).toEqual([]);
  });

  it("refuses unknown JSON fields, a non-JSON body and a body over 64 KiB", async () => {
    const unknown = await createKey(api, "ken", { label: "x", permissions: ["READ_ONLY"], admin: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: "invalid_payload", issues: [{ path: "admin", message: "unknown field" }] });

    const notJson = await request(`${api}/api/api-keys`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-user-id": "ken" },
      body: "{label:",
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toBe("invalid_payload");

    const noContentType = await request(`${api}/api/api-keys`, {
      method: "POST",
      headers: { "x-user-id": "ken" },
      body: JSON.stringify({ label: "x", permissions: ["READ_ONLY"] }),
    });
    expect(noContentType.status).toBe(400);
    expect(noContentType.body.error).toBe("invalid_payload");

    const huge = await createKey(api, "ken", { label: "x".repeat(70_000), permissions: ["READ_ONLY"] });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toBe("invalid_payload");
  });

  it("answers 404 not_found for an unknown id, a key of another user and an already revoked key", async () => {
    const mine = await newKey(api, "leo");
    const unknown = await revoke(api, "leo", "00000000-0000-4000-8000-000000000000");
    const malformed = await revoke(api, "leo", "not-a-uuid");
    const foreign = await revoke(api, "mallory", mine.id);
    expect((await revoke(api, "leo", mine.id)).status).toBe(200);
    const again = await revoke(api, "leo", mine.id);
    for (const response of [unknown, malformed, foreign, again]) {
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: "not_found" });
    }
  });

  it("carries X-Request-Id on every response, echoing the caller's", async () => {
    const echoed = await request(`${api}/api/api-keys`, { headers: { "x-user-id": "nia", "x-request-id": "req-123" } });
    expect(echoed.headers.get("x-request-id")).toBe("req-123");
    const generated = await request(`${api}/nothing-here`);
    expect(generated.status).toBe(404);
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("WALLET_ADMIN_TOKEN", () => {
  let stack: TestStack;
  const token = "admin-token-0123456789abcdef";

  beforeAll(async () => {
    stack = await stackOn("pglite", { gatewayEnv: { WALLET_ADMIN_TOKEN: token } });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it("requires the bearer token on every /api request when set", async () => {
    const api = stack.gateways[0]?.api ?? "";
    const without = await createKey(api, "olga");
    expect(without.status).toBe(401);
    expect(without.body).toEqual({ error: "unauthorized" });
    const wrong = await createKey(api, "olga", undefined, { authorization: `Bearer ${token}x` });
    expect(wrong.status).toBe(401);
    const right = await createKey(api, "olga", undefined, { authorization: `Bearer ${token}` });
    expect(right.status).toBe(201);
    // The scheme name in any case (RFC 7235); the token itself exactly.
    for (const scheme of ["bearer", "BEARER"]) {
      expect((await createKey(api, "olga", undefined, { authorization: `${scheme} ${token}` })).status).toBe(201);
    }
    expect((await createKey(api, "olga", undefined, { authorization: `Bearer ${token.toUpperCase()}` })).status).toBe(
      401,
    );
    expect((await createKey(api, "olga", undefined, { authorization: `Basic ${token}` })).status).toBe(401);
    expect((await createKey(api, "olga", undefined, { authorization: token })).status).toBe(401);
  });
});
