// Trading through the real processes (docs/openapi.yaml, docs/engine.md) with prices pushed over market.v1
// (PRICE_FEED=push), so every number below is computed by hand.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";

describe("trading end to end", () => {
  let stack: TestStack;
  let market: Market;
  let base: string;
  let trader: CreatedKey;
  let accountId: string;

  const post = (path: string, body: unknown, key: CreatedKey = trader): Promise<JsonResponse> =>
    v1(base, path, key, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const get = (path: string, key: CreatedKey = trader): Promise<JsonResponse> => v1(base, path, key);
  const order = (body: Record<string, unknown>): Promise<JsonResponse> =>
    post("/v1/order", { account_id: accountId, symbol: "BTC-USD", ...body });

  beforeAll(async () => {
    stack = await stackOn("postgres", { env: { PRICE_FEED: "push" } });
    market = marketClient(stack.engineGrpc);
    base = stack.gateways[0]?.v1 ?? "";
    trader = await newKey(stack.gateways[0]?.api ?? "", "trader", {
      label: "algo",
      permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
    });
    await market.push({ "BTC-USD": 50_000, "ETH-USD": 2_500 });
    const created = await post("/v1/account", { plan_id: PLAN_10K, label: "first" });
    expect(created.status).toBe(201);
    accountId = String(created.body.account_id);
  });
  afterAll(async () => {
    market?.close();
    await stack.stop();
  });

  it("creates an account from a plan with the contract's record", async () => {
    const record = await get(`/v1/account/${accountId}`);
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({
      account_id: accountId,
      plan_id: PLAN_10K,
      label: "first",
      state: "ACTIVE",
      default_venue: "GMX",
      allowed_venues: ["GMX", "OSTIUM"],
      balance: 10_000,
      equity: 10_000,
      starting_balance: 10_000,
      high_water_mark: 10_000,
      day_start_equity: 10_000,
      terminated_at: null,
    });
    const summary = await get(`/v1/account/${accountId}/summary`);
    expect(summary.body).toMatchObject({
      account_id: accountId,
      state: "ACTIVE",
      balance: 10_000,
      equity: 10_000,
      margin_available: 10_000,
      margin_locked: 0,
      unrealized_pnl: 0,
      realized_pnl_today: 0,
    });
  });

  it("fills a MARKET order at the mark, charges the GMX fee and opens a position", async () => {
    const placed = await order({ side: "BUY", kind: "MARKET", quantity: "0.1", client_id: "open-1" });
    expect(placed.status).toBe(201);
    expect(placed.body.violations).toEqual([]);
    expect(placed.body.order).toMatchObject({ status: "FILLED", filled_quantity: 0.1, avg_fill_price: 50_000 });
    expect(placed.body.fills).toEqual([
      expect.objectContaining({
        quantity: 0.1,
        price: 50_000,
        fee: 3,
        liquidity: "TAKER",
        venue: "GMX",
        client_id: "open-1",
      }),
    ]);
    const positions = await get(`/v1/account/${accountId}/positions`);
    expect(positions.body.data).toEqual([
      expect.objectContaining({
        symbol: "BTC-USD",
        side: "BUY",
        quantity: 0.1,
        entry_price: 50_000,
        venue: "GMX",
        leverage: 2,
      }),
    ]);
  });

  it("answers a repeated client_id with the original response and a different body with 409", async () => {
    const again = await order({ side: "BUY", kind: "MARKET", quantity: "0.1", client_id: "open-1" });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((again.body.order as Record<string, unknown>).status).toBe("FILLED");
    const different = await order({ side: "BUY", kind: "MARKET", quantity: "0.2", client_id: "open-1" });
    expect(different.status).toBe(409);
    expect(different.body).toMatchObject({ error: "conflict", client_id: "open-1" });
    const positions = await get(`/v1/account/${accountId}/positions`);
    expect((positions.body.data as Record<string, unknown>[])[0]?.quantity).toBe(0.1);
  });

  it("rests a LIMIT order, fills it as maker when the mark crosses, and records the closed position", async () => {
    const placed = await order({ side: "SELL", kind: "LIMIT", quantity: 0.1, limit_price: 51_000, reduce_only: true });
    expect(placed.status).toBe(201);
    expect((placed.body.order as Record<string, unknown>).status).toBe("NEW");
    const working = await get(`/v1/account/${accountId}/orders`);
    expect((working.body.data as unknown[]).length).toBe(1);
    await market.push({ "BTC-USD": 51_000 });
    const positions = await get(`/v1/account/${accountId}/positions`);
    expect(positions.body.data).toEqual([]);
    const history = await get(`/v1/account/${accountId}/positions/history`);
    expect(history.body.has_more).toBe(false);
    expect(history.body.data).toEqual([
      expect.objectContaining({
        symbol: "BTC-USD",
        side: "BUY",
        quantity: 0.1,
        entry_price: 50_000,
        exit_price: 51_000,
        realized_pnl: 100,
      }),
    ]);
    const trades = await get(`/v1/account/${accountId}/trades`);
    expect((trades.body.data as Record<string, unknown>[]).map((f) => f.liquidity)).toEqual(["TAKER", "MAKER"]);
  });

  it("cancels a working order, answers a second cancel the same, and refuses to cancel a final order", async () => {
    const placed = await order({ side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "40000" });
    const id = String((placed.body.order as Record<string, unknown>).order_id);
    const first = await v1(base, `/v1/order/${id}`, trader, { method: "DELETE" });
    expect(first.status).toBe(200);
    expect((first.body.order as Record<string, unknown>).status).toBe("CANCELED");
    const second = await v1(base, `/v1/order/${id}`, trader, { method: "DELETE" });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const filled = await order({ side: "BUY", kind: "MARKET", quantity: "0.01" });
    const filledId = String((filled.body.order as Record<string, unknown>).order_id);
    const final = await v1(base, `/v1/order/${filledId}`, trader, { method: "DELETE" });
    expect(final.status).toBe(409);
    expect(final.body).toMatchObject({ error: "conflict", reason: "order_final" });
  });

  it("closes a position with a reduce-only market order, and answers 404 when there is none", async () => {
    const closed = await post("/v1/position/close", { account_id: accountId, symbol: "btcusd" });
    expect(closed.status).toBe(201);
    expect(closed.body.order).toMatchObject({ reduce_only: true, status: "FILLED", side: "SELL" });
    const none = await post("/v1/position/close", { account_id: accountId, symbol: "BTC-USD" });
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ error: "not_found" });
  });

  it("hides another user's account and orders behind 404 and refuses trading without the scope", async () => {
    const stranger = await newKey(stack.gateways[0]?.api ?? "", "stranger", { label: "s", permissions: ["READ_ONLY"] });
    expect((await get(`/v1/account/${accountId}`, stranger)).status).toBe(404);
    const refused = await post(
      "/v1/order",
      { account_id: accountId, symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: 1 },
      stranger,
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: "permission_denied", required_scope: "TRADE" });
  });

  it("lists every problem of a list query at once", async () => {
    const bad = await get(`/v1/account/${accountId}/trades?limit=0&from=yesterday&page=2`);
    expect(bad.status).toBe(400);
    expect((bad.body.issues as { path: string }[]).map((i) => i.path).sort()).toEqual(["from", "limit", "page"]);
  });

  it("refuses a query parameter on the views that take none, naming it, instead of ignoring a misspelt filter", async () => {
    for (const view of ["", "/summary", "/positions", "/funding", "/breaches", "/violations", "/analytics"]) {
      const bad = await get(`/v1/account/${accountId}${view}?limit=1`);
      expect(bad.status, view).toBe(400);
      expect(bad.body).toEqual({ error: "invalid_payload", issues: [{ path: "limit", message: "unknown field" }] });
      expect((await get(`/v1/account/${accountId}${view}`)).status, view).toBe(200);
    }
  });

  it("refuses a decimal string with spaces around it", async () => {
    const spaced = await order({ side: "BUY", kind: "MARKET", quantity: " 0.01 " });
    expect(spaced.status).toBe(400);
    expect(spaced.body.issues).toEqual([expect.objectContaining({ path: "quantity" })]);
  });

  it("refuses malformed orders with one issue per field", async () => {
    const bad = await order({ side: "HOLD", kind: "LIMIT", quantity: "1e", limit_price: [1], extra: true });
    expect(bad.status).toBe(400);
    const paths = (bad.body.issues as { path: string }[]).map((i) => i.path).sort();
    expect(paths).toEqual(["extra", "limit_price", "quantity", "side"]);
  });
});
