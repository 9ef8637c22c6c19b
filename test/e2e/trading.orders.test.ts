// Order behaviours end to end through REST (docs/openapi.yaml, docs/engine.md "Execution"), with prices pushed over
// market.v1 (PRICE_FEED=push) so every expected number is computed by hand. Each test opens its own account,
// and tests that move prices use a symbol of their own, so they do not disturb each other.
//
// Fees used below: pushed prices leave the GMX skew at zero, so GMX charges 0.06% on open and close; OSTIUM
// crypto charges 0.10% taker / 0.08% maker on open and nothing on close.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isMarketOpen } from "../../kernel/market-hours.js";
import { AssetClass } from "../../engine/market/types.js";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
/** Allows OSTIUM only. */
const PLAN_100K = "c671cd31-b56a-41fe-8d80-41fda892fbca";
const PLAN_200K = "15ef9280-770d-4664-9de7-93fcd7677a98";

type Row = Record<string, unknown>;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const orderOf = (response: JsonResponse): Row => response.body.order as Row;
const fillsOf = (response: JsonResponse): Row[] => response.body.fills as Row[];
const idOf = (response: JsonResponse): string => String(orderOf(response).order_id);
const dataOf = (response: JsonResponse): Row[] => response.body.data as Row[];
const issuePaths = (response: JsonResponse): string[] =>
  (response.body.issues as { path: string }[]).map((issue) => issue.path);

