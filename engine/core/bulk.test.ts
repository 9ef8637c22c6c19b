import { describe, expect, it } from "vitest";
import { replay, type ReplyByCommand } from "../core.js";
import { ACCOUNT_ID, Harness, PLAN } from "../core.testing.js";

const FRIDAY_NOON = Date.parse("2026-11-27T12:00:00.000Z");
const SATURDAY_NOON = Date.parse("2026-11-28T12:00:00.000Z");

function cancelAll(h: Harness, symbol?: string): ReplyByCommand["CancelAll"] {
  return h.run({ type: "CancelAll", request: { account_id: ACCOUNT_ID, symbol: symbol ?? null } });
}

function flatten(h: Harness): ReplyByCommand["Flatten"] {
  return h.run({ type: "Flatten", request: { account_id: ACCOUNT_ID } });
}

/**
 * An account with a long BTC-USD position protected by a reduce-only stop, a working bracket (a resting parent
 * and its HELD take-profit), a partially filled ETH-USD limit and a resting ETH-USD limit.
 */
function busy() {
  const h = new Harness().open(PLAN.c10k);
  h.quote("BTC-USD", "100000", { depth: 10 });
  h.quote("ETH-USD", "3000", { depth: 10 });
  h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
  const stop = h.placed({
    symbol: "BTC-USD",
    side: "SELL",
    kind: "STOP",
    quantity: "0.01",
    trigger_price: "95000",
    reduce_only: true,
  }).order;
  const parent = h.placed({
    symbol: "BTC-USD",
    side: "BUY",
    kind: "LIMIT",
    quantity: "0.01",
    limit_price: "98000",
  }).order;
  const child = h.placed({
    symbol: "BTC-USD",
    side: "SELL",
    kind: "LIMIT",
    quantity: "0.01",
    limit_price: "105000",
    parent_order_id: parent.order_id,
  }).order;
  // A thin book: the limit at the mark takes what the level holds and rests with the rest.
  h.quote("ETH-USD", "3000", { depth: 1 });
  const partial = h.placed({
    symbol: "ETH-USD",
    side: "BUY",
    kind: "LIMIT",
    quantity: "0.5",
    limit_price: "3000",
  }).order;
  const resting = h.placed({
    symbol: "ETH-USD",
    side: "BUY",
    kind: "LIMIT",
    quantity: "0.1",
    limit_price: "2900",
  }).order;
  return { h, stop, parent, child, partial, resting };
}

