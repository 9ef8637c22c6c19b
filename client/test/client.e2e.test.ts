// The client against the real stack (test/harness/stack.ts) with a 40-per-2 s rate limit (the 1,200-per-minute
// pace, in a window small enough to fill several times) and no holding (RATE_LIMIT_MAX_DELAY_MS=0), so any
// request over the limit is a 429: every method once, the retry policy through a proxy that loses answers and
// answers 500/503/429, and the pacer keeping a bot at its limit without a single 429.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../../test/harness/backends.js";
import { newKey, type CreatedKey } from "../../test/harness/client.js";
import { marketClient, type Market } from "../../test/harness/market.js";
import { ApiError, KeysClient, TradingClient, type RetryEvent } from "../src/index.js";
import { startFaultProxy, type FaultProxy } from "./fault-proxy.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
const LIMIT = 40;
const WINDOW_MS = 2_000;

let stack: TestStack;
let market: Market;
let v1: string;
let api: string;

beforeAll(async () => {
  stack = await stackOn("pglite", {
    env: { PRICE_FEED: "push" },
    gatewayEnv: {
      RATE_LIMIT_MAX: String(LIMIT),
      RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
      RATE_LIMIT_MAX_DELAY_MS: "0",
    },
  });
  market = marketClient(stack.engineGrpc);
  await market.push({ "BTC-USD": 50_000, "ETH-USD": 2_500 });
  v1 = stack.gateways[0]?.v1 ?? "";
  api = stack.gateways[0]?.api ?? "";
});
afterAll(async () => {
  market?.close();
  await stack?.stop();
});

