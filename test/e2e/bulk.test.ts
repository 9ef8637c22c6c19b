// The bulk calls end to end (docs/openapi.yaml; docs/engine.md, "Bulk commands"): cancel-all and flatten, each one
// step of the account's actor, raced against placements on the same account; POST /v1/orders/batch answered in
// place, with its own limits and idempotency under two batches at once; and what each costs against the key's
// rate limit. Prices are pushed (PRICE_FEED=push), so every order's outcome is known in advance. On both
// database backends: the embedded one is what `npm start` runs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, stackOn, type TestStack } from "../harness/backends.js";
import { accountEvents, newKey, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
/** Small enough that two batches of 20 on one account run into it. */
const MAX_WORKING = 25;
/** The key budget per window (60 s: nothing frees during a test); each test uses a key of its own. */
const RATE_LIMIT = 120;

type Row = Record<string, unknown>;
interface Envelope {
  type: string;
  sequence: number;
  data: Row;
}

const dataOf = (response: JsonResponse): Row[] => response.body.data as Row[];
const remainingOf = (response: JsonResponse): number =>
  Number(/remaining=(\d+)/.exec(response.headers.get("ratelimit") ?? "")?.[1]);
/** Quantities as whole 1e-8 steps, so sums of fills are exact. */
const steps = (value: unknown): number => Math.round(Number(value) * 1e8);

describe.each(BACKENDS)("bulk calls end to end on %s", (backend) => {
  let stack: TestStack;
  let market: Market;
  let base: string;
  let api: string;
  let users = 0;

  const keyFor = (permissions = ["READ_ONLY", "TRADE", "MANAGE_ORDERS"]): Promise<CreatedKey> =>
    newKey(api, `bulk-user-${++users}`, { label: "algo", permissions });
  const call = (key: CreatedKey, method: string, path: string, body?: unknown): Promise<JsonResponse> =>
    v1(base, path, key, {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
  const openAccount = async (key: CreatedKey): Promise<string> => {
    const created = await call(key, "POST", "/v1/account", { plan_id: PLAN_10K });
    expect(created.status).toBe(201);
    return String(created.body.account_id);
  };
  const place = (key: CreatedKey, account: string, body: Row): Promise<JsonResponse> =>
    call(key, "POST", "/v1/order", { account_id: account, ...body });
  const restingBuy = (account: string, price = 90_000): Row => ({
    account_id: account,
    symbol: "BTC-USD",
    side: "BUY",
    kind: "LIMIT",
    quantity: "0.001",
    limit_price: price,
  });
  const working = async (key: CreatedKey, account: string): Promise<Row[]> =>
    dataOf(await call(key, "GET", `/v1/account/${account}/orders`));
  const positions = async (key: CreatedKey, account: string): Promise<Row[]> =>
    dataOf(await call(key, "GET", `/v1/account/${account}/positions`));
  /** Every webhook envelope of the account, in sequence order. */
  const events = (key: CreatedKey, account: string): Promise<Envelope[]> =>
    accountEvents<Envelope>((path) => call(key, "GET", path), account);

  beforeAll(async () => {
    stack = await stackOn(backend, {
      env: { PRICE_FEED: "push", ENGINE_MAX_WORKING_ORDERS: String(MAX_WORKING) },
      gatewayEnv: { RATE_LIMIT_MAX: String(RATE_LIMIT), RATE_LIMIT_WINDOW_MS: "60000" },
    });
    market = marketClient(stack.engineGrpc);
    base = stack.gateways[0]?.v1 ?? "";
    api = stack.gateways[0]?.api ?? "";
    await market.push({ "BTC-USD": 100_000, "ETH-USD": 3_000, "SOL-USD": 100 });
  });
  afterAll(async () => {
    market?.close();
    await stack.stop();
  });

  describe("DELETE /v1/account/:id/orders", () => {
    it("cancels every working order (a symbol's, or all) and answers them; a second call answers none", async () => {
      const key = await keyFor();
      const account = await openAccount(key);
      expect((await place(key, account, { symbol: "SOL-USD", side: "BUY", kind: "MARKET", quantity: 1 })).status).toBe(
        201,
      );
      const stop = await place(key, account, {
        symbol: "SOL-USD",
        side: "SELL",
        kind: "STOP",
        quantity: 1,
        trigger_price: 90,
        reduce_only: true,
      });
      const parent = await place(key, account, restingBuy(account));
      const child = await place(key, account, {
        ...restingBuy(account, 110_000),
        side: "SELL",
        parent_order_id: (parent.body.order as Row).order_id,
      });
      const eth = await place(key, account, {
        symbol: "ETH-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: 0.01,
        limit_price: 2_000,
      });
      const ids = (...responses: JsonResponse[]) => responses.map((r) => (r.body.order as Row).order_id);
      expect((child.body.order as Row).status).toBe("HELD");

      const onlyEth = await call(key, "DELETE", `/v1/account/${account}/orders?symbol=ETH-USD`);
      expect(onlyEth.status).toBe(200);
      expect(dataOf(onlyEth).map((o) => [o.order_id, o.status])).toEqual([[ids(eth)[0], "CANCELED"]]);

      const all = await call(key, "DELETE", `/v1/account/${account}/orders`);
      expect(all.status).toBe(200);
      expect(dataOf(all).map((o) => o.order_id)).toEqual(ids(stop, parent, child));
      expect(dataOf(all).every((o) => o.status === "CANCELED")).toBe(true);
      expect(await working(key, account)).toEqual([]);
      // The position is left alone.
      expect(await positions(key, account)).toHaveLength(1);
      // One order.cancel per order, as single cancels send them.
      const cancels = (await events(key, account)).filter((e) => e.type === "order.cancel");
      expect(cancels.map((e) => [e.data.order_id, e.data.reason])).toEqual([
        [ids(eth)[0], "user"],
        [ids(stop)[0], "user"],
        [ids(parent)[0], "user"],
        [ids(child)[0], "parent_canceled"],
      ]);

      const again = await call(key, "DELETE", `/v1/account/${account}/orders`);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ data: [] });
    });

    it("run twice at once, cancels each order once", async () => {
      const key = await keyFor();
      const account = await openAccount(key);
      const placed: string[] = [];
      for (let i = 0; i < 8; i++) {
        placed.push(String(((await place(key, account, restingBuy(account, 80_000 + i))).body.order as Row).order_id));
      }
      const both = await Promise.all([0, 1].map(() => call(key, "DELETE", `/v1/account/${account}/orders`)));
      const canceled = both.flatMap((r) => dataOf(r).map((o) => String(o.order_id)));
      // One call canceled them all, the other answered none (never both, never some each: one step each).
      expect(both.map((r) => dataOf(r).length).sort()).toEqual([0, 8]);
      expect(canceled).toEqual(placed);
      const cancels = (await events(key, account)).filter((e) => e.type === "order.cancel");
      expect(cancels).toHaveLength(8);
    });

    it("answers 400 for an unknown symbol or query field, 404 for another user's account, 403 without MANAGE_ORDERS", async () => {
      const key = await keyFor();
      const account = await openAccount(key);
      const unknown = await call(key, "DELETE", `/v1/account/${account}/orders?symbol=NOPE-USD`);
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({ error: "invalid_payload", issues: [{ path: "symbol" }] });
      const extra = await call(key, "DELETE", `/v1/account/${account}/orders?side=BUY`);
      expect(extra.status).toBe(400);
      expect(extra.body).toMatchObject({ issues: [{ path: "side", message: "unknown field" }] });
      const other = await keyFor();
      expect((await call(other, "DELETE", `/v1/account/${account}/orders`)).body).toEqual({ error: "not_found" });
      expect((await call(other, "DELETE", `/v1/account/not-a-uuid/orders`)).status).toBe(404);
      const trader = await keyFor(["READ_ONLY", "TRADE"]);
      expect((await call(trader, "DELETE", `/v1/account/${account}/orders`)).status).toBe(403);
    });

    it("raced against placements, leaves no order placed before its step working", async () => {
      const key = await keyFor();
      const account = await openAccount(key);
      const placements = Array.from({ length: 20 }, (_, i) => place(key, account, restingBuy(account, 80_000 + i)));
      const canceling = call(key, "DELETE", `/v1/account/${account}/orders`);
      const later = Array.from({ length: 4 }, (_, i) => place(key, account, restingBuy(account, 70_000 + i)));
      const placed = await Promise.all([...placements, ...later]);
      const canceled = await canceling;
      expect(canceled.status).toBe(200);
      const placedIds = placed.filter((r) => r.status === 201).map((r) => String((r.body.order as Row).order_id));
      const canceledIds = dataOf(canceled).map((o) => String(o.order_id));
      const left = (await working(key, account)).map((o) => String(o.order_id));
      // Every accepted order is canceled by the call or still works, never both, never neither.
      expect([...canceledIds, ...left].sort()).toEqual([...placedIds].sort());
      // The call is one step: every order acknowledged before its cancels is among them, and every order still
      // working was acknowledged after them.
      const log = await events(key, account);
      const cancelSeqs = log.filter((e) => e.type === "order.cancel").map((e) => e.sequence);
      const ackSeq = new Map(
        log.filter((e) => e.type === "order.ack").map((e) => [String(e.data.order_id), e.sequence]),
      );
      if (cancelSeqs.length > 0) {
        const first = Math.min(...cancelSeqs);
        const last = Math.max(...cancelSeqs);
        expect(last - first + 1).toBe(cancelSeqs.length);
        for (const id of left) expect(ackSeq.get(id)).toBeGreaterThan(last);
        for (const id of canceledIds) expect(ackSeq.get(id)).toBeLessThan(first);
      } else {
        for (const id of left) expect(ackSeq.has(id)).toBe(true);
        expect(left).toHaveLength(placedIds.length);
      }
    });
  });

  describe("POST /v1/account/:id/flatten", () => {
    it("cancels every order and closes every position at the market in one call, a stop once its position closed", async () => {
      const key = await keyFor();
      const account = await openAccount(key);
      await place(key, account, { symbol: "SOL-USD", side: "BUY", kind: "MARKET", quantity: 2 });
      await place(key, account, { symbol: "ETH-USD", side: "SELL", kind: "MARKET", quantity: 0.1 });
      const stop = await place(key, account, {
        symbol: "SOL-USD",
        side: "SELL",
        kind: "STOP",
        quantity: 2,
        trigger_price: 90,
        reduce_only: true,
      });
      const resting = await place(key, account, restingBuy(account));
      const flat = await call(key, "POST", `/v1/account/${account}/flatten`);
      expect(flat.status).toBe(200);
      const canceled = flat.body.canceled as Row[];
      // The entry first; the stop protects SOL until SOL's close filled it whole.
      const [restingId, stopId] = [resting, stop].map((r) => (r.body.order as Row).order_id);
      expect(canceled.map((o) => [o.order_id, o.status])).toEqual([
        [restingId, "CANCELED"],
        [stopId, "CANCELED"],
      ]);
      const closes = flat.body.closes as Row[];
      expect(closes.map((c) => c.symbol)).toEqual(["SOL-USD", "ETH-USD"]);
      for (const close of closes) {
        expect(close.order).toMatchObject({ kind: "MARKET", reduce_only: true, status: "FILLED" });
        expect((close.fills as Row[]).length).toBeGreaterThan(0);
        expect(close).toMatchObject({ violations: [], issues: [], kept_orders: [] });
      }
      const cancels = (await events(key, account)).filter((e) => e.type === "order.cancel");
      expect(cancels.map((e) => [e.data.order_id, e.data.reason])).toEqual([
        [restingId, "user"],
        [stopId, "reduce_only_no_position"],
      ]);
      // SOL closed at 100 with the GMX fee of 0.06% on 200 USD.
      expect((closes[0]?.fills as Row[])[0]).toMatchObject({ price: 100, quantity: 2, fee: 0.12 });
      expect(flat.body.positions).toEqual([]);
      expect(await positions(key, account)).toEqual([]);
      expect(await working(key, account)).toEqual([]);
      const history = dataOf(await call(key, "GET", `/v1/account/${account}/positions/history`));
      expect(history).toHaveLength(2);
      // A flat account answers an empty flatten.
      const again = await call(key, "POST", `/v1/account/${account}/flatten`);
      expect(again.body).toEqual({ canceled: [], closes: [], positions: [] });
    });

    it("run twice at once, cancels and closes each thing once and never opens the other way", async () => {
      const key = await keyFor();
      const account = await openAccount(key);
      await place(key, account, { symbol: "SOL-USD", side: "BUY", kind: "MARKET", quantity: 3 });
      await place(key, account, { symbol: "ETH-USD", side: "SELL", kind: "MARKET", quantity: 0.2 });
      for (let i = 0; i < 5; i++) await place(key, account, restingBuy(account, 80_000 + i));
      const [first, second] = await Promise.all([0, 1].map(() => call(key, "POST", `/v1/account/${account}/flatten`)));
      const canceled = [first, second].flatMap((r) => (r?.body.canceled as Row[]).map((o) => String(o.order_id)));
      const closed = [first, second].flatMap((r) => (r?.body.closes as Row[]).map((c) => String(c.symbol)));
      expect(canceled).toHaveLength(5);
      expect(new Set(canceled).size).toBe(5);
      expect(closed.sort()).toEqual(["ETH-USD", "SOL-USD"]);
      expect(await positions(key, account)).toEqual([]);
      expect(await working(key, account)).toEqual([]);
    });

    it("answers 404 for another user's account and 403 for a key without MANAGE_ORDERS", async () => {
      const key = await keyFor();
      const account = await openAccount(key);
      expect((await call(await keyFor(), "POST", `/v1/account/${account}/flatten`)).status).toBe(404);
      expect((await call(await keyFor(["READ_ONLY"]), "POST", `/v1/account/${account}/flatten`)).status).toBe(403);
      // MANAGE_ORDERS alone passes the scope check: 404 here, for another user's account.
      expect((await call(await keyFor(["MANAGE_ORDERS"]), "POST", `/v1/account/${account}/flatten`)).status).toBe(404);
    });

    it("is 403 for a TRADE-only key of the account's user, canceling and closing nothing, as a single cancel is", async () => {
      const user = `bulk-user-${++users}`;
      const trader = await newKey(api, user, { label: "trader", permissions: ["READ_ONLY", "TRADE"] });
      const manager = await newKey(api, user, { label: "manager", permissions: ["MANAGE_ORDERS"] });
      const account = await openAccount(trader);
      expect(
        (await place(trader, account, { symbol: "SOL-USD", side: "BUY", kind: "MARKET", quantity: 1 })).status,
      ).toBe(201);
      const stop = await place(trader, account, {
        symbol: "SOL-USD",
        side: "SELL",
        kind: "STOP",
        quantity: 1,
        trigger_price: 90,
        reduce_only: true,
      });
      const resting = await place(trader, account, restingBuy(account));
      const ids = [stop, resting].map((r) => (r.body.order as Row).order_id);

      const refused = await call(trader, "POST", `/v1/account/${account}/flatten`);
      expect([refused.status, refused.body]).toEqual([
        403,
        {
          error: "permission_denied",
          required_scope: "MANAGE_ORDERS",
          message: "this key lacks the MANAGE_ORDERS scope",
        },
      ]);
      // The same answer a TRADE-only key gets for a single cancel and for cancel-all.
      const single = await call(trader, "DELETE", `/v1/order/${String(ids[0])}`);
      const all = await call(trader, "DELETE", `/v1/account/${account}/orders`);
      expect([single.status, single.body]).toEqual([refused.status, refused.body]);
      expect([all.status, all.body]).toEqual([refused.status, refused.body]);
      // Nothing was canceled or closed.
      expect((await working(trader, account)).map((o) => [o.order_id, o.status])).toEqual([
        [ids[0], "NEW"],
        [ids[1], "NEW"],
      ]);
      expect(await positions(trader, account)).toHaveLength(1);
      expect((await events(trader, account)).filter((e) => e.type === "order.cancel")).toEqual([]);

      // A MANAGE_ORDERS key of the same user flattens it.
      const flat = await call(manager, "POST", `/v1/account/${account}/flatten`);
      expect(flat.status).toBe(200);
      expect((flat.body.canceled as Row[]).map((o) => o.order_id)).toEqual([ids[1], ids[0]]);
      expect(flat.body.closes).toMatchObject([{ symbol: "SOL-USD", order: { status: "FILLED" }, kept_orders: [] }]);
      expect(await positions(trader, account)).toEqual([]);
      expect(await working(trader, account)).toEqual([]);
    });

    it("raced against placements, leaves no order working and no position open at its step", async () => {
      const key = await keyFor();
      const account = await openAccount(key);
      const orders: Row[] = [];
      for (let i = 0; i < 24; i++) {
        orders.push(
          i % 3 === 0
            ? { symbol: "SOL-USD", side: i % 2 === 0 ? "BUY" : "SELL", kind: "MARKET", quantity: 1 }
            : restingBuy(account, 80_000 + i),
        );
      }
      const racing = orders.map((order, i) =>
        i === 12 ? call(key, "POST", `/v1/account/${account}/flatten`) : place(key, account, order),
      );
      const answers = await Promise.all(racing);
      const flat = answers[12];
      expect(flat?.status).toBe(200);
      // Replay the account's events: at the flatten's last event nothing works and nothing is open.
      const closingIds = new Set((flat?.body.closes as Row[]).map((c) => (c.order as Row | null)?.order_id));
      const log = await events(key, account);
      const flattenSeqs = log
        .filter((e) => (e.type === "order.fill" || e.type === "order.ack") && closingIds.has(e.data.order_id))
        .map((e) => e.sequence);
      for (const o of flat?.body.canceled as Row[]) {
        flattenSeqs.push(log.find((e) => e.type === "order.cancel" && e.data.order_id === o.order_id)?.sequence ?? -1);
      }
      const end = flattenSeqs.length === 0 ? 0 : Math.max(...flattenSeqs);
      const quantity = new Map<string, number>();
      const filled = new Map<string, number>();
      const open = new Set<string>();
      const net = new Map<string, number>();
      for (const e of log.filter((e) => e.sequence <= end)) {
        const id = String(e.data.order_id);
        if (e.type === "order.ack" && e.data.status !== "REJECTED") {
          open.add(id);
          quantity.set(id, steps(e.data.quantity));
        } else if (e.type === "order.cancel") {
          open.delete(id);
        } else if (e.type === "order.fill") {
          const total = (filled.get(id) ?? 0) + steps(e.data.quantity);
          filled.set(id, total);
          if (total === quantity.get(id)) open.delete(id);
          const signed = (e.data.side === "BUY" ? 1 : -1) * steps(e.data.quantity);
          net.set(String(e.data.symbol), (net.get(String(e.data.symbol)) ?? 0) + signed);
        }
      }
      expect([...open]).toEqual([]);
      expect([...net.values()].filter((n) => n !== 0)).toEqual([]);
      // What is left now was placed after the flatten's step, and answered as its own placement did.
      const ackAfter = new Set(
        log.filter((e) => e.type === "order.ack" && e.sequence > end).map((e) => String(e.data.order_id)),
      );
      for (const order of await working(key, account)) expect(ackAfter.has(String(order.order_id))).toBe(true);
      const netAfter = log
        .filter((e) => e.type === "order.fill" && e.sequence > end)
        .reduce((sum, e) => sum + (e.data.side === "BUY" ? 1 : -1) * steps(e.data.quantity), 0);
      const openNow = (await positions(key, account)).reduce(
        (sum, p) => sum + (p.side === "BUY" ? 1 : -1) * steps(p.quantity),
        0,
      );
      expect(openNow).toBe(netAfter);
    });
  });

  describe("cancel-all and flatten refused 400", () => {
    it("for a body with fields or a query field flatten does not read, canceling and closing nothing", async () => {
      const key = await keyFor();
      const account = await openAccount(key);
      for (const order of [
        { symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" },
        { symbol: "ETH-USD", side: "BUY", kind: "MARKET", quantity: "0.01" },
        { symbol: "BTC-USD", side: "SELL", kind: "STOP", quantity: "0.001", trigger_price: 90_000, reduce_only: true },
        { symbol: "ETH-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: 2_000 },
      ]) {
        expect((await place(key, account, order)).status).toBe(201);
      }
      const before = { working: await working(key, account), positions: await positions(key, account) };
      expect(before.working).toHaveLength(2);
      expect(before.positions).toHaveLength(2);
      const unknown = (path: string) => ({ error: "invalid_payload", issues: [{ path, message: "unknown field" }] });

      const cancelWithBody = await call(key, "DELETE", `/v1/account/${account}/orders`, { symbol: "ETH-USD" });
      expect([cancelWithBody.status, cancelWithBody.body]).toEqual([400, unknown("symbol")]);
      const flattenWithQuery = await call(key, "POST", `/v1/account/${account}/flatten?symbol=ETH-USD`);
      expect([flattenWithQuery.status, flattenWithQuery.body]).toEqual([400, unknown("symbol")]);
      const flattenWithBody = await call(key, "POST", `/v1/account/${account}/flatten`, { symbol: "ETH-USD" });
      expect([flattenWithBody.status, flattenWithBody.body]).toEqual([400, unknown("symbol")]);
      expect({ working: await working(key, account), positions: await positions(key, account) }).toEqual(before);
      expect((await events(key, account)).filter((e) => e.type === "order.cancel")).toEqual([]);

      // The scope is checked first (403 for a key without MANAGE_ORDERS, a TRADE-only one too), the body before the
      // engine looks the account up (as a query is): another user's account is 400 with a body, 404 with an empty one.
      for (const scopes of [["READ_ONLY"], ["READ_ONLY", "TRADE"]]) {
        const refused = await call(await keyFor(scopes), "POST", `/v1/account/${account}/flatten`, {
          symbol: "ETH-USD",
        });
        expect([refused.status, refused.body]).toEqual([
          403,
          {
            error: "permission_denied",
            required_scope: "MANAGE_ORDERS",
            message: "this key lacks the MANAGE_ORDERS scope",
          },
        ]);
      }
      const other = await keyFor();
      expect((await call(other, "POST", `/v1/account/${account}/flatten`, { symbol: "ETH-USD" })).status).toBe(400);
      expect((await call(other, "POST", `/v1/account/${account}/flatten`, {})).status).toBe(404);
      expect((await call(other, "DELETE", `/v1/account/${account}/orders`, {})).status).toBe(404);
      // An empty object is no body.
      const canceled = await call(key, "DELETE", `/v1/account/${account}/orders?symbol=ETH-USD`, {});
      expect(dataOf(canceled).map((o) => o.symbol)).toEqual(["ETH-USD"]);
      const flat = await call(key, "POST", `/v1/account/${account}/flatten`, {});
      expect(flat.status).toBe(200);
      expect((flat.body.closes as Row[]).map((c) => c.symbol).sort()).toEqual(["BTC-USD", "ETH-USD"]);
    });
  });

  describe("POST /v1/orders/batch", () => {
    it("judges each order in turn as POST /v1/order would and answers it in its place", async () => {
      const key = await keyFor();
      const account = await openAccount(key);
      const stranger = await openAccount(await keyFor());
      const batch = await call(key, "POST", "/v1/orders/batch", {
        orders: [
          { ...restingBuy(account), client_id: "b-1" },
          { ...restingBuy(account), quantity: "abc" },
          // 7,920 USD of margin at leverage 2: fits the 10,000 USD account...
          { account_id: account, symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.16", limit_price: 99_000 },
          // ...and this one (2,990 USD of margin, which alone would fit) no longer does beside it.
          { account_id: account, symbol: "ETH-USD", side: "BUY", kind: "LIMIT", quantity: "2", limit_price: 2_990 },
          { ...restingBuy(stranger) },
          { ...restingBuy(account), client_id: "b-1" },
          { ...restingBuy(account, 91_000), client_id: "b-1" },
        ],
      });
      expect(batch.status).toBe(200);
      const items = batch.body.data as { status: number; replayed: boolean; body: Row }[];
      expect(items.map((i) => [i.status, i.replayed])).toEqual([
        [201, false],
        [400, false],
        [201, false],
        [200, false],
        [404, false],
        [200, true],
        [409, false],
      ]);
      expect(items[1]?.body).toMatchObject({ error: "invalid_payload", issues: [{ path: "quantity" }] });
      expect(items[3]?.body).toMatchObject({
        order: { status: "REJECTED" },
        violations: [{ rule: "insufficient_margin", severity: "critical" }],
      });
      expect(items[4]?.body).toEqual({ error: "not_found" });
      expect(items[5]?.body).toEqual(items[0]?.body);
      expect(items[6]?.body).toMatchObject({ error: "conflict", client_id: "b-1" });
      // The same body POST /v1/order answers for the client_id now.
      const single = await place(key, account, { ...restingBuy(account), client_id: "b-1" });
      expect(single.status).toBe(200);
      expect(single.headers.get("idempotent-replayed")).toBe("true");
      expect(single.body).toEqual(items[0]?.body);
      expect((await working(key, account)).map((o) => o.order_id)).toEqual([
        (items[0]?.body.order as Row).order_id,
        (items[2]?.body.order as Row).order_id,
      ]);
    });

    it("judges orders of several of the caller's accounts, each on its own account, in the given order", async () => {
      const key = await keyFor();
      const [a, b] = [await openAccount(key), await openAccount(key)];
      // 15,840 USD of BTC-USD each: a second one on `a` passes its 25,000 USD symbol cap, the one on `b` does not.
      const big = (account: string): Row => ({ ...restingBuy(account, 99_000), quantity: "0.16" });
      const answer = await call(key, "POST", "/v1/orders/batch", { orders: [big(a), big(b), big(a)] });
      const items = answer.body.data as { status: number; body: Row }[];
      expect(items.map((i) => [i.status, (i.body.order as Row).account_id, (i.body.order as Row).status])).toEqual([
        [201, a, "NEW"],
        [201, b, "NEW"],
        [200, a, "REJECTED"],
      ]);
      expect(items[2]?.body.violations).toMatchObject([{ rule: "exposure_cap", severity: "critical" }]);
      // Symbols are read in any spelling placement reads.
      expect(dataOf(await call(key, "DELETE", `/v1/account/${b}/orders?symbol=btcusd`))).toHaveLength(1);
    });

    it("answers 400 for no orders, more than 20, or a body of another shape; 403 for a read-only key", async () => {
      const key = await keyFor();
      const account = await openAccount(key);
      const cases: [unknown, string][] = [
        [{ orders: [] }, "must hold at least one order"],
        [{ orders: Array.from({ length: 21 }, () => restingBuy(account)) }, "must hold at most 20 orders"],
        [{}, "required"],
        [{ orders: restingBuy(account) }, "must be an array of orders"],
      ];
      for (const [body, message] of cases) {
        const answer = await call(key, "POST", "/v1/orders/batch", body);
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ error: "invalid_payload", issues: [{ path: "orders", message }] });
      }
      const extra = await call(key, "POST", "/v1/orders/batch", { orders: [restingBuy(account)], dry_run: true });
      expect(extra.body).toMatchObject({ issues: [{ path: "dry_run", message: "unknown field" }] });
      const notJson = await v1(base, "/v1/orders/batch", key, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{",
      });
      expect(notJson.status).toBe(400);
      expect(await working(key, account)).toEqual([]);
      const reader = await keyFor(["READ_ONLY"]);
      expect((await call(reader, "POST", "/v1/orders/batch", { orders: [restingBuy(account)] })).status).toBe(403);
    });

    it("two batches at once on one account never pass the working-order cap", async () => {
      const key = await keyFor();
      const account = await openAccount(key);
      const batch = () =>
        call(key, "POST", "/v1/orders/batch", {
          orders: Array.from({ length: 20 }, (_, i) => restingBuy(account, 60_000 + i)),
        });
      const answers = await Promise.all([batch(), batch()]);
      const items = answers.flatMap((a) => a.body.data as { status: number; body: Row }[]);
      expect(items.filter((i) => i.status === 201)).toHaveLength(MAX_WORKING);
      const refused = items.filter((i) => i.status !== 201);
      expect(refused).toHaveLength(40 - MAX_WORKING);
      for (const item of refused) expect(item).toMatchObject({ status: 409, body: { error: "order_limit_reached" } });
      expect(await working(key, account)).toHaveLength(MAX_WORKING);
    });

    it("two batches at once with the same client_ids place each order once", async () => {
      const key = await keyFor();
      const account = await openAccount(key);
      const batch = () =>
        call(key, "POST", "/v1/orders/batch", {
          orders: Array.from({ length: 10 }, (_, i) => ({
            ...restingBuy(account, 60_000 + i),
            client_id: `twin-${i}`,
          })),
        });
      const [a, b] = await Promise.all([batch(), batch()]);
      const first = a?.body.data as { status: number; replayed: boolean; body: Row }[];
      const second = b?.body.data as { status: number; replayed: boolean; body: Row }[];
      for (let i = 0; i < 10; i++) {
        const pair = [first[i], second[i]];
        expect(pair.map((p) => p?.status).sort()).toEqual([200, 201]);
        expect(pair.filter((p) => p?.replayed === true)).toHaveLength(1);
        expect((pair[0]?.body.order as Row).order_id).toBe((pair[1]?.body.order as Row).order_id);
      }
      expect(await working(key, account)).toHaveLength(10);
    });
  });

  describe("rate limit", () => {
    it("counts a batch as one request per order and refuses, doing nothing, one the budget cannot hold", async () => {
      const key = await keyFor();
      const account = await openAccount(key); // 1
      const first = await call(key, "POST", "/v1/orders/batch", {
        orders: Array.from({ length: 20 }, (_, i) => restingBuy(account, 50_000 + i)),
      });
      expect(first.status).toBe(200);
      expect(remainingOf(first)).toBe(RATE_LIMIT - 21);
      // Spend the budget down to 19.
      const spend = RATE_LIMIT - 21 - 19;
      for (let i = 0; i < spend; i++) expect((await call(key, "GET", "/v1/tickers")).status).toBe(200);
      const refused = await call(key, "POST", "/v1/orders/batch", {
        orders: Array.from({ length: 20 }, (_, i) => restingBuy(account, 40_000 + i)),
      });
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: "rate_limited" });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      // Nothing of it was placed, and nothing was charged: 19 orders still fit, and then nothing does.
      const fits = await call(key, "POST", "/v1/orders/batch", {
        orders: Array.from({ length: 19 }, () => ({
          account_id: account,
          symbol: "ETH-USD",
          side: "BUY",
          kind: "LIMIT",
          quantity: 0.01,
          limit_price: 1_000,
        })),
      });
      expect(fits.status).toBe(200);
      expect(remainingOf(fits)).toBe(0);
      expect((await call(key, "GET", "/v1/tickers")).status).toBe(429);
    });

    it("counts cancel-all, flatten and a batch it refuses 400 as one request each", async () => {
      const key = await keyFor();
      const account = await openAccount(key);
      const before = remainingOf(await call(key, "GET", "/v1/tickers"));
      await place(key, account, restingBuy(account));
      await place(key, account, restingBuy(account, 91_000));
      const canceled = await call(key, "DELETE", `/v1/account/${account}/orders`);
      expect(dataOf(canceled)).toHaveLength(2);
      expect(remainingOf(canceled)).toBe(before - 3);
      expect(remainingOf(await call(key, "POST", `/v1/account/${account}/flatten`))).toBe(before - 4);
      const tooMany = await call(key, "POST", "/v1/orders/batch", {
        orders: Array.from({ length: 21 }, () => restingBuy(account)),
      });
      expect(tooMany.status).toBe(400);
      expect(remainingOf(tooMany)).toBe(before - 5);
      // A key without TRADE is refused 403 for one request, its batch unread.
      const reader = await keyFor(["READ_ONLY"]);
      const fresh = remainingOf(await call(reader, "GET", "/v1/tickers"));
      const forbidden = await call(reader, "POST", "/v1/orders/batch", {
        orders: Array.from({ length: 20 }, () => restingBuy(account)),
      });
      expect(forbidden.status).toBe(403);
      expect(remainingOf(forbidden)).toBe(fresh - 1);
    });
  });
});
