// Risk scenarios end to end (docs/risk.md): prices pushed through market.v1, orders and reads through the
// gateway. A 10K static account unless said: daily limit 500, drawdown allowance 1,000, symbol cap 25,000;
// GMX charges 0.06% on open and close.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
const PLAN_200K = "15ef9280-770d-4664-9de7-93fcd7677a98";

interface Trader {
  key: CreatedKey;
  accountId: string;
  get(path: string): Promise<JsonResponse>;
  order(body: Record<string, unknown>): Promise<JsonResponse>;
  close(body: Record<string, unknown>): Promise<JsonResponse>;
}

async function trader(base: string, api: string, user: string, planId = PLAN_10K): Promise<Trader> {
  const key = await newKey(api, user, { label: "bot", permissions: ["TRADE", "MANAGE_ORDERS"] });
  const json = (body: Record<string, unknown>) => ({
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const opened = await v1(base, "/v1/account", key, json({ plan_id: planId }));
  expect(opened.status).toBe(201);
  const accountId = String(opened.body.account_id);
  return {
    key,
    accountId,
    get: (path) => v1(base, `/v1/account/${accountId}${path}`, key),
    order: (body) => v1(base, "/v1/order", key, json({ account_id: accountId, ...body })),
    close: (body) => v1(base, "/v1/position/close", key, json({ account_id: accountId, ...body })),
  };
}

const rows = (reply: JsonResponse): Record<string, unknown>[] => reply.body.data as Record<string, unknown>[];

describe("risk scenarios through market.v1 and REST", () => {
  let stack: TestStack;
  let market: Market;
  let base: string;
  let api: string;

  beforeAll(async () => {
    stack = await stackOn("postgres", { env: { PRICE_FEED: "push" } });
    const gateway = stack.gateways[0];
    if (gateway === undefined) throw new Error("no gateway");
    base = gateway.v1;
    api = gateway.api;
    market = marketClient(stack.engineGrpc);
  });
  afterAll(async () => {
    market.close();
    await stack.stop();
  });

  it("a position losing into the daily limit: warning, then critical and termination, and every order refused after", async () => {
    const t = await trader(base, api, "u-daily");
    await market.push({ "BTC-USD": 100_000 });
    expect((await t.order({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" })).status).toBe(201);
    const resting = await t.order({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "80000",
    });
    expect(resting.status).toBe(201);
    const restingId = (resting.body.order as { order_id: string }).order_id;

    // Loss = 6 + 0.1 × (100,000 − P): 400 (80%) at 96,060.
    await market.push({ "BTC-USD": 96_060 });
    expect(rows(await t.get("/breaches")).map((b) => [b.rule, b.severity, b.threshold, b.value])).toEqual([
      ["daily_loss_limit", "info", 250, 400],
      ["daily_loss_limit", "warning", 400, 400],
    ]);
    expect((await t.get("")).body.state).toBe("ACTIVE");

    await market.push({ "BTC-USD": 95_060 });
    const account = await t.get("");
    expect(account.body).toMatchObject({ state: "TERMINATED", balance: 9494.2964 });
    expect(account.body.terminated_at).not.toBeNull();
    expect(rows(await t.get("/breaches")).map((b) => b.severity)).toEqual(["info", "warning", "critical", "info"]);
    expect(rows(await t.get("/violations"))).toEqual([
      expect.objectContaining({ rule: "daily_loss_limit", threshold: 500, value: 500 }),
    ]);
    expect(rows(await t.get("/orders"))).toEqual([]);
    expect(rows(await t.get("/positions"))).toEqual([]);
    const trades = rows(await t.get("/trades"));
    expect(trades.at(-1)).toMatchObject({ side: "SELL", quantity: 0.1, price: 95_060, realized_pnl: -494 });
    const canceled = await v1(base, `/v1/order/${restingId}`, t.key, { method: "DELETE" });
    expect(canceled.body.order).toMatchObject({ status: "CANCELED" });

    const refused = await t.order({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" });
    expect(refused.status).toBe(200);
    expect(refused.body.violations).toEqual([expect.objectContaining({ rule: "account_terminated" })]);
    expect((await t.close({ symbol: "BTC-USD" })).status).toBe(404);
  });

  it("trailing drawdown: the high-water mark rises with equity and never falls", async () => {
    const t = await trader(base, api, "u-trailing", PLAN_200K);
    await market.push({ "ETH-USD": 2_500 });
    expect((await t.order({ symbol: "ETH-USD", side: "BUY", kind: "MARKET", quantity: "10" })).status).toBe(201);
    // 25,000 notional, 15 USD fee: equity 199,985 + 10 × (P − 2,500).
    await market.push({ "ETH-USD": 2_600 });
    expect((await t.get("")).body.high_water_mark).toBe(200_985);
    await market.push({ "ETH-USD": 2_550 });
    const account = await t.get("");
    expect(account.body).toMatchObject({ high_water_mark: 200_985, equity: 200_485, state: "ACTIVE" });
  });

  it("news freeze: refused inside the window, before and after the event, allowed outside; closes always", async () => {
    const t = await trader(base, api, "u-news");
    await market.push({ "SOL-USD": 200 });
    expect((await t.order({ symbol: "SOL-USD", side: "BUY", kind: "MARKET", quantity: "1" })).status).toBe(201);
    const at = (offsetMinutes: number) => new Date(Date.now() + offsetMinutes * 60_000).toISOString();
    const attempt = async (offsetMinutes: number): Promise<string | undefined> => {
      await market.setCalendar([
        { id: "e", title: "SOL upgrade", scheduled_at: at(offsetMinutes), symbols: ["SOL-USD"], asset_classes: [] },
      ]);
      const reply = await t.order({ symbol: "SOL-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
      return (reply.body.violations as { rule: string }[])[0]?.rule;
    };
    // The 10K plan freezes 2 minutes before and after.
    expect(await attempt(3)).toBeUndefined(); // before the window
    expect(await attempt(1)).toBe("news_freeze"); // inside, before the event
    expect(await attempt(-1)).toBe("news_freeze"); // inside, after the event
    expect(await attempt(-3)).toBeUndefined(); // after the window
    await market.setCalendar([
      { id: "e", title: "SOL upgrade", scheduled_at: at(0), symbols: [], asset_classes: ["crypto"] },
    ]);
    expect((await t.close({ symbol: "SOL-USD" })).status).toBe(201);
    await market.setCalendar([]);
  });

  it("exposure cap counts working orders", async () => {
    const t = await trader(base, api, "u-exposure");
    await market.push({ "EUR-USD": 1.1 });
    const limit = (quantity: number) =>
      t.order({ symbol: "EUR-USD", side: "BUY", kind: "LIMIT", quantity, limit_price: "1", venue: "OSTIUM" });
    expect((await limit(18_000)).status).toBe(201);
    const over = await limit(7_001);
    expect(over.status).toBe(200);
    expect(over.body.violations).toEqual([expect.objectContaining({ rule: "exposure_cap" })]);
    const fits = await limit(7_000);
    expect(fits.status).toBe(201);
    expect(fits.body.risk_headroom).toMatchObject({ symbol_exposure_remaining: 0, total_exposure_remaining: 25_000 });
  });

  it("analytics against hand-computed values", async () => {
    const t = await trader(base, api, "u-analytics");
    await market.push({ "BTC-USD": 100_000 });
    await t.order({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    const stop = await t.order({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.1",
      trigger_price: "99000",
      reduce_only: true,
    });
    await market.push({ "BTC-USD": 102_000 });
    expect((await t.close({ symbol: "BTC-USD" })).status).toBe(201);
    // A reduce-only stop outlives the position it protected (it would close the next one): cancel it.
    const stopId = (stop.body.order as { order_id: string }).order_id;
    expect((await v1(base, `/v1/order/${stopId}`, t.key, { method: "DELETE" })).status).toBe(200);
    await market.push({ "BTC-USD": 100_000 });
    await t.order({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    await market.push({ "BTC-USD": 99_000 });
    expect((await t.close({ symbol: "BTC-USD" })).status).toBe(201);
    // R is realized P&L over initial risk (docs/risk.md, "Analytics"). Win: realized 200 over a 100 USD risk to the
    // stop. Loss: realized −100 over 1% of 10,000. The profit factor reads the net P&L: 187.88 and −111.94.
    expect(rows(await t.get("/positions/history")).map((r) => r.r_multiple)).toEqual([2, -1]);
    expect((await t.get("/analytics")).body).toEqual({
      win_rate: 0.5,
      avg_r_multiple: 0.5,
      profit_factor: Math.round((187.88 / 111.94) * 10_000) / 10_000,
      closed_positions: 2,
      exposure: [],
    });
  });
});

describe("funding over several intervals", () => {
  let stack: TestStack;
  let market: Market;

  beforeAll(async () => {
    stack = await stackOn("pglite", { env: { PRICE_FEED: "push", FUNDING_INTERVAL_MS: "300" } });
    market = marketClient(stack.engineGrpc);
  });
  afterAll(async () => {
    market.close();
    await stack.stop();
  });

  it("pays the larger side every interval and reconciles with the balance to the cent", async () => {
    const gateway = stack.gateways[0];
    if (gateway === undefined) throw new Error("no gateway");
    const t = await trader(gateway.v1, gateway.api, "u-funding");
    // Mark above index: longs are the larger side and pay 0.01% of 10,000 = 1 USD per interval.
    await market.push({ "BTC-USD": { mark: 100_000, index: 99_000 } });
    expect((await t.order({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" })).status).toBe(201);
    const deadline = Date.now() + 30_000;
    while (rows(await t.get("/funding")).length < 3 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await t.close({ symbol: "BTC-USD" })).status).toBe(201);
    const report = (await t.get("/funding")).body as {
      by_asset_class: { asset_class: string; received: number; paid: number; net: number }[];
      data: { amount: number; rate: number; symbol: string }[];
    };
    const paid = report.data.length;
    expect(paid).toBeGreaterThanOrEqual(3);
    expect(report.data.every((p) => p.amount === -1 && p.rate === -0.0001 && p.symbol === "BTC-USD")).toBe(true);
    expect(report.by_asset_class).toEqual([{ asset_class: "crypto", received: 0, paid, net: -paid }]);
    // Nothing more once the position is closed.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(rows(await t.get("/funding"))).toHaveLength(paid);
    const history = rows(await t.get("/positions/history"));
    expect(history[0]?.funding).toBe(-paid);
    const trades = rows(await t.get("/trades"));
    const realized = trades.reduce((sum, f) => sum + Number(f.realized_pnl), 0);
    const fees = trades.reduce((sum, f) => sum + Number(f.fee), 0);
    const balance = Number((await t.get("")).body.balance);
    expect(Math.round((10_000 + realized - fees - paid) * 1e8)).toBe(Math.round(balance * 1e8));
  });
});