/** A trading key for `user` with every scope, and a client on `base` whose waits are recorded, not slept. */
async function trader(
  user: string,
  base = v1,
): Promise<{ key: CreatedKey; client: TradingClient; waits: RetryEvent[] }> {
  const key = await newKey(api, user, { label: "bot", permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"] });
  const waits: RetryEvent[] = [];
  const client = new TradingClient({
    baseUrl: base,
    apiKey: key.key,
    apiSecret: key.secret,
    sleep: () => Promise.resolve(),
    onRetry: (event) => waits.push(event),
  });
  return { key, client, waits };
}

describe("retries through a misbehaving proxy", () => {
  let proxy: FaultProxy;
  let client: TradingClient;
  let waits: RetryEvent[];
  let accountId: string;

  beforeAll(async () => {
    proxy = await startFaultProxy(v1);
    ({ client, waits } = await trader("retry", proxy.url));
    accountId = (await client.openAccount({ plan_id: PLAN_10K })).account_id;
  });
  afterAll(async () => {
    await proxy?.close();
  });

  const orderPosts = (): { body: string; status: number }[] =>
    proxy.seen.filter((s) => s.method === "POST" && s.path === "/v1/order");

  it.each([
    ["a lost answer", ["drop-after"]],
    ["500 after the order was placed", ["500-after"]],
    ["503 before it reached the service", ["503-before"]],
    ["429 with Retry-After", ["429-before"]],
    ["every fault in a row", ["drop-after", "500-after", "503-before", "429-before"]],
  ] as const)("places exactly one order through %s, with one client_id on every attempt", async (_name, faults) => {
    const before = orderPosts().length;
    waits.length = 0;
    proxy.inject("/v1/order", ...faults);
    const placed = await client.placeOrder({
      account_id: accountId,
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "40000",
    });
    expect(placed.kind).toBe("accepted");
    expect(placed.attempts).toBe(faults.length + 1);
    const sent = orderPosts().slice(before);
    expect(sent).toHaveLength(faults.length + 1);
    expect(new Set(sent.map((s) => s.body)).size).toBe(1);
    expect(JSON.parse(sent[0]?.body ?? "{}")).toMatchObject({ client_id: placed.clientId });
    // Placed before its answer was lost: the retry gets the original answer back.
    expect(placed.replayed).toBe(faults[0] === "drop-after" || faults[0] === "500-after");
    const working = await client.workingOrders(accountId);
    expect(working.filter((o) => o.client_id === placed.clientId)).toHaveLength(1);
    expect(working.find((o) => o.client_id === placed.clientId)?.order_id).toBe(placed.response.order.order_id);
    // Backoff doubles from 1 s (jittered to half at least); a 429 waits at least its Retry-After.
    waits.forEach((wait) => {
      expect(wait.delayMs).toBeGreaterThanOrEqual(500 * 2 ** (wait.attempt - 1));
      expect(wait.delayMs).toBeLessThanOrEqual(30_000);
      if (wait.reason === "429") expect(wait.delayMs).toBeGreaterThanOrEqual(1_000);
    });
    expect(waits.map((w) => w.reason)).toEqual(
      faults.map((f) => ({ "drop-after": "network", "500-after": "500", "503-before": "503", "429-before": "429" })[f]),
    );
  });

  it("places exactly one order when an attempt times out after the order was placed", async () => {
    const key = await newKey(api, "retry-timeout", { label: "bot", permissions: ["READ_ONLY", "TRADE"] });
    const events: RetryEvent[] = [];
    const patient = new TradingClient({
      baseUrl: proxy.url,
      apiKey: key.key,
      apiSecret: key.secret,
      timeoutMs: 1_000,
      sleep: () => Promise.resolve(),
      onRetry: (event) => events.push(event),
    });
    const account = (await patient.openAccount({ plan_id: PLAN_10K })).account_id;
    const before = orderPosts().length;
    proxy.inject("/v1/order", "stall-after");
    const placed = await patient.placeOrder({
      account_id: account,
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "40000",
    });
    expect(placed).toMatchObject({ kind: "accepted", replayed: true, attempts: 2 });
    expect(events.map((e) => e.reason)).toEqual(["network"]);
    expect(
      new Set(
        orderPosts()
          .slice(before)
          .map((s) => s.body),
      ).size,
    ).toBe(1);
    expect((await patient.workingOrders(account)).filter((o) => o.client_id === placed.clientId)).toHaveLength(1);
  });

  it("never repeats a 400, 401, 403, 404 or 409", async () => {
    const { key } = await trader("retry-4xx");
    const readOnly = await newKey(api, "retry-4xx", { label: "ro", permissions: ["READ_ONLY"] });
    const badSecret = new TradingClient({
      baseUrl: proxy.url,
      apiKey: key.key,
      apiSecret: `${key.secret.slice(0, -1)}x`,
    });
    const viewer = new TradingClient({ baseUrl: proxy.url, apiKey: readOnly.key, apiSecret: readOnly.secret });
    const order = {
      account_id: accountId,
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      limit_price: "40000",
    } as const;
    const first = await client.placeOrder({ ...order, quantity: "0.01" });
    const cases: [number, () => Promise<unknown>][] = [
      [400, () => client.placeOrder({ ...order, quantity: "0.0000001" })],
      [401, () => badSecret.placeOrder({ ...order, quantity: "0.01" })],
      [403, () => viewer.placeOrder({ ...order, quantity: "0.01" })],
      [
        404,
        () => client.placeOrder({ ...order, account_id: "00000000-0000-4000-8000-000000000000", quantity: "0.01" }),
      ],
      [409, () => client.placeOrder({ ...order, quantity: "0.02", client_id: first.clientId })],
    ];
    for (const [status, call] of cases) {
      const before = proxy.seen.length;
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(status);
      expect((error as ApiError).attempts).toBe(1);
      expect(proxy.seen.slice(before).map((s) => s.status)).toEqual([status]);
    }
    expect(
      (await client.placeOrder({ ...order, quantity: "0.0000001" }).catch((e: unknown) => e)) as ApiError,
    ).toMatchObject({ code: "invalid_payload" });
  });

  it("answers a risk rejection as a rejected result, not an error, and retries it as the same order", async () => {
    const before = orderPosts().length;
    proxy.inject("/v1/order", "drop-after");
    const placed = await client.placeOrder({
      account_id: accountId,
      symbol: "BTC-USD",
      side: "BUY",
      kind: "MARKET",
      quantity: "100",
    });
    expect(placed.kind).toBe("rejected");
    if (placed.kind !== "rejected") return;
    expect(placed.violations.length).toBeGreaterThan(0);
    expect(placed.response.order.status).toBe("REJECTED");
    expect(placed.replayed).toBe(true);
    expect(orderPosts().slice(before)).toHaveLength(2);
  });
});

describe("the pacer", () => {
  it("holds a bot sending as fast as it can to the key's limit, with no 429", async () => {
    const statuses: number[] = [];
    const remaining: number[] = [];
    const key = await newKey(api, "pacer", { label: "bot", permissions: ["READ_ONLY"] });
    const waits: RetryEvent[] = [];
    const client = new TradingClient({
      baseUrl: v1,
      apiKey: key.key,
      apiSecret: key.secret,
      onRetry: (event) => waits.push(event),
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        statuses.push(response.status);
        remaining.push(Number(/remaining=(\d+)/.exec(response.headers.get("ratelimit") ?? "")?.[1]));
        return response;
      },
    });
    const total = 3 * LIMIT;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < total) {
        next += 1;
        await client.tickers();
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    expect(statuses).toHaveLength(total);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(waits).toEqual([]);
    // The bot was at its limit: it spent the whole budget of a window again and again, and waited for slots.
    expect(remaining.filter((r) => r === 0).length).toBeGreaterThanOrEqual(2);
    expect(client.pacing?.sent).toBe(total);
    expect(client.pacing?.held).toBeGreaterThan(0);
  });

  it("is what keeps the bot from 429s: the same bot without it is refused", async () => {
    const statuses: number[] = [];
    const key = await newKey(api, "unpaced", { label: "bot", permissions: ["READ_ONLY"] });
    const client = new TradingClient({
      baseUrl: v1,
      apiKey: key.key,
      apiSecret: key.secret,
      pacer: false,
      retry: { maxAttempts: 1 },
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        statuses.push(response.status);
        return response;
      },
    });
    await Promise.all(Array.from({ length: LIMIT + 5 }, () => client.tickers().catch(() => undefined)));
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
  });
});