describe("CancelAll", () => {
  it("cancels every working order in one decision and answers them, a parent's HELD child included", () => {
    const { h, stop, parent, child, partial, resting } = busy();
    expect(h.order(partial.order_id).status).toBe("PARTIALLY_FILLED");
    expect(h.order(child.order_id).status).toBe("HELD");
    const outboxBefore = h.outbox.length;
    const positionsBefore = h.account.positions;
    const reply = cancelAll(h);
    if (reply.kind !== "canceled") throw new Error(JSON.stringify(reply));
    expect(reply.orders.map((o) => o.order_id)).toEqual([
      stop.order_id,
      parent.order_id,
      child.order_id,
      partial.order_id,
      resting.order_id,
    ]);
    expect(reply.orders.every((o) => o.status === "CANCELED")).toBe(true);
    expect(h.lastEvents.map((e) => e.type)).toEqual(Array<string>(5).fill("OrderCanceled"));
    expect(h.lastEvents.map((e) => (e.type === "OrderCanceled" ? e.reason : ""))).toEqual([
      "user",
      "user",
      "parent_canceled",
      "user",
      "user",
    ]);
    expect(h.account.working.size).toBe(0);
    expect(h.account.reserved_margin).toBe(0);
    // Each cancel is an order.cancel webhook, as a single cancel sends.
    const cancels = h.outbox.slice(outboxBefore).filter((entry) => entry.type === "order.cancel");
    expect(cancels).toHaveLength(5);
    expect(cancels.map((entry) => (JSON.parse(entry.data) as { reason: string }).reason)).toEqual([
      "user",
      "user",
      "parent_canceled",
      "user",
      "user",
    ]);
    // The position stays: cancel-all touches orders only.
    expect(h.account.positions).toEqual(positionsBefore);
    expect(replay(h.journal)).toEqual(h.state);
  });

  it("answers an empty list, with no event, when nothing works any more", () => {
    const { h } = busy();
    cancelAll(h);
    expect(cancelAll(h)).toEqual({ kind: "canceled", orders: [] });
    expect(h.lastEvents).toEqual([]);
  });

  it("cancels only the orders of the symbol it names, and refuses an unknown symbol", () => {
    const { h, partial, resting } = busy();
    const reply = cancelAll(h, "eth/usd");
    if (reply.kind !== "canceled") throw new Error(JSON.stringify(reply));
    expect(reply.orders.map((o) => o.order_id)).toEqual([partial.order_id, resting.order_id]);
    expect([...h.account.working.values()].every((o) => o.symbol === "BTC-USD")).toBe(true);
    expect(h.account.working.size).toBe(3);
    expect(cancelAll(h, "NOPE-USD")).toEqual({
      kind: "error",
      code: "invalid_payload",
      fields: { issues: [{ path: "symbol", message: "unknown symbol; see GET /v1/tickers" }] },
    });
    expect(replay(h.journal)).toEqual(h.state);
  });

  it("leaves out what a dead-man's switch whose deadline came canceled first in the same decision", () => {
    const { h, stop, resting } = busy();
    h.run({ type: "SetCancelAfter", request: { account_id: ACCOUNT_ID, timeout_ms: 1_000 } });
    h.now += 2_000;
    const reply = cancelAll(h);
    if (reply.kind !== "canceled") throw new Error(JSON.stringify(reply));
    const reasons = new Map(h.lastEvents.flatMap((e) => (e.type === "OrderCanceled" ? [[e.order_id, e.reason]] : [])));
    // The switch canceled what could add exposure (the resting limit among it) and kept the protective stop,
    // which cancel-all then canceled: the answer lists only its own cancels.
    expect(reasons.get(resting.order_id)).toBe("cancel_after");
    expect(reply.orders.map((o) => o.order_id)).toEqual([stop.order_id]);
    expect(reasons.get(stop.order_id)).toBe("user");
    expect(h.account.working.size).toBe(0);
    expect(replay(h.journal)).toEqual(h.state);
  });

  it("answers 404 for another account id", () => {
    const { h } = busy();
    expect(h.run({ type: "CancelAll", request: { account_id: "0a0a0a0a-0000-4000-8000-0000000000ff" } })).toMatchObject(
      { kind: "error", code: "not_found" },
    );
  });
});

