// The per-key rate limit through the real gateway (docs/decisions.md, "Authentication and limits"), with the window
// shrunk to 2 s and the limit to 20 so the rules can be exercised quickly: in memory (one gateway) and through Redis
// (two gateways), with the default RATE_LIMIT_MAX_DELAY_MS (100 ms: every refusal here is for a slot much further off);
// and a request held for a slot that frees within a longer RATE_LIMIT_MAX_DELAY_MS.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type JsonResponse } from "../harness/client.js";

const LIMIT = 20;
const WINDOW_MS = 2_000;
const settings = { RATE_LIMIT_MAX: String(LIMIT), RATE_LIMIT_WINDOW_MS: String(WINDOW_MS) };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function expectLimited(response: JsonResponse): void {
  expect(response.status).toBe(429);
  expect(response.body.error).toBe("rate_limited");
  const retryMs = Number(response.body.retry_after_ms);
  expect(retryMs).toBeGreaterThan(0);
  expect(retryMs).toBeLessThanOrEqual(WINDOW_MS);
  expect(Number(response.headers.get("retry-after"))).toBe(Math.max(1, Math.ceil(retryMs / 1000)));
  expect(response.headers.get("ratelimit")).toMatch(/^limit=20, remaining=0, reset=\d+$/);
}

describe.each([
  ["in memory", false],
  ["through Redis", true],
] as const)("rate limit %s", (_name, redis) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await stackOn("pglite", { redis, gateways: redis ? 2 : 1, gatewayEnv: settings });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it("accepts exactly the limit from a burst and answers the rest 429 with Retry-After", async () => {
    const gateways = stack.gateways;
    const key = await newKey(gateways[0]?.api ?? "", "burst");
    const responses = await Promise.all(
      Array.from({ length: LIMIT + 15 }, (_, i) => v1(gateways[i % gateways.length]?.v1 ?? "", "/v1/tickers", key)),
    );
    const accepted = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(accepted).toHaveLength(LIMIT);
    expect(limited).toHaveLength(15);
    limited.forEach(expectLimited);
    for (const response of responses) {
      expect(response.headers.get("ratelimit-policy")).toBe(`${LIMIT};w=${WINDOW_MS / 1000}`);
    }
    const remaining = accepted.map((r) => Number(/remaining=(\d+)/.exec(r.headers.get("ratelimit") ?? "")?.[1]));
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: LIMIT }, (_, i) => i));
  });

  it("admits the key again once Retry-After has passed", async () => {
    const base = stack.gateways[0]?.v1 ?? "";
    const key = await newKey(stack.gateways[0]?.api ?? "", "retry");
    for (let i = 0; i < LIMIT; i++) expect((await v1(base, "/v1/tickers", key)).status).toBe(200);
    const refused = await v1(base, "/v1/tickers", key);
    expectLimited(refused);
    await sleep(Number(refused.body.retry_after_ms) + 50);
    expect((await v1(base, "/v1/tickers", key)).status).toBe(200);
  });

  it("never refuses a key that keeps just under limit/window, over three windows", async () => {
    const gateways = stack.gateways;
    const key = await newKey(gateways[0]?.api ?? "", "steady");
    const interval = WINDOW_MS / LIMIT + 5;
    const statuses: number[] = [];
    // Spaced from the previous send (never catching up after a stall), so no window ever holds more than the limit.
    const started = Date.now();
    let last = 0;
    for (let i = 0; Date.now() - started < 3 * WINDOW_MS; i++) {
      const wait = last + interval - Date.now();
      if (wait > 0) await sleep(wait);
      last = Date.now();
      statuses.push((await v1(gateways[i % gateways.length]?.v1 ?? "", "/v1/tickers", key)).status);
    }
    expect(statuses.length).toBeGreaterThan(2 * LIMIT);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  it("limits each key on its own budget", async () => {
    const base = stack.gateways[0]?.v1 ?? "";
    const api = stack.gateways[0]?.api ?? "";
    const first = await newKey(api, "indep");
    const second = await newKey(api, "indep");
    await Promise.all(Array.from({ length: LIMIT }, () => v1(base, "/v1/tickers", first)));
    expect((await v1(base, "/v1/tickers", first)).status).toBe(429);
    expect((await v1(base, "/v1/tickers", second)).status).toBe(200);
  });

  it("counts 403s against the key and carries the headers on them, but not 401s", async () => {
    const base = stack.gateways[0]?.v1 ?? "";
    const key = await newKey(stack.gateways[0]?.api ?? "", "forbidden", {
      label: "ip",
      permissions: ["READ_ONLY"],
      ipWhitelist: ["192.0.2.1"],
    });
    for (let i = 0; i < 5; i++) {
      await v1(base, "/v1/tickers", { key: key.key, secret: key.secret.slice(0, -1) + "x" });
    }
    const forbidden = await v1(base, "/v1/tickers", key);
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get("ratelimit")).toMatch(
      new RegExp(`^limit=${LIMIT}, remaining=${LIMIT - 1}, reset=\\d+$`),
    );
    for (let i = 1; i < LIMIT; i++) await v1(base, "/v1/tickers", key);
    expectLimited(await v1(base, "/v1/tickers", key));
  });
});

describe("a request held for a slot that frees soon", () => {
  const limit = 5;
  const windowMs = 2_000;
  let stack: TestStack;

  beforeAll(async () => {
    stack = await stackOn("pglite", {
      redis: true,
      gatewayEnv: {
        RATE_LIMIT_MAX: String(limit),
        RATE_LIMIT_WINDOW_MS: String(windowMs),
        RATE_LIMIT_MAX_DELAY_MS: "1500",
      },
    });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it("is answered, not 429, once the first request's slot frees, with the RateLimit headers", async () => {
    const gateway = stack.gateways[0];
    if (gateway === undefined) throw new Error("no gateway");
    const key = await newKey(gateway.api, "held");
    const firstSent = Date.now();
    for (let i = 0; i < limit; i++) expect((await v1(gateway.v1, "/v1/tickers", key)).status).toBe(200);
    // The first slot frees at (its acceptance) + 2 s, at most 1.5 s after this request arrives: it is held.
    await sleep(firstSent + 600 - Date.now());
    const held = await v1(gateway.v1, "/v1/tickers", key);
    const answered = Date.now();
    expect(held.status).toBe(200);
    expect(Array.isArray(held.body.data)).toBe(true);
    // Forwarded no earlier than the slot, which is at least a window after the first request was sent.
    expect(answered - firstSent).toBeGreaterThanOrEqual(windowMs);
    expect(held.headers.get("ratelimit-policy")).toBe(`${limit};w=${windowMs / 1000}`);
    // As of its slot the window holds requests 2-5 and itself.
    expect(held.headers.get("ratelimit")).toBe(`limit=${limit}, remaining=0, reset=1`);
    expect(held.headers.get("retry-after")).toBeNull();

    const metrics = await (await fetch(`${gateway.api}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_rate_limit_decisions_total\{[^}]*decision="held"[^}]*\} 1$/m);
  });
});
