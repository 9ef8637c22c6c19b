import { describe, expect, it } from "vitest";
import { replay, type ReplyByCommand } from "../core.js";
import { ACCOUNT_ID, Harness, PLAN } from "../core.testing.js";

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
  it("cancels every order, then closes every position at the market, in one decision", () => {
    const { h, stop } = busy();
    h.placed({ symbol: "ETH-USD", side: "SELL", kind: "MARKET", quantity: "0.2" });
    expect(h.account.positions.size).toBe(2);
    const outboxBefore = h.outbox.length;
    const reply = flatten(h);
    if (reply.kind !== "flattened") throw new Error(JSON.stringify(reply));
    expect(reply.canceled.map((o) => o.status)).toEqual(Array<string>(5).fill("CANCELED"));
    expect(reply.canceled[0]?.order_id).toBe(stop.order_id);
    expect(reply.closes).toHaveLength(2);
    for (const close of reply.closes) {
      expect(close.order).toMatchObject({ kind: "MARKET", reduce_only: true, status: "FILLED" });
      expect(close.fills.length).toBeGreaterThan(0);
      expect(close.violations).toEqual([]);
      expect(close.issues).toEqual([]);
    }
    expect(reply.closes.map((c) => c.symbol)).toEqual(["BTC-USD", "ETH-USD"]);
    expect(reply.positions).toEqual([]);
    expect(h.account.positions.size).toBe(0);
    expect(h.account.working.size).toBe(0);
    // Cancels first, then each close's ack and fills.
    const types = h.lastEvents.map((e) => e.type).filter((t) => t.startsWith("Order"));
    expect(types.slice(0, 5)).toEqual(Array<string>(5).fill("OrderCanceled"));
    expect(types.slice(5)).toContain("OrderFilled");
    expect(h.outbox.slice(outboxBefore).filter((e) => e.type === "position.close")).toHaveLength(2);
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

  it("answers a position whose symbol has no price with the issue and no order", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { depth: 10 });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
    h.market.quotes.delete("BTC-USD");
    const reply = flatten(h);
    expect(reply).toMatchObject({
      kind: "flattened",
      closes: [{ symbol: "BTC-USD", order: null, fills: [], issues: [{ path: "symbol" }] }],
      positions: [expect.objectContaining({ symbol: "BTC-USD" })],
    });
    expect(h.lastEvents).toEqual([]);
  });

  it("does nothing on a flat account with no orders", () => {
    const h = new Harness().open(PLAN.c10k);
    expect(flatten(h)).toEqual({ kind: "flattened", canceled: [], closes: [], positions: [] });
    expect(h.lastEvents).toEqual([]);
  });
});
