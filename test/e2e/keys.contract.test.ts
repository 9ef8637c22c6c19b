// Key management (docs/decisions.md, "Keys") end to end, beside keys.happy and keys.error: hashes at rest (read from
// PostgreSQL), the exact creation fields, secrets never shown again, concurrent revocations and creates, IPv6
// allow-lists.
import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { createKey, newKey, request, revoke } from "../harness/client.js";

const sha256 = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest();

describe("key management, contract details", () => {
  let stack: TestStack;
  let api: string;
  let pool: pg.Pool;

  beforeAll(async () => {
    stack = await stackOn("postgres");
    api = stack.gateways[0]?.api ?? "";
    pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
  });
  afterAll(async () => {
    await pool.end();
    await stack.stop();
  });

  it("stores the key and the secret only as SHA-256 hashes, and the webhook secret never in clear", async () => {
    const created = await createKey(api, "audit-hash", {
      label: "hashed",
      permissions: ["READ_ONLY"],
      webhookUrl: "https://hooks.example.com/audit",
    });
    expect(created.status).toBe(201);
    const key = String(created.body.key);
    const secret = String(created.body.secret);
    const webhookSecret = String(created.body.webhookSecret);
    const id = (created.body.apiKey as { id: string }).id;

    const { rows } = await pool.query<Record<string, unknown>>("SELECT * FROM api_keys WHERE id = $1", [id]);
    expect(rows).toHaveLength(1);
    const row = rows[0] ?? {};
    expect(Buffer.compare(row.key_hash as Buffer, sha256(key))).toBe(0);
    expect(Buffer.compare(row.secret_hash as Buffer, sha256(secret))).toBe(0);
    // No column, whatever its type, holds the raw key, the raw secret or the webhook secret (or its base64 body).
    const dump = JSON.stringify(row, (_k, v: unknown) =>
      Buffer.isBuffer(v) ? v.toString("latin1") + v.toString("hex") + v.toString("base64") : v,
    );
    for (const raw of [key, secret, key.slice(7), secret.slice(7), webhookSecret, webhookSecret.slice(6)]) {
      expect(dump).not.toContain(raw);
    }
  });

  it("answers the creation with exactly the contract's apiKey fields (no hash, no secret inside apiKey)", async () => {
    const created = await createKey(api, "audit-shape", {
      label: "shape",
      permissions: ["TRADE"],
      webhookUrl: "https://hooks.example.com/shape",
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(["apiKey", "key", "secret", "webhookSecret"]);
    expect(Object.keys(created.body.apiKey as object).sort()).toEqual(
      ["createdAt", "expiresAt", "id", "ipWhitelist", "keyPrefix", "label", "permissions", "webhookUrl"].sort(),
    );
  });

  it("never shows the webhook secret (or the secret) again when keys are listed", async () => {
    const created = await createKey(api, "audit-once", {
      label: "hook",
      permissions: ["READ_ONLY"],
      webhookUrl: "https://hooks.example.com/once",
    });
    expect(created.status).toBe(201);
    const listed = await request(`${api}/api/api-keys`, { headers: { "x-user-id": "audit-once" } });
    expect(listed.status).toBe(200);
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(String(created.body.webhookSecret));
    expect(text).not.toContain("whsec_");
    expect(text).not.toContain(String(created.body.secret));
    const [entry] = listed.body.apiKeys as Record<string, unknown>[];
    expect(entry).not.toHaveProperty("webhookSecret");
    expect(entry?.webhookUrl).toBe("https://hooks.example.com/once");
  });

  it("answers 401 unauthorized to an X-User-Id that is blank", async () => {
    const blank = await request(`${api}/api/api-keys`, { headers: { "x-user-id": "   " } });
    expect(blank.status).toBe(401);
    expect(blank.body).toEqual({ error: "unauthorized" });
  });

  it("revokes a key exactly once under concurrent DELETEs: one 200, the others 404 not_found", async () => {
    const key = await newKey(api, "audit-race");
    const results = await Promise.all(Array.from({ length: 8 }, () => revoke(api, "audit-race", key.id)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ error: "not_found" });
    }
  });

  it("frees exactly one slot per revocation under concurrency: 10 keys, 1 revoked, 20 parallel creates → 1 more", async () => {
    const user = "audit-full";
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await newKey(api, user)).id);
    expect((await revoke(api, user, ids[0] ?? "")).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 20 }, () => createKey(api, user)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body).toEqual({ error: "key_limit_reached", limit: 10 });
    }
    const listed = await request(`${api}/api/api-keys`, { headers: { "x-user-id": user } });
    expect(listed.body.apiKeys).toHaveLength(10);
  });

  it("matches IPv6 single addresses and IPv6 CIDR ranges of the allow-list (validate)", async () => {
    const key = await newKey(api, "audit-v6", {
      label: "v6",
      permissions: ["READ_ONLY"],
      ipWhitelist: ["2001:db8::1", "fd00::/8", "198.51.100.0/30"],
    });
    const validate = (ip: string) =>
      request(`${api}/api/api-keys/validate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ key: key.key, secret: key.secret, ip }),
      });
    for (const ip of ["2001:db8::1", "2001:DB8:0:0:0:0:0:1", "fd12:3456::9", "198.51.100.3", "::ffff:198.51.100.2"]) {
      expect((await validate(ip)).status, ip).toBe(200);
    }
    for (const ip of ["2001:db8::2", "fe80::1", "198.51.100.4", "::ffff:198.51.100.4"]) {
      const refused = await validate(ip);
      expect(refused.status, ip).toBe(403);
      expect(refused.body).toEqual({ error: "IP not whitelisted for this API key" });
    }
  });

  it("refuses a malformed IPv6 entry and an IPv6 prefix over 128 with 400 invalid_payload", async () => {
    for (const [entry, message] of [
      ["2001:db8:::1", "must be an IP address or CIDR range"],
      ["2001:db8::/129", "CIDR prefix length must be at most 128"],
    ] as const) {
      const response = await createKey(api, "audit-bad-v6", {
        label: "x",
        permissions: ["READ_ONLY"],
        ipWhitelist: [entry],
      });
      expect(response.status, entry).toBe(400);
      expect(response.body).toEqual({ error: "invalid_payload", issues: [{ path: "ipWhitelist.0", message }] });
    }
  });
});
