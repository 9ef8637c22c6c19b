// Authentication and limits (docs/decisions.md) end to end, beside auth.security and ratelimit: X-Forwarded-For ignored
// without TRUSTED_PROXIES and walked through a chain of trusted proxies, the RateLimit headers on a 404 and a 400, and
// the default limit (1,200 of a burst accepted, the rest 429 with Retry-After).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type JsonResponse } from "../harness/client.js";

describe("X-Forwarded-For without TRUSTED_PROXIES (the default)", () => {
  let stack: TestStack;
  let api = "";
  let base = "";

  beforeAll(async () => {
    stack = await stackOn("pglite");
    api = stack.gateways[0]?.api ?? "";
    base = stack.gateways[0]?.v1 ?? "";
  });
  afterAll(async () => {
    await stack.stop();
  });

  it("ignores X-Forwarded-For: the socket peer is the source address", async () => {
    const fenced = await newKey(api, "xff-none", {
      label: "fenced",
      permissions: ["READ_ONLY"],
      ipWhitelist: ["203.0.113.0/24"],
    });
    const spoofed = await v1(base, "/v1/tickers", fenced, { headers: { "x-forwarded-for": "203.0.113.7" } });
    expect(spoofed.status).toBe(403);
    expect(spoofed.body).toEqual({ error: "IP not whitelisted for this API key" });

    const loopback = await newKey(api, "xff-none", {
      label: "loopback",
      permissions: ["READ_ONLY"],
      ipWhitelist: ["127.0.0.1"],
    });
    const forwarded = await v1(base, "/v1/tickers", loopback, { headers: { "x-forwarded-for": "198.51.100.1" } });
    expect(forwarded.status).toBe(200);
  });

  it("carries the RateLimit headers on a 404 (another user's account) and a 400 (bad body) of an authenticated key", async () => {
    const key = await newKey(api, "hdr", { label: "all", permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"] });
    const checks: JsonResponse[] = [
      await v1(base, `/v1/account/${randomUUID()}`, key),
      await v1(base, "/v1/order", key, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ nonsense: true }),
      }),
      await v1(base, "/v1/order", key, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{not json",
      }),
    ];
    expect(checks.map((r) => r.status)).toEqual([404, 400, 400]);
    for (const r of checks) {
      expect(r.headers.get("ratelimit-policy")).toBe("1200;w=60");
      expect(r.headers.get("ratelimit")).toMatch(/^limit=1200, remaining=\d+, reset=\d+$/);
    }
  });

  it("accepts exactly 1,200 of a burst at the default settings and answers the rest 429 with Retry-After", async () => {
    const key = await newKey(api, "burst-default", { label: "b", permissions: ["READ_ONLY"] });
    const total = 1230;
    const responses: JsonResponse[] = [];
    // 40 connections at a time: a burst far faster than 20/s, without exhausting sockets.
    let next = 0;
    await Promise.all(
      Array.from({ length: 40 }, async () => {
        while (next < total) {
          next += 1;
          responses.push(await v1(base, "/v1/plans", key));
        }
      }),
    );
    const accepted = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(accepted).toHaveLength(1200);
    expect(limited).toHaveLength(total - 1200);
    for (const r of limited) {
      expect(r.body.error).toBe("rate_limited");
      const retryMs = Number(r.body.retry_after_ms);
      expect(retryMs).toBeGreaterThan(0);
      expect(retryMs).toBeLessThanOrEqual(60_000);
      expect(Number(r.headers.get("retry-after"))).toBe(Math.max(1, Math.ceil(retryMs / 1000)));
      expect(r.headers.get("ratelimit-policy")).toBe("1200;w=60");
      expect(r.headers.get("ratelimit")).toMatch(/^limit=1200, remaining=0, reset=\d+$/);
    }
  });
});

describe("X-Forwarded-For through a chain of trusted proxies (CIDR in TRUSTED_PROXIES)", () => {
  let stack: TestStack;
  let api = "";
  let base = "";

  beforeAll(async () => {
    stack = await stackOn("pglite", { gatewayEnv: { TRUSTED_PROXIES: "127.0.0.0/8,10.0.0.0/8" } });
    api = stack.gateways[0]?.api ?? "";
    base = stack.gateways[0]?.v1 ?? "";
  });
  afterAll(async () => {
    await stack.stop();
  });

  it("takes the rightmost address that is not a trusted proxy", async () => {
    const fenced = await newKey(api, "xff-chain", {
      label: "fenced",
      permissions: ["READ_ONLY"],
      ipWhitelist: ["203.0.113.0/24"],
    });
    const from = (xff: string) => v1(base, "/v1/tickers", fenced, { headers: { "x-forwarded-for": xff } });
    // client → 10.1.2.3 (trusted) → loopback (trusted): the client is 203.0.113.7.
    expect((await from("203.0.113.7, 10.1.2.3")).status).toBe(200);
    // A value the client prepended is left of the real client: ignored.
    expect((await from("198.51.100.9, 203.0.113.7, 10.1.2.3")).status).toBe(200);
    // The real client is outside the list, whatever it prepended.
    const outside = await from("203.0.113.7, 198.51.100.9, 10.1.2.3");
    expect(outside.status).toBe(403);
    expect(outside.body).toEqual({ error: "IP not whitelisted for this API key" });
    // An IPv4-mapped IPv6 client address matches the IPv4 range.
    expect((await from("::ffff:203.0.113.8")).status).toBe(200);
  });
});
