// Authentication on /v1 through the real processes (docs/decisions.md, "Authentication and limits"): credentials, IP
// allow-lists behind trusted proxies, expiry, revocation across replicas sharing Redis, and secrets never reaching a
// log line.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { createKey, flipLast, newKey, request, revoke, v1, type CreatedKey } from "../harness/client.js";

describe("/v1 authentication", () => {
  let stack: TestStack;
  let api: string;
  let base: string;
  const seen: string[] = [];

  beforeAll(async () => {
    stack = await stackOn("postgres", {
      env: { LOG_LEVEL: "trace" },
      gatewayEnv: { TRUSTED_PROXIES: "127.0.0.1" },
    });
    api = stack.gateways[0]?.api ?? "";
    base = stack.gateways[0]?.v1 ?? "";
  });
  afterAll(async () => {
    await stack.stop();
  });

  const remember = (key: CreatedKey): CreatedKey => {
    seen.push(key.key, key.secret);
    if (key.webhookSecret !== undefined) seen.push(key.webhookSecret);
    return key;
  };

  it("answers 401 unauthorized when either header is missing, empty or wrong", async () => {
    const key = remember(await newKey(api, "u-auth"));
    const cases: Record<string, string>[] = [
      {},
      { "x-api-key": key.key },
      { "x-api-secret": key.secret },
      { "x-api-key": key.key, "x-api-secret": "" },
      { "x-api-key": key.key, "x-api-secret": flipLast(key.secret) },
      { "x-api-key": flipLast(key.key), "x-api-secret": key.secret },
      { "x-api-key": "svc_ak_short", "x-api-secret": key.secret },
    ];
    for (const headers of cases) {
      const response = await v1(base, "/v1/tickers", undefined, { headers });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: "unauthorized" });
      expect(response.headers.get("ratelimit")).toBeNull();
    }
    expect((await v1(base, "/v1/tickers", key)).status).toBe(200);
  });

  it("authenticates unknown /v1 paths first, then answers 404", async () => {
    const key = remember(await newKey(api, "u-404"));
    expect((await v1(base, "/v1/nowhere", undefined)).status).toBe(401);
    const found = await v1(base, "/v1/nowhere", key);
    expect(found.status).toBe(404);
    expect(found.body).toEqual({ error: "not_found" });
    expect(found.headers.get("ratelimit-policy")).toBe("1200;w=60");
  });

  it("authenticates a path that is not valid percent-encoding first, then answers 400 (never 500)", async () => {
    const key = remember(await newKey(api, "u-pct"));
    const issue = {
      error: "invalid_payload",
      issues: [{ path: "", message: "the URL path is not valid percent-encoding" }],
    };
    for (const [method, path] of [
      ["GET", "/v1/account/%zz"],
      ["GET", "/v1/account/%E0%A4%A/summary"],
      ["DELETE", "/v1/order/%zz"],
      ["GET", "/v1/nowhere/%"],
    ] as const) {
      const anonymous = await v1(base, path, undefined, { method });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual({ error: "unauthorized" });
      const known = await v1(base, path, key, { method });
      expect(known.status).toBe(400);
      expect(known.body).toEqual(issue);
    }
    const revoked = await request(`${api}/api/api-keys/%zz`, { method: "DELETE", headers: { "x-user-id": "u-pct" } });
    expect(revoked.status).toBe(400);
    expect(revoked.body).toEqual(issue);
    // A valid escape still reaches the route: an unknown account is 404.
    expect((await v1(base, "/v1/account/%61bc", key)).status).toBe(404);
  });

  it("admits any active scope to GET endpoints", async () => {
    for (const scope of ["READ_ONLY", "TRADE", "MANAGE_ORDERS"]) {
      const key = remember(await newKey(api, `u-scope-${scope}`, { label: scope, permissions: [scope] }));
      expect((await v1(base, "/v1/plans", key)).status).toBe(200);
    }
  });

  it("applies a CIDR allow-list to the client address forwarded by a trusted proxy", async () => {
    const key = remember(
      await newKey(api, "u-ip", {
        label: "ip",
        permissions: ["READ_ONLY"],
        ipWhitelist: ["203.0.113.0/24", "2001:db8::/32"],
      }),
    );
    const from = (xff: string) => v1(base, "/v1/tickers", key, { headers: { "x-forwarded-for": xff } });
    expect((await from("203.0.113.7")).status).toBe(200);
    expect((await from("2001:db8::42")).status).toBe(200);
    const outside = await from("198.51.100.1");
    expect(outside.status).toBe(403);
    expect(outside.body).toEqual({ error: "IP not whitelisted for this API key" });
    expect(outside.headers.get("ratelimit")).toMatch(/^limit=1200, remaining=\d+, reset=\d+$/);
  });

  it("ignores addresses a client prepends to X-Forwarded-For (the rightmost untrusted hop counts)", async () => {
    const key = remember(
      await newKey(api, "u-spoof", { label: "ip", permissions: ["READ_ONLY"], ipWhitelist: ["203.0.113.0/24"] }),
    );
    const spoofed = await v1(base, "/v1/tickers", key, { headers: { "x-forwarded-for": "203.0.113.7, 198.51.100.1" } });
    expect(spoofed.status).toBe(403);
    expect(spoofed.body).toEqual({ error: "IP not whitelisted for this API key" });
  });

  it("matches the loopback peer when no proxy header is sent", async () => {
    const key = remember(
      await newKey(api, "u-peer", { label: "ip", permissions: ["READ_ONLY"], ipWhitelist: ["127.0.0.0/8"] }),
    );
    expect((await v1(base, "/v1/tickers", key)).status).toBe(200);
  });

  it("stops accepting a key once expiresAt passes, and no longer lists it", async () => {
    const expiresAt = new Date(Date.now() + 1_500).toISOString();
    const key = remember(await newKey(api, "u-exp", { label: "short", permissions: ["READ_ONLY"], expiresAt }));
    expect((await v1(base, "/v1/tickers", key)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_700));
    const after = await v1(base, "/v1/tickers", key);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: "unauthorized" });
    const listed = await request(`${api}/api/api-keys`, { headers: { "x-user-id": "u-exp" } });
    expect(listed.body.apiKeys).toEqual([]);
  });

  it("answers 400 to a JSON body nested 30,000 deep on every route that reads one, on /v1 and on /api (never 500)", async () => {
    const key = remember(
      await newKey(api, "u-deep", { label: "bot", permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"] }),
    );
    const account = "00000000-0000-4000-8000-000000000000";
    const deep = "[".repeat(30_000) + "]".repeat(30_000);
    const tooDeep = {
      error: "invalid_payload",
      issues: [{ path: "", message: "request body is nested too deeply (limit 64 levels)" }],
    };
    const json = { "content-type": "application/json" };
    const v1Routes = [
      ["POST", "/v1/account"],
      ["POST", "/v1/order"],
      ["POST", "/v1/order/test"],
      ["PATCH", `/v1/order/${account}`],
      ["POST", "/v1/position/close"],
      ["POST", `/v1/account/${account}/cancel-after`],
      ["DELETE", `/v1/account/${account}/orders`],
      ["POST", `/v1/account/${account}/flatten`],
      ["POST", "/v1/orders/batch"],
    ] as const;
    for (const [method, path] of v1Routes) {
      for (const body of [deep, `{"symbol":${deep}}`]) {
        const response = await v1(base, path, key, { method, headers: json, body });
        expect({ method, path, status: response.status, body: response.body }).toEqual({
          method,
          path,
          status: 400,
          body: tooDeep,
        });
      }
    }
    const apiCalls = [
      ["/api/api-keys", { ...json, "x-user-id": "u-deep" }],
      ["/api/api-keys/validate", json],
    ] as const;
    for (const [path, headers] of apiCalls) {
      for (const body of [deep, `{"label":${deep}}`]) {
        const response = await request(`${api}${path}`, { method: "POST", headers, body });
        expect({ path, status: response.status, body: response.body }).toEqual({ path, status: 400, body: tooDeep });
      }
    }
  });

  it("never writes a key, secret or webhook secret to any log line", async () => {
    const withHook = await createKey(api, "u-logs", {
      label: "hook",
      permissions: ["READ_ONLY"],
      webhookUrl: "https://hooks.example.com/x",
    });
    remember({
      id: "",
      key: String(withHook.body.key),
      secret: String(withHook.body.secret),
      webhookSecret: String(withHook.body.webhookSecret),
    });
    const key = remember(await newKey(api, "u-logs"));
    await v1(base, "/v1/tickers", key);
    await v1(base, "/v1/tickers", { key: key.key, secret: flipLast(key.secret) });
    await request(`${api}/api/api-keys/validate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key: key.key, secret: key.secret, ip: "127.0.0.1" }),
    });
    await revoke(api, "u-logs", key.id);
    await v1(base, "/v1/tickers", key);
    const output = stack.output();
    expect(output.length).toBeGreaterThan(0);
    expect(output).toContain('"level":"debug"');
    expect(seen.length).toBeGreaterThan(10);
    for (const value of seen) expect(output).not.toContain(value);
    expect(output).not.toMatch(/svc_sk_[0-9a-f]{8}/);
    expect(output).not.toMatch(/svc_ak_[0-9a-f]{48}/);
    expect(output).not.toContain("whsec_");
  });
});

describe("revocation across replicas sharing Redis", () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await stackOn("postgres", {
      redis: true,
      wallets: 2,
      gateways: 2,
      gatewayEnv: { TRUSTED_PROXIES: "127.0.0.1" },
    });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it("refuses a revoked key on the very next request through the other gateway and wallet", async () => {
    const [a, b] = stack.gateways;
    if (a === undefined || b === undefined) throw new Error("two gateways expected");
    for (let round = 0; round < 5; round++) {
      const key = await newKey(a.api, `u-rev-${round}`);
      // Warm both wallets' indexes and both gateways.
      expect((await v1(a.v1, "/v1/tickers", key)).status).toBe(200);
      expect((await v1(b.v1, "/v1/tickers", key)).status).toBe(200);
      expect((await revoke(a.api, `u-rev-${round}`, key.id)).status).toBe(200);
      const next = await v1(b.v1, "/v1/tickers", key);
      expect(next.status).toBe(401);
      expect(next.body).toEqual({ error: "unauthorized" });
      const direct = await request(`${b.api}/api/api-keys/validate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ key: key.key, secret: key.secret, ip: "127.0.0.1" }),
      });
      expect(direct.status).toBe(401);
    }
  });

  it("sees a key created on one replica from the other at once", async () => {
    const [a, b] = stack.gateways;
    if (a === undefined || b === undefined) throw new Error("two gateways expected");
    const key = await newKey(a.api, "u-new");
    expect((await v1(b.v1, "/v1/tickers", key)).status).toBe(200);
  });

  it("keeps the limit of 10 across replicas under concurrent creates", async () => {
    const [a, b] = stack.gateways;
    if (a === undefined || b === undefined) throw new Error("two gateways expected");
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => createKey(i % 2 === 0 ? a.api : b.api, "u-two-replicas")),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
  });

  it("counts failed authentications per IPv6 /64 across both gateways: its 31st try is 429 on either", async () => {
    const [a, b] = [stack.gateways[0]?.v1 ?? "", stack.gateways[1]?.v1 ?? ""];
    const random = () => ({
      key: `svc_ak_${randomBytes(24).toString("hex")}`,
      secret: `svc_sk_${randomBytes(24).toString("hex")}`,
    });
    const from = (address: string) => ({ headers: { "x-forwarded-for": address } });
    // AUTH_FAILURE_LIMIT (30) failures, from 10 addresses of one /64, half through each gateway.
    for (let i = 0; i < 30; i++) {
      const response = await v1(i % 2 === 0 ? a : b, "/v1/tickers", random(), from(`2001:db8:e2e:1::${i % 10}`));
      expect(response.status).toBe(401);
    }
    for (const base of [a, b]) {
      const refused = await v1(base, "/v1/tickers", random(), from("2001:db8:e2e:1:abcd::99"));
      expect(refused.status).toBe(429);
      expect(refused.body.error).toBe("rate_limited");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    // The next /64 over is another source, as is an IPv4 address.
    expect((await v1(a, "/v1/tickers", random(), from("2001:db8:e2e:2::1"))).status).toBe(401);
    expect((await v1(b, "/v1/tickers", random(), from("192.0.2.77"))).status).toBe(401);
  });
});