describe("Flatten", () => {
  it("cancels the orders that protect nothing, then closes every position, whose protection goes with its close", () => {
    const { h, stop, parent, child, partial, resting } = busy();
    h.placed({ symbol: "ETH-USD", side: "SELL", kind: "MARKET", quantity: "0.2" });
    expect(h.account.positions.size).toBe(2);
    const outboxBefore = h.outbox.length;
    const reply = flatten(h);
    if (reply.kind !== "flattened") throw new Error(JSON.stringify(reply));
    // The entries first (the bracket's HELD child with its parent), then the stop when its position closed whole.
    expect(reply.canceled.map((o) => o.order_id)).toEqual([
      parent.order_id,
      child.order_id,
      partial.order_id,
      resting.order_id,
      stop.order_id,
    ]);
    expect(reply.canceled.map((o) => o.status)).toEqual(Array<string>(5).fill("CANCELED"));
    expect(reply.closes).toHaveLength(2);
    for (const close of reply.closes) {
      expect(close.order).toMatchObject({ kind: "MARKET", reduce_only: true, status: "FILLED" });
      expect(close.fills.length).toBeGreaterThan(0);
      expect(close.violations).toEqual([]);
      expect(close.issues).toEqual([]);
      expect(close.kept_orders).toEqual([]);
    }
    expect(reply.closes.map((c) => c.symbol)).toEqual(["BTC-USD", "ETH-USD"]);
    expect(reply.positions).toEqual([]);
    expect(h.account.positions.size).toBe(0);
    expect(h.account.working.size).toBe(0);
    // Cancels first, then each close's ack and fills; the BTC stop goes right after the fill that closed BTC.
    const orderEvents = h.lastEvents.filter((e) => e.type.startsWith("Order"));
    const cancels = orderEvents.flatMap((e) => (e.type === "OrderCanceled" ? [[e.order_id, e.reason]] : []));
    expect(cancels).toEqual([
      [parent.order_id, "user"],
      [child.order_id, "parent_canceled"],
      [partial.order_id, "user"],
      [resting.order_id, "user"],
      [stop.order_id, "reduce_only_no_position"],
    ]);
    expect(orderEvents.slice(0, 4).map((e) => e.type)).toEqual(Array<string>(4).fill("OrderCanceled"));
    const stopAt = orderEvents.findIndex((e) => e.type === "OrderCanceled" && e.order_id === stop.order_id);
    expect(orderEvents[stopAt - 1]?.type).toBe("OrderFilled");
    expect(h.outbox.slice(outboxBefore).filter((e) => e.type === "position.close")).toHaveLength(2);
    expect(replay(h.journal)).toEqual(h.state);
  });

  it("keeps the stop-loss and take-profit of a position whose market is closed working, and answers them", () => {
    const h = new Harness(FRIDAY_NOON).open(PLAN.c200k, "OSTIUM");
    h.quote("EUR-USD", "1.08452");
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "EUR-USD", side: "BUY", kind: "MARKET", quantity: 10_000 });
    const exit = { symbol: "EUR-USD", side: "SELL", quantity: 10_000, reduce_only: true } as const;
    const stopLoss = h.placed({ ...exit, kind: "STOP", trigger_price: "1.07" }).order;
    const takeProfit = h.placed({ ...exit, kind: "TAKE_PROFIT", trigger_price: "1.1" }).order;
    const entry = h.placed({ symbol: "EUR-USD", side: "BUY", kind: "LIMIT", quantity: 10_000, limit_price: "1.05" });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
    const btcStop = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "90000",
      reduce_only: true,
    }).order;
    // Saturday: the forex market is closed, crypto trades.
    h.now = SATURDAY_NOON;
    h.quote("EUR-USD", "1.08452");
    h.quote("BTC-USD", "100000");
    const outboxBefore = h.outbox.length;
    const reply = flatten(h);
    if (reply.kind !== "flattened") throw new Error(JSON.stringify(reply));
    const [eur, btc] = reply.closes;
    expect(eur).toMatchObject({
      symbol: "EUR-USD",
      order: { status: "REJECTED" },
      fills: [],
      violations: [{ rule: "market_closed", severity: "critical" }],
    });
    expect(eur?.kept_orders.map((o) => [o.order_id, o.status])).toEqual([
      [stopLoss.order_id, "NEW"],
      [takeProfit.order_id, "NEW"],
    ]);
    expect(btc).toMatchObject({ symbol: "BTC-USD", order: { status: "FILLED" }, kept_orders: [] });
    expect(reply.canceled.map((o) => o.order_id)).toEqual([entry.order.order_id, btcStop.order_id]);
    expect(reply.positions).toEqual([expect.objectContaining({ symbol: "EUR-USD" })]);
    expect([...h.account.working.keys()]).toEqual([stopLoss.order_id, takeProfit.order_id]);
    // No order.cancel for the orders kept.
    const cancels = h.outbox.slice(outboxBefore).filter((e) => e.type === "order.cancel");
    expect(cancels.map((e) => (JSON.parse(e.data) as { order_id: string }).order_id)).toEqual([
      entry.order.order_id,
      btcStop.order_id,
    ]);
    expect(replay(h.journal)).toEqual(h.state);
  });

  it("keeps a position's protective orders when the book takes only part of its close", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { depth: 100 });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.05" });
    const exit = { symbol: "BTC-USD", side: "SELL", quantity: "0.05", reduce_only: true } as const;
    const stopLoss = h.placed({ ...exit, kind: "STOP", trigger_price: "95000" }).order;
    const takeProfit = h.placed({ ...exit, kind: "TAKE_PROFIT", trigger_price: "105000" }).order;
    h.quote("BTC-USD", "100000", { depth: 1 });
    const reply = flatten(h);
    if (reply.kind !== "flattened") throw new Error(JSON.stringify(reply));
    const close = reply.closes[0];
    expect(close?.order?.status).toBe("CANCELED");
    expect(close?.fills.length).toBeGreaterThan(0);
    expect(close?.kept_orders.map((o) => o.order_id)).toEqual([stopLoss.order_id, takeProfit.order_id]);
    expect(reply.canceled).toEqual([]);
    expect([...h.account.working.keys()]).toEqual([stopLoss.order_id, takeProfit.order_id]);
    expect(reply.positions).toEqual([expect.objectContaining({ symbol: "BTC-USD" })]);
    expect(replay(h.journal)).toEqual(h.state);
  });

  it("keeps the children of a partially filled parent while its position stays open, and cancels them once closed", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("ETH-USD", "3000", { depth: 1 });
    const parent = h.placed({ symbol: "ETH-USD", side: "BUY", kind: "LIMIT", quantity: "0.5", limit_price: "3000" });
    expect(parent.order.status).toBe("PARTIALLY_FILLED");
    const child = h.placed({
      symbol: "ETH-USD",
      side: "SELL",
      kind: "LIMIT",
      quantity: "0.5",
      limit_price: "3100",
      parent_order_id: parent.order.order_id,
    }).order;
    expect(child.status).toBe("NEW");
    h.quote("ETH-USD", "3000", { depth: 10, open: false });
    const closed = flatten(h);
    if (closed.kind !== "flattened") throw new Error(JSON.stringify(closed));
    // The parent is an entry (canceled); its child protects what it filled (kept).
    expect(closed.canceled.map((o) => o.order_id)).toEqual([parent.order.order_id]);
    expect(closed.closes[0]?.violations).toMatchObject([{ rule: "market_closed" }]);
    expect(closed.closes[0]?.kept_orders.map((o) => o.order_id)).toEqual([child.order_id]);
    expect(h.order(child.order_id).status).toBe("NEW");

    h.quote("ETH-USD", "3000", { depth: 10 });
    const open = flatten(h);
    if (open.kind !== "flattened") throw new Error(JSON.stringify(open));
    expect(open.closes[0]).toMatchObject({ order: { status: "FILLED" }, kept_orders: [] });
    expect(open.canceled.map((o) => o.order_id)).toEqual([child.order_id]);
    const reasons = h.lastEvents.flatMap((e) => (e.type === "OrderCanceled" ? [e.reason] : []));
    expect(reasons).toEqual(["reduce_only_no_position"]);
    expect(h.account.working.size).toBe(0);
    expect(replay(h.journal)).toEqual(h.state);
  });

  it("cancels orders of a symbol or venue without a position, reduce-only ones too, before any close", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { depth: 100 });
    h.quote("ETH-USD", "3000");
    // A bracket on OSTIUM whose parent filled part of it; that position is closed, the child still waits on its
    // parent's next fills.
    const parent = h.placed({
      symbol: "BTC-USD",
      venue: "OSTIUM",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.02",
      limit_price: "100000",
    }).order;
    expect(parent.status).toBe("PARTIALLY_FILLED");
    const child = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "TAKE_PROFIT",
      quantity: "0.02",
      trigger_price: "110000",
      parent_order_id: parent.order_id,
    }).order;
    expect(h.close({ symbol: "BTC-USD", venue: "OSTIUM" }).kind).toBe("created");
    expect(h.order(child.order_id).status).toBe("NEW");
    // A position on GMX with its stop, and an ETH limit with no ETH position.
    h.placed({ symbol: "BTC-USD", venue: "GMX", side: "BUY", kind: "MARKET", quantity: "0.03" });
    const stop = h.placed({
      symbol: "BTC-USD",
      venue: "GMX",
      side: "SELL",
      kind: "STOP",
      quantity: "0.03",
      trigger_price: "95000",
      reduce_only: true,
    }).order;
    const eth = h.placed({ symbol: "ETH-USD", side: "BUY", kind: "LIMIT", quantity: "0.1", limit_price: "2900" }).order;
    h.quote("BTC-USD", "100000", { depth: 1 });
    const reply = flatten(h);
    if (reply.kind !== "flattened") throw new Error(JSON.stringify(reply));
    expect(reply.canceled.map((o) => o.order_id)).toEqual([parent.order_id, child.order_id, eth.order_id]);
    const reasons = h.lastEvents.flatMap((e) => (e.type === "OrderCanceled" ? [[e.order_id, e.reason]] : []));
    expect(reasons.slice(0, 3)).toEqual([
      [parent.order_id, "user"],
      [child.order_id, "user"],
      [eth.order_id, "user"],
    ]);
    expect(reply.closes).toMatchObject([{ venue: "GMX", order: { status: "CANCELED" } }]);
    expect(reply.closes[0]?.kept_orders.map((o) => o.order_id)).toEqual([stop.order_id]);
    expect([...h.account.working.keys()]).toEqual([stop.order_id]);
    expect(replay(h.journal)).toEqual(h.state);
  });

  it("answers what a termination caused by a close canceled, and leaves nothing working", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { depth: 1000 });
    h.quote("ETH-USD", "3000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    const btcStop = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.1",
      trigger_price: "90000",
      reduce_only: true,
    }).order;
    h.placed({ symbol: "ETH-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    const ethStop = h.placed({
      symbol: "ETH-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.1",
      trigger_price: "2500",
      reduce_only: true,
    }).order;
    // 490 USD down on BTC and 6.18 USD of fees: under the 500 USD daily loss limit until the close's own fee.
    h.price("BTC-USD", "95100", { depth: 1000 });
    expect(h.account.state).not.toBe("TERMINATED");
    const reply = flatten(h);
    if (reply.kind !== "flattened") throw new Error(JSON.stringify(reply));
    expect(h.account.state).toBe("TERMINATED");
    // The BTC close ended the account: the termination canceled the ETH stop and closed ETH itself.
    expect(reply.closes).toMatchObject([{ symbol: "BTC-USD", order: { status: "FILLED" }, kept_orders: [] }]);
    expect(reply.canceled.map((o) => o.order_id)).toEqual([btcStop.order_id, ethStop.order_id]);
    const reasons = h.lastEvents.flatMap((e) => (e.type === "OrderCanceled" ? [e.reason] : []));
    expect(reasons).toEqual(["reduce_only_no_position", "risk"]);
    expect(reply.positions).toEqual([]);
    expect(h.account.working.size).toBe(0);
    expect(replay(h.journal)).toEqual(h.state);
  });

  it("keeps a position whose market is closed open and says why; closes the others", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { depth: 10 });
    h.quote("ETH-USD", "3000", { depth: 10 });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
    h.placed({ symbol: "ETH-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    const ethSteps = [...h.account.positions.values()].find((p) => p.symbol === "ETH-USD")?.quantity;
    h.quote("ETH-USD", "3000", { depth: 10, open: false });
    const reply = flatten(h);
    if (reply.kind !== "flattened") throw new Error(JSON.stringify(reply));
    const [btc, eth] = reply.closes;
    expect(btc).toMatchObject({ symbol: "BTC-USD", order: { status: "FILLED" }, violations: [] });
    expect(eth).toMatchObject({
      symbol: "ETH-USD",
      order: { status: "REJECTED" },
      fills: [],
      violations: [{ rule: "market_closed", severity: "critical" }],
    });
    expect(reply.positions).toEqual([expect.objectContaining({ symbol: "ETH-USD" })]);
    expect([...h.account.positions.values()].map((p) => p.quantity)).toEqual([ethSteps]);
    expect(replay(h.journal)).toEqual(h.state);
  });

  it("closes what the book can take and answers the rest as still open", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { depth: 100 });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.05" });
    // A thin book: the close's IOC rest is canceled once the levels it may reach are taken.
    h.quote("BTC-USD", "100000", { depth: 1 });
    const reply = flatten(h);
    if (reply.kind !== "flattened") throw new Error(JSON.stringify(reply));
    const close = reply.closes[0];
    expect(close?.fills.length).toBeGreaterThan(0);
    expect(close?.order?.status).toBe("CANCELED");
    const left = reply.positions[0];
    expect(left?.symbol).toBe("BTC-USD");
    expect(left === undefined ? 0 : left.quantity).toBeLessThan(0.05);
    expect(replay(h.journal)).toEqual(h.state);
  });

  it("answers a position whose symbol has no price with the issue and no order, its stop kept", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { depth: 10 });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
    const stop = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "95000",
      reduce_only: true,
    }).order;
    h.market.quotes.delete("BTC-USD");
    const reply = flatten(h);
    expect(reply).toMatchObject({
      kind: "flattened",
      canceled: [],
      closes: [{ symbol: "BTC-USD", order: null, fills: [], issues: [{ path: "symbol" }] }],
      positions: [expect.objectContaining({ symbol: "BTC-USD" })],
    });
    if (reply.kind !== "flattened") throw new Error(JSON.stringify(reply));
    expect(reply.closes[0]?.kept_orders).toEqual([expect.objectContaining({ order_id: stop.order_id, status: "NEW" })]);
    expect(h.lastEvents).toEqual([]);
  });

  it("does nothing on a flat account with no orders", () => {
    const h = new Harness().open(PLAN.c10k);
    expect(flatten(h)).toEqual({ kind: "flattened", canceled: [], closes: [], positions: [] });
    expect(h.lastEvents).toEqual([]);
  });
});