describe("every method once", () => {
  it("keys: create, list, validate, deliveries, revoke", async () => {
    const keys = new KeysClient({ baseUrl: api, userId: "methods" });
    const created = await keys.create({ label: "m", permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"] });
    expect((await keys.list()).map((k) => k.id)).toContain(created.apiKey.id);
    const valid = await keys.validate({ key: created.key, secret: created.secret, ip: "127.0.0.1" });
    expect(valid.valid).toBe(true);
    expect((await keys.deliveries(created.apiKey.id)).deliveries).toEqual([]);
    const all: unknown[] = [];
    for await (const d of keys.allDeliveries(created.apiKey.id)) all.push(d);
    expect(all).toEqual([]);
    const redeliver = await keys
      .redeliver(created.apiKey.id, "00000000-0000-4000-8000-000000000000")
      .catch((e: unknown) => e);
    expect(redeliver).toMatchObject({ status: 404, code: "not_found" });
    expect((await keys.revoke(created.apiKey.id)).id).toBe(created.apiKey.id);
    expect(await keys.list()).toEqual([]);
    expect(await keys.health()).toEqual({ status: "ok" });
    expect(await keys.readiness()).toEqual({ status: "ready" });
    expect(await keys.metrics()).toMatch(/^# HELP /);
  });

  it("trading: every /v1 route", async () => {
    const { client } = await trader("methods-v1");
    expect(await client.health()).toEqual({ status: "ok" });
    expect(await client.readiness()).toEqual({ status: "ready" });
    const tickers = await client.tickers();
    expect(tickers.length).toBeGreaterThanOrEqual(20);
    expect((await client.ticker("BTC-USD"))?.symbol).toBe("BTC-USD");
    expect((await client.plans()).map((p) => p.plan_id)).toContain(PLAN_10K);
    expect((await client.calendar()).data).toBeInstanceOf(Array);
    const account = await client.openAccount({ plan_id: PLAN_10K, label: "methods" });
    const id = account.account_id;
    expect((await client.account(id)).account_id).toBe(id);
    expect((await client.summary(id)).account_id).toBe(id);
    const tested = await client.testOrder({
      account_id: id,
      symbol: "BTC-USD",
      side: "BUY",
      kind: "MARKET",
      quantity: "0.01",
    });
    expect(tested.kind).toBe("accepted");
    const opened = await client.placeOrder({
      account_id: id,
      symbol: "BTC-USD",
      side: "BUY",
      kind: "MARKET",
      quantity: "0.02",
    });
    expect(opened.kind).toBe("accepted");
    expect((await client.positions(id)).map((p) => p.symbol)).toEqual(["BTC-USD"]);
    const resting = await client.placeOrder({
      account_id: id,
      symbol: "ETH-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.1",
      limit_price: "2000",
    });
    if (resting.kind !== "accepted") throw new Error("resting order rejected");
    const orderId = resting.response.order.order_id;
    expect((await client.workingOrders(id)).map((o) => o.order_id)).toEqual([orderId]);
    expect((await client.amendOrder(orderId, { limit_price: "2100" })).limit_price).toBe(2100);
    expect((await client.cancelOrder(orderId)).status).toBe("CANCELED");
    const armed = await client.setCancelAfter(id, 3_600_000);
    expect(armed).toMatchObject({ account_id: id, armed: true, timeout_ms: 3_600_000 });
    expect(await client.cancelAfter(id)).toEqual(armed);
    expect(await client.setCancelAfter(id, 0)).toEqual({
      account_id: id,
      armed: false,
      timeout_ms: null,
      deadline: null,
    });
    expect((await client.order(orderId)).status).toBe("CANCELED");
    const tagged = await client.placeOrder({
      account_id: id,
      symbol: "ETH-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.1",
      limit_price: "2000",
      client_id: "methods-tagged",
    });
    if (tagged.kind !== "accepted") throw new Error("tagged order rejected");
    expect((await client.orderByClientId(id, "methods-tagged"))?.order_id).toBe(tagged.response.order.order_id);
    expect(await client.orderByClientId(id, "never-used")).toBeUndefined();
    expect((await client.cancelOrder(tagged.response.order.order_id)).status).toBe("CANCELED");
    const closed = await client.closePosition({ account_id: id, symbol: "BTC-USD" });
    expect(closed.kind).toBe("accepted");
    expect(await client.positions(id)).toEqual([]);
    expect((await client.trades(id)).data).toHaveLength(2);
    const fills: string[] = [];
    for await (const fill of client.allTrades(id, { limit: 1 })) fills.push(fill.fill_id);
    expect(fills).toHaveLength(2);
    expect((await client.positionHistory(id)).data).toHaveLength(1);
    const orders = (await client.orderHistory(id)).data.map((o) => o.order_id);
    expect(orders).toHaveLength(4);
    const walked: string[] = [];
    for await (const order of client.allOrders(id, { limit: 1 })) walked.push(order.order_id);
    expect(walked).toEqual(orders);
    const history: string[] = [];
    for await (const position of client.allPositionHistory(id, { limit: 1 })) history.push(position.position_id);
    expect(history).toHaveLength(1);
    expect((await client.funding(id)).data).toEqual([]);
    expect(await client.breaches(id)).toEqual([]);
    expect(await client.violations(id)).toEqual([]);
    expect((await client.analytics(id)).closed_positions).toBe(1);
    const page = await client.events(id, { limit: 2 });
    expect(page.has_more).toBe(true);
    const events: number[] = [];
    for await (const event of client.allEvents(id, 0, 2)) events.push(event.sequence);
    expect(events.length).toBeGreaterThan(2);
    expect(events).toEqual([...events].sort((a, b) => a - b));
  });

  it("trading: the bulk routes", async () => {
    const { client } = await trader("methods-bulk");
    const id = (await client.openAccount({ plan_id: PLAN_10K, label: "bulk" })).account_id;
    const limit = (price: string) =>
      ({
        account_id: id,
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: "0.01",
        limit_price: price,
      }) as const;
    const batch = await client.placeOrders([
      limit("40000"),
      { ...limit("40000"), quantity: "0.0000001" },
      { account_id: id, symbol: "ETH-USD", side: "BUY", kind: "MARKET", quantity: "0.1" },
    ]);
    expect(batch.data.map((item) => item.status)).toEqual([201, 400, 201]);
    expect(batch.clientIds).toHaveLength(3);
    // Each order went with a client_id minted for it, so a retry of the batch replays instead of placing again.
    expect(batch.data[0]?.body).toMatchObject({ order: { client_id: batch.clientIds[0] } });
    const canceled = await client.cancelAllOrders(id, "BTC-USD");
    expect(canceled.map((o) => o.status)).toEqual(["CANCELED"]);
    expect(await client.cancelAllOrders(id)).toEqual([]);
    const flat = await client.flatten(id);
    expect(flat.closes.map((c) => c.symbol)).toEqual(["ETH-USD"]);
    expect(flat.positions).toEqual([]);
  });
});