describe("orders end to end", () => {
  let stack: TestStack;
  let market: Market;
  let base: string;
  let trader: CreatedKey;

  const post = (path: string, body: unknown): Promise<JsonResponse> =>
    v1(base, path, trader, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const get = (path: string): Promise<JsonResponse> => v1(base, path, trader);
  const patch = (orderId: string, body: unknown): Promise<JsonResponse> =>
    v1(base, `/v1/order/${orderId}`, trader, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const cancel = (orderId: string): Promise<JsonResponse> =>
    v1(base, `/v1/order/${orderId}`, trader, { method: "DELETE" });

  const openAccount = async (planId: string = PLAN_10K): Promise<string> => {
    const created = await post("/v1/account", { plan_id: planId });
    expect(created.status).toBe(201);
    return String(created.body.account_id);
  };
  const place = (accountId: string, body: Row): Promise<JsonResponse> =>
    post("/v1/order", { account_id: accountId, ...body });
  const working = async (accountId: string): Promise<Row[]> => {
    const listed = await get(`/v1/account/${accountId}/orders`);
    expect(listed.status).toBe(200);
    return dataOf(listed);
  };
  const workingStatus = async (accountId: string): Promise<Record<string, unknown>> =>
    Object.fromEntries((await working(accountId)).map((o): [string, unknown] => [String(o.order_id), o.status]));
  const trades = async (accountId: string, query = ""): Promise<Row[]> => {
    const listed = await get(`/v1/account/${accountId}/trades${query}`);
    expect(listed.status).toBe(200);
    return dataOf(listed);
  };
  const positions = async (accountId: string): Promise<Row[]> =>
    dataOf(await get(`/v1/account/${accountId}/positions`));
  const balance = async (accountId: string): Promise<number> =>
    Number((await get(`/v1/account/${accountId}`)).body.balance);

  /**
   * The record of an order that must be final: it is not in the working list, and DELETE answers its final
   * state (200 for CANCELED, 409 order_final with the order otherwise) without changing it.
   */
  const finalState = async (accountId: string, orderId: string): Promise<Row> => {
    expect((await working(accountId)).map((o) => o.order_id)).not.toContain(orderId);
    const answer = await cancel(orderId);
    expect([200, 409]).toContain(answer.status);
    if (answer.status === 409) expect(answer.body).toMatchObject({ error: "conflict", reason: "order_final" });
    return orderOf(answer);
  };

  beforeAll(async () => {
    stack = await stackOn("postgres", {
      env: { PRICE_FEED: "push" },
      // This file sends more than the default 1,200 requests a minute through one key.
      gatewayEnv: { RATE_LIMIT_MAX: "100000" },
    });
    market = marketClient(stack.engineGrpc);
    base = stack.gateways[0]?.v1 ?? "";
    trader = await newKey(stack.gateways[0]?.api ?? "", "orders-trader", {
      label: "algo",
      permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
    });
  });
  afterAll(async () => {
    market?.close();
    await stack.stop();
  });

  describe("triggers", () => {
    it("triggers a sell STOP on the mark when it reaches the trigger, not before and not on the index", async () => {
      await market.push({ "SOL-USD": 100 });
      const account = await openAccount();
      const opened = await place(account, { symbol: "SOL-USD", side: "BUY", kind: "MARKET", quantity: 10 });
      expect(orderOf(opened)).toMatchObject({ status: "FILLED", avg_fill_price: 100 });
      expect(fillsOf(opened)[0]).toMatchObject({ price: 100, quantity: 10, fee: 0.6 });

      const stop = await place(account, {
        symbol: "SOL-USD",
        side: "SELL",
        kind: "STOP",
        quantity: 10,
        trigger_price: 95,
        reduce_only: true,
      });
      expect(stop.status).toBe(201);
      expect(orderOf(stop)).toMatchObject({
        status: "NEW",
        trigger_price: 95,
        index_trigger: false,
        filled_quantity: 0,
      });
      const stopId = idOf(stop);

      // The index crosses, the mark does not: a stop on the mark (the default) waits.
      await market.push({ "SOL-USD": { mark: 95.01, index: 90 } });
      expect(await workingStatus(account)).toEqual({ [stopId]: "NEW" });
      expect(await trades(account)).toHaveLength(1);

      await market.push({ "SOL-USD": 95 });
      expect(await working(account)).toEqual([]);
      const fills = await trades(account);
      expect(fills).toHaveLength(2);
      // 10 × 95 = 950 notional, 0.06% = 0.57; (95 − 100) × 10 = −50.
      expect(fills[1]).toMatchObject({
        order_id: stopId,
        side: "SELL",
        quantity: 10,
        price: 95,
        fee: 0.57,
        liquidity: "TAKER",
        realized_pnl: -50,
      });
      expect(await finalState(account, stopId)).toMatchObject({
        status: "FILLED",
        filled_quantity: 10,
        avg_fill_price: 95,
      });
      expect(await positions(account)).toEqual([]);
      expect(await balance(account)).toBe(9948.83); // 10,000 − 0.6 − 0.57 − 50
    });

    it("triggers an index_trigger STOP on the index while the mark has not crossed, and fills at the mark", async () => {
      await market.push({ "LINK-USD": 20 });
      const account = await openAccount();
      await place(account, { symbol: "LINK-USD", side: "BUY", kind: "MARKET", quantity: 100 });
      const stop = await place(account, {
        symbol: "LINK-USD",
        side: "SELL",
        kind: "STOP",
        quantity: 100,
        trigger_price: 19,
        index_trigger: true,
        reduce_only: true,
      });
      expect(orderOf(stop)).toMatchObject({ status: "NEW", index_trigger: true, mark_trigger: false });
      const stopId = idOf(stop);

      // The mark crosses the trigger, the index does not: an index stop waits.
      await market.push({ "LINK-USD": { mark: 18.5, index: 19.5 } });
      expect(await workingStatus(account)).toEqual({ [stopId]: "NEW" });

      // The index reaches 19 while the mark stays above: it triggers and takes at the mark, 19.5.
      await market.push({ "LINK-USD": { mark: 19.5, index: 19 } });
      expect(await working(account)).toEqual([]);
      const fills = await trades(account);
      expect(fills).toHaveLength(2);
      // 100 × 19.5 = 1,950 notional, 0.06% = 1.17; (19.5 − 20) × 100 = −50.
      expect(fills[1]).toMatchObject({
        order_id: stopId,
        side: "SELL",
        quantity: 100,
        price: 19.5,
        fee: 1.17,
        liquidity: "TAKER",
        realized_pnl: -50,
      });
      expect(await finalState(account, stopId)).toMatchObject({ status: "FILLED", avg_fill_price: 19.5 });
      expect(await balance(account)).toBe(9947.63); // 10,000 − 1.2 − 1.17 − 50
    });

    it("triggers a sell TAKE_PROFIT when the mark rises to it, never when it falls", async () => {
      await market.push({ "AVAX-USD": 30 });
      const account = await openAccount();
      await place(account, { symbol: "AVAX-USD", side: "BUY", kind: "MARKET", quantity: 10 });
      const tp = await place(account, {
        symbol: "AVAX-USD",
        side: "SELL",
        kind: "TAKE_PROFIT",
        quantity: 10,
        trigger_price: 33,
        reduce_only: true,
      });
      expect(tp.status).toBe(201);
      const tpId = idOf(tp);
      await market.push({ "AVAX-USD": 25 });
      await market.push({ "AVAX-USD": 32.999 });
      expect(await workingStatus(account)).toEqual({ [tpId]: "NEW" });

      await market.push({ "AVAX-USD": 33.5 });
      expect(await working(account)).toEqual([]);
      const fills = await trades(account);
      // 10 × 33.5 = 335 notional, 0.06% = 0.201; (33.5 − 30) × 10 = 35.
      expect(fills[1]).toMatchObject({ order_id: tpId, price: 33.5, quantity: 10, fee: 0.201, realized_pnl: 35 });
      expect(await finalState(account, tpId)).toMatchObject({ status: "FILLED" });
      expect(await balance(account)).toBe(10034.619); // 10,000 − 0.18 − 0.201 + 35
    });
  });

  describe("TP/SL children", () => {
    const children = async (account: string, parentId: string, tp: number, sl: number): Promise<[string, string]> => {
      const takeProfit = await place(account, {
        symbol: "LTC-USD",
        side: "SELL",
        kind: "TAKE_PROFIT",
        quantity: 10,
        trigger_price: tp,
        parent_order_id: parentId,
      });
      const stopLoss = await place(account, {
        symbol: "LTC-USD",
        side: "SELL",
        kind: "STOP",
        quantity: 10,
        trigger_price: sl,
        parent_order_id: parentId,
      });
      for (const child of [takeProfit, stopLoss]) {
        expect(child.status).toBe(201);
        // Children of an unfilled parent wait, and are reduce-only whatever the request said.
        expect(orderOf(child)).toMatchObject({ status: "HELD", parent_order_id: parentId, reduce_only: true });
      }
      return [idOf(takeProfit), idOf(stopLoss)];
    };

    it("holds children until the parent fills, then works them; one child's fill cancels the other (OCO)", async () => {
      await market.push({ "LTC-USD": 100 });
      const account = await openAccount();
      const parent = await place(account, {
        symbol: "LTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: 10,
        limit_price: 90,
      });
      expect(orderOf(parent).status).toBe("NEW");
      const parentId = idOf(parent);
      const [tpId, slId] = await children(account, parentId, 110, 80);
      expect(await workingStatus(account)).toEqual({ [parentId]: "NEW", [tpId]: "HELD", [slId]: "HELD" });

      // The parent fills as maker at 90; the children become NEW (neither trigger is reached at 90).
      await market.push({ "LTC-USD": 90 });
      expect(await workingStatus(account)).toEqual({ [tpId]: "NEW", [slId]: "NEW" });
      expect(await finalState(account, parentId)).toMatchObject({ status: "FILLED", avg_fill_price: 90 });

      await market.push({ "LTC-USD": 111 });
      expect(await working(account)).toEqual([]);
      const fills = await trades(account);
      expect(fills.map((f) => [f.order_id, f.side, f.price, f.quantity, f.liquidity])).toEqual([
        [parentId, "BUY", 90, 10, "MAKER"],
        [tpId, "SELL", 111, 10, "TAKER"],
      ]);
      // 1,110 × 0.06% = 0.666; (111 − 90) × 10 = 210.
      expect(fills[1]).toMatchObject({ fee: 0.666, realized_pnl: 210 });
      expect(await finalState(account, tpId)).toMatchObject({ status: "FILLED" });
      expect(await finalState(account, slId)).toMatchObject({ status: "CANCELED", filled_quantity: 0 });
      expect(await positions(account)).toEqual([]);
      expect(await balance(account)).toBe(10208.794); // 10,000 − 0.54 − 0.666 + 210
    });

    it("cancels the HELD children with a parent canceled before any fill, and refuses new children then", async () => {
      await market.push({ "LTC-USD": 100 });
      const account = await openAccount();
      const parent = await place(account, {
        symbol: "LTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: 10,
        limit_price: 80,
      });
      const parentId = idOf(parent);
      const [tpId, slId] = await children(account, parentId, 120, 70);
      const canceled = await cancel(parentId);
      expect(canceled.status).toBe(200);
      expect(orderOf(canceled).status).toBe("CANCELED");
      expect(await working(account)).toEqual([]);
      expect(await finalState(account, tpId)).toMatchObject({ status: "CANCELED" });
      expect(await finalState(account, slId)).toMatchObject({ status: "CANCELED" });

      const late = await place(account, {
        symbol: "LTC-USD",
        side: "SELL",
        kind: "STOP",
        quantity: 10,
        trigger_price: 70,
        parent_order_id: parentId,
      });
      expect(late.status).toBe(409);
      expect(late.body).toMatchObject({ error: "conflict", reason: "parent_final" });
      // The price reaching the old parent's limit fills nothing.
      await market.push({ "LTC-USD": 79 });
      expect(await trades(account)).toEqual([]);
    });
  });

  describe("time in force", () => {
    it("expires a GTD order once its expire_at has passed", async () => {
      await market.push({ "ADA-USD": 1 });
      const account = await openAccount();
      const expireAt = new Date(Date.now() + 1_500).toISOString();
      const placed = await place(account, {
        symbol: "ADA-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: 100,
        limit_price: "0.9",
        time_in_force: "GTD",
        expire_at: expireAt,
      });
      expect(placed.status).toBe(201);
      expect(orderOf(placed)).toMatchObject({ status: "NEW", time_in_force: "GTD", expire_at: expireAt });
      const id = idOf(placed);
      await market.push({ "ADA-USD": 0.95 });
      expect(await workingStatus(account)).toEqual({ [id]: "NEW" });

      await sleep(Date.parse(expireAt) - Date.now() + 100);
      // Not crossed, so only the clock can end it.
      await market.push({ "ADA-USD": 0.95 });
      expect(await working(account)).toEqual([]);
      expect(await finalState(account, id)).toMatchObject({ status: "EXPIRED", filled_quantity: 0 });
      // Even a price at the old limit fills nothing now.
      await market.push({ "ADA-USD": 0.9 });
      expect(await trades(account)).toEqual([]);

      const past = await place(account, {
        symbol: "ADA-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: 100,
        limit_price: "0.9",
        time_in_force: "GTD",
        expire_at: new Date(Date.now() - 1_000).toISOString(),
      });
      expect(past.status).toBe(400);
      expect(issuePaths(past)).toEqual(["expire_at"]);
    });

    // XRP-USD: 250,000 USD at its reference price 2.2814 is 109,582 XRP per level (engine/market/book.ts),
    // so one update offers 5 × 109,582 = 547,910 XRP per side, buys at 0.5, 0.5001, … 0.5004.
    it("expires a FOK order the book cannot fill with no fill, and fills an IOC order partially", async () => {
      await market.push({ "XRP-USD": 0.5 });
      const account = await openAccount(PLAN_200K);
      const fok = await place(account, {
        symbol: "XRP-USD",
        side: "BUY",
        kind: "MARKET",
        quantity: 600_000,
        time_in_force: "FOK",
      });
      expect(fok.status).toBe(201);
      expect(orderOf(fok)).toMatchObject({ status: "EXPIRED", filled_quantity: 0, avg_fill_price: null });
      expect(fillsOf(fok)).toEqual([]);
      expect(await trades(account)).toEqual([]);
      expect(await balance(account)).toBe(200_000);

      // Margin: 600,000 × 0.5 / 2 = 150,000 (+ 180 fee) of 200,000 available.
      const ioc = await place(account, { symbol: "XRP-USD", side: "BUY", kind: "MARKET", quantity: 600_000 });
      expect(ioc.status).toBe(201);
      expect(orderOf(ioc)).toMatchObject({
        status: "CANCELED",
        time_in_force: "IOC",
        quantity: 600_000,
        filled_quantity: 547_910,
        avg_fill_price: 0.5002,
      });
      const prices = [0.5, 0.5001, 0.5002, 0.5003, 0.5004];
      expect(fillsOf(ioc).map((f) => [f.price, f.quantity, f.liquidity])).toEqual(
        prices.map((p) => [p, 109_582, "TAKER"]),
      );
      // Fee per level: 109,582 × price × 0.06%.
      fillsOf(ioc).forEach((f, i) => {
        expect(Number(f.fee)).toBeCloseTo(109_582 * (prices[i] ?? 0) * 0.0006, 8);
      });
      expect(await positions(account)).toEqual([
        expect.objectContaining({ symbol: "XRP-USD", side: "BUY", quantity: 547_910, entry_price: 0.5002 }),
      ]);
      expect(await working(account)).toEqual([]);
    });

    it("rejects a post-only or GTX LIMIT that would take with post_only_would_take, and rests one that would not", async () => {
      await market.push({ "BTC-USD": 50_000 });
      const account = await openAccount();
      const postOnly = await place(account, {
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: "0.01",
        limit_price: 50_000,
        post_only: true,
      });
      const gtx = await place(account, {
        symbol: "BTC-USD",
        side: "SELL",
        kind: "LIMIT",
        quantity: "0.01",
        limit_price: 49_000,
        time_in_force: "GTX",
      });
      for (const rejected of [postOnly, gtx]) {
        expect(rejected.status).toBe(200);
        expect(rejected.headers.get("idempotent-replayed")).toBeNull();
        expect(orderOf(rejected)).toMatchObject({ status: "REJECTED", filled_quantity: 0 });
        expect(fillsOf(rejected)).toEqual([]);
        expect(rejected.body.violations).toEqual([
          { rule: "post_only_would_take", severity: "critical", message: expect.any(String) as string },
        ]);
      }
      const resting = await place(account, {
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: "0.01",
        limit_price: 49_000,
        time_in_force: "GTX",
      });
      expect(resting.status).toBe(201);
      expect(orderOf(resting).status).toBe("NEW");
      expect((await cancel(idOf(resting))).status).toBe(200);
      expect(await trades(account)).toEqual([]);
    });
  });

  describe("risk rejections", () => {
    it("rejects a venue the plan does not allow, and a venue that does not list the symbol", async () => {
      await market.push({ "BTC-USD": 50_000 });
      const ostiumOnly = await openAccount(PLAN_100K);
      expect((await get(`/v1/account/${ostiumOnly}`)).body).toMatchObject({
        allowed_venues: ["OSTIUM"],
        default_venue: "OSTIUM",
      });
      const gmx = await place(ostiumOnly, {
        symbol: "BTC-USD",
        side: "BUY",
        kind: "MARKET",
        quantity: "0.01",
        venue: "GMX",
      });
      expect(gmx.status).toBe(200);
      expect(orderOf(gmx)).toMatchObject({ status: "REJECTED", venue: "GMX" });
      expect(gmx.body.violations).toEqual([expect.objectContaining({ rule: "venue_not_allowed" })]);
      expect(fillsOf(gmx)).toEqual([]);

      // GMX lists crypto only.
      const account = await openAccount();
      const forex = await place(account, {
        symbol: "EUR-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: 1000,
        limit_price: "1.0",
        venue: "GMX",
      });
      expect(forex.status).toBe(200);
      expect(orderOf(forex).status).toBe("REJECTED");
      expect(forex.body.violations).toEqual([expect.objectContaining({ rule: "venue_not_allowed" })]);

      // The same order on the allowed venue fills (OSTIUM crypto taker 0.10%: 500 × 0.1% = 0.5).
      const ostium = await place(ostiumOnly, { symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
      expect(ostium.status).toBe(201);
      expect(fillsOf(ostium)).toEqual([expect.objectContaining({ venue: "OSTIUM", fee: 0.5 })]);
    });

    it("answers a MARKET order on an index by its market hours: filled while open, market_closed while closed", async () => {
      // The wall clock decides which branch runs (the closed hours are covered deterministically by the core's
      // placement tests with a scripted clock); either way the answer is checked, never skipped.
      await market.push({ "SPX-USD": 6_000 });
      const account = await openAccount();
      const openBefore = isMarketOpen(AssetClass.indices, Date.now());
      const placed = await place(account, {
        symbol: "SPX-USD",
        side: "BUY",
        kind: "MARKET",
        quantity: "0.01",
        venue: "OSTIUM",
      });
      const openAfter = isMarketOpen(AssetClass.indices, Date.now());
      const closed = {
        status: 200,
        order: "REJECTED",
        violations: [expect.objectContaining({ rule: "market_closed" })],
      };
      const open = { status: 201, order: "FILLED", violations: [] };
      const seen = { status: placed.status, order: orderOf(placed).status, violations: placed.body.violations };
      if (openBefore === openAfter) expect(seen).toEqual(openBefore ? open : closed);
      else expect([open.status, closed.status]).toContain(seen.status);
    });

    it("rejects an order whose margin and taker fee exceed margin_available, counting working orders' reserve", async () => {
      await market.push({ "BTC-USD": 50_000 });
      const account = await openAccount();
      // 0.4 × 50,000 / 2 = 10,000 margin + 12 fee > 10,000.
      const big = await place(account, { symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.4" });
      expect(big.status).toBe(200);
      expect(orderOf(big)).toMatchObject({ status: "REJECTED", filled_quantity: 0 });
      expect(big.body.violations).toEqual([
        { rule: "insufficient_margin", severity: "critical", message: expect.any(String) as string },
      ]);
      expect(fillsOf(big)).toEqual([]);

      // A resting 0.3 @ 40,000 reserves 6,000; 0.2 more @ 40,000 needs 4,000 + 4.8 > 4,000; 0.19 needs 3,804.56.
      const first = await place(account, {
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: "0.3",
        limit_price: 40_000,
      });
      expect(orderOf(first).status).toBe("NEW");
      const second = await place(account, {
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: "0.2",
        limit_price: 40_000,
      });
      expect(second.status).toBe(200);
      expect(second.body.violations).toEqual([expect.objectContaining({ rule: "insufficient_margin" })]);
      const third = await place(account, {
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: "0.19",
        limit_price: 40_000,
      });
      expect(third.status).toBe(201);
      expect(orderOf(third).status).toBe("NEW");
      const summary = await get(`/v1/account/${account}/summary`);
      expect(summary.body).toMatchObject({ balance: 10_000, margin_locked: 0, margin_available: 200 });
      expect((await cancel(idOf(first))).status).toBe(200);
      expect((await cancel(idOf(third))).status).toBe(200);
      expect(await balance(account)).toBe(10_000);
    });

    it("answers 409 reduce_only_would_increase for a reduce-only order with nothing to reduce", async () => {
      await market.push({ "BTC-USD": 50_000 });
      const account = await openAccount();
      const flat = await place(account, {
        symbol: "BTC-USD",
        side: "SELL",
        kind: "MARKET",
        quantity: "0.01",
        reduce_only: true,
      });
      expect(flat.status).toBe(409);
      expect(flat.body).toEqual({ error: "conflict", reason: "reduce_only_would_increase" });
      await place(account, { symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
      const same = await place(account, {
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: "0.01",
        limit_price: 40_000,
        reduce_only: true,
      });
      expect(same.status).toBe(409);
      expect(same.body).toEqual({ error: "conflict", reason: "reduce_only_would_increase" });
      expect(await working(account)).toEqual([]);
      expect(await positions(account)).toEqual([expect.objectContaining({ quantity: 0.01, side: "BUY" })]);
    });
  });

  describe("amend", () => {
    it("amends a resting LIMIT's price and quantity, and a STOP's trigger, and the new values are what execute", async () => {
      await market.push({ "BNB-USD": 500 });
      const account = await openAccount();
      const limit = await place(account, {
        symbol: "BNB-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: 1,
        limit_price: 450,
      });
      const limitId = idOf(limit);
      const amended = await patch(limitId, { limit_price: 480, quantity: "2" });
      expect(amended.status).toBe(200);
      expect(orderOf(amended)).toMatchObject({
        order_id: limitId,
        status: "NEW",
        limit_price: 480,
        quantity: 2,
        filled_quantity: 0,
      });
      await market.push({ "BNB-USD": 490 });
      expect(await working(account)).toEqual([expect.objectContaining({ order_id: limitId, limit_price: 480 })]);
      await market.push({ "BNB-USD": 480 });
      // 2 × 480 = 960 notional, 0.06% = 0.576.
      expect(await trades(account)).toEqual([
        expect.objectContaining({ order_id: limitId, quantity: 2, price: 480, liquidity: "MAKER", fee: 0.576 }),
      ]);

      const stop = await place(account, {
        symbol: "BNB-USD",
        side: "SELL",
        kind: "STOP",
        quantity: 2,
        trigger_price: 400,
        reduce_only: true,
      });
      const stopId = idOf(stop);
      const moved = await patch(stopId, { trigger_price: 470 });
      expect(moved.status).toBe(200);
      expect(orderOf(moved)).toMatchObject({ status: "NEW", trigger_price: 470 });
      await market.push({ "BNB-USD": 475 });
      expect(await workingStatus(account)).toEqual({ [stopId]: "NEW" });
      await market.push({ "BNB-USD": 470 });
      expect(await working(account)).toEqual([]);
      // 940 × 0.06% = 0.564; (470 − 480) × 2 = −20.
      expect((await trades(account))[1]).toMatchObject({ order_id: stopId, price: 470, fee: 0.564, realized_pnl: -20 });
      const late = await patch(stopId, { trigger_price: 460 });
      expect(late.status).toBe(409);
      expect(late.body).toMatchObject({ error: "conflict", reason: "order_final" });
      expect(await balance(account)).toBe(9978.86); // 10,000 − 0.576 − 0.564 − 20
    });
  });

  describe("positions", () => {
    it("targets one venue's position with position_id", async () => {
      await market.push({ "BTC-USD": 50_000 });
      const account = await openAccount();
      await place(account, { symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.02", venue: "GMX" });
      await place(account, { symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.03", venue: "OSTIUM" });
      const open = await positions(account);
      expect(open).toHaveLength(2);
      const ostium = open.find((p) => p.venue === "OSTIUM");
      const gmx = open.find((p) => p.venue === "GMX");
      const ostiumId = String(ostium?.position_id);

      // Two positions on the symbol: a close must name one.
      const ambiguous = await post("/v1/position/close", { account_id: account, symbol: "BTC-USD" });
      expect(ambiguous.status).toBe(400);
      expect(issuePaths(ambiguous)).toEqual(["venue"]);

      const reduced = await place(account, {
        symbol: "BTC-USD",
        side: "SELL",
        kind: "MARKET",
        quantity: "0.01",
        reduce_only: true,
        position_id: ostiumId,
      });
      expect(reduced.status).toBe(201);
      expect(orderOf(reduced)).toMatchObject({ status: "FILLED", venue: "OSTIUM", position_id: ostiumId });
      // OSTIUM charges no closing fee.
      expect(fillsOf(reduced)).toEqual([expect.objectContaining({ venue: "OSTIUM", quantity: 0.01, fee: 0 })]);
      expect(await positions(account)).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ position_id: ostiumId, quantity: 0.02 }),
          expect.objectContaining({ position_id: gmx?.position_id, quantity: 0.02 }),
        ]),
      );

      const unknown = await place(account, {
        symbol: "BTC-USD",
        side: "SELL",
        kind: "MARKET",
        quantity: "0.01",
        position_id: "00000000-0000-4000-8000-000000000000",
      });
      expect(unknown.status).toBe(404);
      const otherSymbol = await place(account, {
        symbol: "ETH-USD",
        side: "SELL",
        kind: "LIMIT",
        quantity: 1,
        limit_price: 9_000,
        position_id: ostiumId,
      });
      expect(otherSymbol.status).toBe(400);
      expect(issuePaths(otherSymbol)).toEqual(["position_id"]);
      const otherVenue = await place(account, {
        symbol: "BTC-USD",
        side: "SELL",
        kind: "MARKET",
        quantity: "0.01",
        venue: "GMX",
        position_id: ostiumId,
      });
      expect(otherVenue.status).toBe(400);
      expect(issuePaths(otherVenue)).toEqual(["venue"]);
    });

    it("closes part of a position with quantity, then the rest with a LIMIT close at price", async () => {
      await market.push({ "DOGE-USD": 0.2 });
      const account = await openAccount();
      await place(account, { symbol: "DOGE-USD", side: "BUY", kind: "MARKET", quantity: 10_000 }); // fee 1.2
      const partial = await post("/v1/position/close", { account_id: account, symbol: "DOGE-USD", quantity: 4_000 });
      expect(partial.status).toBe(201);
      expect(orderOf(partial)).toMatchObject({
        side: "SELL",
        kind: "MARKET",
        reduce_only: true,
        quantity: 4_000,
        status: "FILLED",
      });
      expect(fillsOf(partial)).toEqual([expect.objectContaining({ price: 0.2, fee: 0.48, realized_pnl: 0 })]);
      expect(await positions(account)).toEqual([expect.objectContaining({ quantity: 6_000, entry_price: 0.2 })]);
      expect(dataOf(await get(`/v1/account/${account}/positions/history`))).toEqual([]);

      const limit = await post("/v1/position/close", {
        account_id: account,
        symbol: "doge/usd",
        kind: "LIMIT",
        price: "0.25",
      });
      expect(limit.status).toBe(201);
      expect(orderOf(limit)).toMatchObject({
        side: "SELL",
        kind: "LIMIT",
        limit_price: 0.25,
        quantity: 6_000,
        reduce_only: true,
        status: "NEW",
      });
      await market.push({ "DOGE-USD": 0.24 });
      expect(await positions(account)).toEqual([expect.objectContaining({ quantity: 6_000 })]);
      await market.push({ "DOGE-USD": 0.25 });
      expect(await positions(account)).toEqual([]);
      // 6,000 × 0.25 = 1,500 notional, 0.06% = 0.9; (0.25 − 0.2) × 6,000 = 300.
      expect((await trades(account))[2]).toMatchObject({
        order_id: idOf(limit),
        price: 0.25,
        quantity: 6_000,
        liquidity: "MAKER",
        fee: 0.9,
        realized_pnl: 300,
      });
      // One history row for the whole life of the position: exit = (4,000 × 0.2 + 6,000 × 0.25) / 10,000.
      expect(dataOf(await get(`/v1/account/${account}/positions/history`))).toEqual([
        expect.objectContaining({
          symbol: "DOGE-USD",
          side: "BUY",
          quantity: 10_000,
          entry_price: 0.2,
          exit_price: 0.23,
          realized_pnl: 300,
        }),
      ]);
      expect(await balance(account)).toBe(10297.42); // 10,000 − 1.2 − 0.48 − 0.9 + 300
    });
  });

  describe("lists", () => {
    it("pages /trades and /positions/history by from, to and limit, oldest first", async () => {
      await market.push({ "ETH-USD": 2_500 });
      const account = await openAccount();
      for (let i = 0; i < 3; i++) {
        for (const side of ["BUY", "SELL"]) {
          const placed = await place(account, { symbol: "ETH-USD", side, kind: "MARKET", quantity: "0.1" });
          expect(orderOf(placed).status).toBe("FILLED");
          await sleep(5); // distinct timestamps, so from/to can cut between fills
        }
      }
      const all = await get(`/v1/account/${account}/trades`);
      expect(all.body.has_more).toBe(false);
      const fills = dataOf(all);
      expect(fills.map((f) => f.side)).toEqual(["BUY", "SELL", "BUY", "SELL", "BUY", "SELL"]);
      const times = fills.map((f) => String(f.executed_at));
      expect([...times].sort()).toEqual(times);
      expect(new Set(times).size).toBe(6);

      const first4 = await get(`/v1/account/${account}/trades?limit=4`);
      expect(first4.body).toEqual({ data: fills.slice(0, 4), has_more: true });
      const range = await get(`/v1/account/${account}/trades?from=${times[1]}&to=${times[3]}`);
      expect(range.body).toEqual({ data: fills.slice(1, 4), has_more: false });
      const cut = await get(`/v1/account/${account}/trades?from=${times[1]}&to=${times[4]}&limit=2`);
      expect(cut.body).toEqual({ data: fills.slice(1, 3), has_more: true });
      const before = await get(`/v1/account/${account}/trades?to=2020-01-01T00:00:00.000Z`);
      expect(before.body).toEqual({ data: [], has_more: false });
      const clamped = await get(`/v1/account/${account}/trades?limit=5000`);
      expect(clamped.status).toBe(200);
      expect(clamped.body).toEqual({ data: fills, has_more: false });

      const history = await get(`/v1/account/${account}/positions/history`);
      expect(history.body.has_more).toBe(false);
      const closed = dataOf(history);
      expect(closed).toHaveLength(3);
      const closedAt = closed.map((p) => String(p.closed_at));
      expect(closed.map((p) => p.closed_at)).toEqual([times[1], times[3], times[5]]);
      // 0.1 × 2,500 = 250 notional, 0.06% = 0.15 on open and on close.
      expect(closed[0]).toMatchObject({ quantity: 0.1, entry_price: 2_500, exit_price: 2_500, realized_pnl: 0 });
      const two = await get(`/v1/account/${account}/positions/history?limit=2`);
      expect(two.body).toEqual({ data: closed.slice(0, 2), has_more: true });
      const fromSecond = await get(`/v1/account/${account}/positions/history?from=${closedAt[1]}`);
      expect(fromSecond.body).toEqual({ data: closed.slice(1), has_more: false });
      const toSecond = await get(`/v1/account/${account}/positions/history?to=${closedAt[1]}&limit=1`);
      expect(toSecond.body).toEqual({ data: closed.slice(0, 1), has_more: true });

      for (const path of ["trades", "positions/history"]) {
        for (const [query, field] of [
          ["limit=0", "limit"],
          ["limit=-1", "limit"],
          ["limit=abc", "limit"],
          ["limit=1.5", "limit"],
          ["from=yesterday", "from"],
          ["to=2026-13-45T00:00:00Z", "to"],
          [`from=${times[3]}&to=${times[1]}`, "from"],
        ] as const) {
          const bad = await get(`/v1/account/${account}/${path}?${query}`);
          expect(bad.status, `${path}?${query}`).toBe(400);
          expect(bad.body.error).toBe("invalid_payload");
          expect(issuePaths(bad), `${path}?${query}`).toContain(field);
        }
      }
    });

    it("pages past fills that share one time with from and after_id, each fill exactly once", async () => {
      await market.push({ "BTC-USD": 50_000 });
      const account = await openAccount();
      const orderIds: string[] = [];
      for (let i = 0; i < 3; i++) {
        const placed = await place(account, {
          symbol: "BTC-USD",
          side: "BUY",
          kind: "LIMIT",
          limit_price: 49_000,
          quantity: "0.001",
        });
        expect(orderOf(placed).status).toBe("NEW");
        orderIds.push(idOf(placed));
      }
      await market.push({ "BTC-USD": 49_000 }); // one price update fills all three
      const all = await get(`/v1/account/${account}/trades`);
      expect(all.body.has_more).toBe(false);
      const fills = dataOf(all);
      expect(fills.map((f) => f.order_id).sort()).toEqual([...orderIds].sort());
      expect(new Set(fills.map((f) => f.executed_at)).size).toBe(1);
      const ids = fills.map((f) => String(f.fill_id));
      expect(ids).toEqual([...ids].sort());
      // `from` alone cannot get past them: the same first fill again, with has_more.
      const stuck = await get(`/v1/account/${account}/trades?limit=1&from=${String(fills[0]?.executed_at)}`);
      expect(stuck.body).toEqual({ data: fills.slice(0, 1), has_more: true });

      // The loop docs/openapi.yaml gives: while has_more, from = the last row's time, after_id = its id.
      const seen: string[] = [];
      let query = "limit=1";
      for (let round = 0; round < 10; round++) {
        const page = await get(`/v1/account/${account}/trades?${query}`);
        expect(page.status, query).toBe(200);
        expect(Object.keys(page.body).sort()).toEqual(["data", "has_more"]);
        const rows = dataOf(page);
        seen.push(...rows.map((f) => String(f.fill_id)));
        if (page.body.has_more !== true) break;
        const last = rows.at(-1);
        query = `limit=1&from=${encodeURIComponent(String(last?.executed_at))}&after_id=${String(last?.fill_id)}`;
      }
      expect(seen).toEqual(ids);
      // After the last one: nothing more. An id in upper case is the same id.
      const last = fills[2];
      const end = await get(
        `/v1/account/${account}/trades?from=${String(last?.executed_at)}&after_id=${String(last?.fill_id).toUpperCase()}`,
      );
      expect(end.body).toEqual({ data: [], has_more: false });

      const someId = ids[0] ?? "";
      for (const path of ["trades", "positions/history"]) {
        for (const query of [`after_id=${someId}`, `to=${String(last?.executed_at)}&after_id=${someId}`]) {
          const bad = await get(`/v1/account/${account}/${path}?${query}`);
          expect(bad.status, `${path}?${query}`).toBe(400);
          expect(issuePaths(bad), `${path}?${query}`).toEqual(["after_id"]);
        }
        for (const value of ["fill-1", "", "123"]) {
          const bad = await get(`/v1/account/${account}/${path}?from=${String(last?.executed_at)}&after_id=${value}`);
          expect(bad.status, `${path} after_id=${value}`).toBe(400);
          expect(issuePaths(bad), `${path} after_id=${value}`).toEqual(["after_id"]);
        }
      }
    });

    // ETH-USD at 1.00: 73,259 steps of 0.001 per level (250,000 USD at the reference 3412.56), so a market
    // order of 5 × 73.259 = 366.295 ETH fills in five fills, one per level. 101 round trips: 1,010 fills.
    it("clamps a limit above 1,000 to 1,000 and defaults to 100", async () => {
      const account = await openAccount(PLAN_200K);
      for (let round = 0; round < 101; round++) {
        await market.push({ "ETH-USD": 1 });
        for (const side of ["BUY", "SELL"]) {
          const placed = await place(account, { symbol: "ETH-USD", side, kind: "MARKET", quantity: "366.295" });
          expect(placed.status).toBe(201);
          expect(fillsOf(placed)).toHaveLength(5);
        }
      }
      const clamped = await get(`/v1/account/${account}/trades?limit=5000`);
      expect(clamped.status).toBe(200);
      expect(dataOf(clamped)).toHaveLength(1_000);
      expect(clamped.body.has_more).toBe(true);
      const capped = await get(`/v1/account/${account}/trades?limit=1000`);
      expect(capped.body).toEqual(clamped.body);
      // Past the 32-bit range too: neither refused nor wrapped around (4294967297 would read as 1).
      for (const huge of ["2147483648", "4294967297", "99999999999999999999999"]) {
        const wide = await get(`/v1/account/${account}/trades?limit=${huge}`);
        expect(wide.status, huge).toBe(200);
        expect(wide.body, huge).toEqual(clamped.body);
      }
      const byDefault = await get(`/v1/account/${account}/trades`);
      expect(dataOf(byDefault)).toEqual(dataOf(clamped).slice(0, 100));
      expect(byDefault.body.has_more).toBe(true);
      // Fill 999 belongs to the 200th order (fills 995–999, one timestamp): from there on, the last 3 orders.
      const rest = await get(`/v1/account/${account}/trades?from=${String(dataOf(clamped)[999]?.executed_at)}`);
      expect(rest.body.has_more).toBe(false);
      expect(dataOf(rest)).toHaveLength(15);
      expect(dataOf(rest).slice(0, 5)).toEqual(dataOf(clamped).slice(995));
      const ids = new Set([...dataOf(clamped), ...dataOf(rest)].map((f) => f.fill_id));
      expect(ids.size).toBe(1_010);
    });
  });

  describe("requests", () => {
    it("answers an unknown symbol with a 400 issue on symbol, and accepts the symbol's variants", async () => {
      await market.push({ "BTC-USD": 50_000 });
      const account = await openAccount();
      const unknown = await place(account, { symbol: "FOO-USD", side: "BUY", kind: "MARKET", quantity: 1 });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toBe("invalid_payload");
      expect(issuePaths(unknown)).toEqual(["symbol"]);
      for (const symbol of ["btcusd", "BTC/USD", "btc-usd"]) {
        const placed = await place(account, {
          symbol,
          side: "BUY",
          kind: "LIMIT",
          quantity: "0.001",
          limit_price: 1_000,
        });
        expect(placed.status, symbol).toBe(201);
        expect(orderOf(placed).symbol).toBe("BTC-USD");
        expect((await cancel(idOf(placed))).status).toBe(200);
      }
    });

    it("creates one order when the same client_id arrives twice at the same moment", async () => {
      await market.push({ "BTC-USD": 50_000 });
      const account = await openAccount();
      const race = async (body: Row, copies: number): Promise<JsonResponse[]> => {
        const responses = await Promise.all(Array.from({ length: copies }, () => place(account, body)));
        const statuses = responses.map((r) => r.status).sort();
        expect(statuses).toEqual([...Array.from({ length: copies - 1 }, () => 200), 201]);
        const created = responses.find((r) => r.status === 201);
        for (const replay of responses.filter((r) => r.status === 200)) {
          expect(replay.headers.get("idempotent-replayed")).toBe("true");
          expect(replay.body).toEqual(created?.body);
        }
        return responses;
      };

      const market2 = await race(
        { symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01", client_id: "twin-market" },
        2,
      );
      const limit2 = await race(
        {
          symbol: "BTC-USD",
          side: "BUY",
          kind: "LIMIT",
          quantity: "0.01",
          limit_price: 40_000,
          client_id: "twin-limit",
        },
        2,
      );
      const limit8 = await race(
        {
          symbol: "BTC-USD",
          side: "BUY",
          kind: "LIMIT",
          quantity: "0.02",
          limit_price: 39_000,
          client_id: "octet-limit",
        },
        8,
      );
      const fills = await trades(account);
      expect(fills).toHaveLength(1);
      expect(fills[0]).toMatchObject({ client_id: "twin-market", order_id: idOf(market2[0] as JsonResponse) });
      const open = await working(account);
      expect(open.map((o) => o.client_id).sort()).toEqual(["octet-limit", "twin-limit"]);
      expect(open.map((o) => o.order_id).sort()).toEqual(
        [idOf(limit2[0] as JsonResponse), idOf(limit8[0] as JsonResponse)].sort(),
      );
      expect(await positions(account)).toEqual([expect.objectContaining({ quantity: 0.01 })]);
      for (const order of open) expect((await cancel(String(order.order_id))).status).toBe(200);
    });
  });
});
