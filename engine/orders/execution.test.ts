import { describe, expect, it } from "vitest";
import { replay } from "../core.js";
import type { EngineEvent } from "../basics/events.js";
import { Harness, PLAN, orderEvents, usd, WEDNESDAY_NOON } from "../core.testing.js";

const STARTING = usd("10000");

function ofType<T extends EngineEvent["type"]>(
  events: readonly EngineEvent[],
  type: T,
): Extract<EngineEvent, { type: T }>[] {
  return events.filter((event): event is Extract<EngineEvent, { type: T }> => event.type === type);
}

/** A 10K account with BTC at 100000.0 on GMX (skew 0: 6 bps per fill). */
function btc(depth?: number): Harness {
  const h = new Harness().open(PLAN.c10k);
  h.quote("BTC-USD", "100000", depth === undefined ? {} : { depth });
  return h;
}

/** A 10K account long 0.01 BTC at 100000.0 on GMX (balance 9999.4 after the 0.6 USD fee). */
function long(): Harness {
  const h = btc();
  h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
  return h;
}

function expectReplayEqual(h: Harness): void {
  expect(replay(h.journal)).toEqual(h.state);
}

describe("the outcome at placement, by kind and time in force", () => {
  // BTC at 100000.0 (index 100400.0) with 10 steps per level (50 per side); the account is long 0.003 BTC.
  it.each<[string, string, number, Record<string, unknown>]>([
    ["MARKET IOC within depth", "FILLED", 0.004, { kind: "MARKET" }],
    ["MARKET IOC beyond depth", "CANCELED", 0.005, { kind: "MARKET", quantity: "0.006" }],
    ["MARKET FOK within depth", "FILLED", 0.004, { kind: "MARKET", time_in_force: "FOK" }],
    ["MARKET FOK beyond depth", "EXPIRED", 0, { kind: "MARKET", quantity: "0.006", time_in_force: "FOK" }],
    ["LIMIT GTC resting", "NEW", 0, { kind: "LIMIT", limit_price: "99000" }],
    ["LIMIT GTC crossing", "FILLED", 0.004, { kind: "LIMIT", limit_price: "100001" }],
    [
      "LIMIT GTC crossing beyond depth",
      "PARTIALLY_FILLED",
      0.005,
      { kind: "LIMIT", limit_price: "100001", quantity: "0.006" },
    ],
    [
      "LIMIT GTD resting",
      "NEW",
      0,
      { kind: "LIMIT", limit_price: "99000", time_in_force: "GTD", expire_at: "2026-11-26T00:00:00Z" },
    ],
    ["LIMIT GTX resting", "NEW", 0, { kind: "LIMIT", limit_price: "99000", time_in_force: "GTX" }],
    ["LIMIT GTX crossing", "REJECTED", 0, { kind: "LIMIT", limit_price: "100000", time_in_force: "GTX" }],
    ["LIMIT IOC resting", "CANCELED", 0, { kind: "LIMIT", limit_price: "99000", time_in_force: "IOC" }],
    ["LIMIT IOC crossing", "CANCELED", 0.002, { kind: "LIMIT", limit_price: "100000.1", time_in_force: "IOC" }],
    ["LIMIT FOK resting", "EXPIRED", 0, { kind: "LIMIT", limit_price: "99000", time_in_force: "FOK" }],
    ["LIMIT FOK crossing", "FILLED", 0.004, { kind: "LIMIT", limit_price: "100000.3", time_in_force: "FOK" }],
    ["STOP GTC not reached", "NEW", 0, { kind: "STOP", trigger_price: "101000" }],
    ["STOP GTC reached", "FILLED", 0.004, { kind: "STOP", trigger_price: "100000" }],
    ["STOP IOC not reached", "NEW", 0, { kind: "STOP", trigger_price: "101000", time_in_force: "IOC" }],
    [
      "STOP FOK reached beyond depth",
      "EXPIRED",
      0,
      { kind: "STOP", trigger_price: "99000", quantity: "0.006", time_in_force: "FOK" },
    ],
    ["TAKE_PROFIT GTC not reached", "NEW", 0, { kind: "TAKE_PROFIT", trigger_price: "99000" }],
    [
      "TAKE_PROFIT GTC reached on the index",
      "FILLED",
      0.004,
      { kind: "TAKE_PROFIT", trigger_price: "100500", index_trigger: true },
    ],
    [
      "reduce-only SELL MARKET past the position",
      "CANCELED",
      0.003,
      { kind: "MARKET", side: "SELL", reduce_only: true },
    ],
  ])("%s ends %s with %d filled", (_label, status, filled, patch) => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { index: "100400" });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.003" });
    h.quote("BTC-USD", "100000", { index: "100400", depth: 10 });
    const reply = h.place({ symbol: "BTC-USD", side: "BUY", quantity: "0.004", ...patch } as Parameters<
      Harness["place"]
    >[0]);
    expect(reply.kind === "error" ? reply : reply.order).toMatchObject({ status, filled_quantity: filled });
    expectReplayEqual(h);
  });
});

describe("MARKET orders", () => {
  it("fill at the mark as taker and pay the GMX fee", () => {
    const h = btc();
    const reply = h.placed({ symbol: "btcusd", side: "BUY", kind: "MARKET", quantity: "0.01" });
    expect(reply.order).toMatchObject({
      status: "FILLED",
      filled_quantity: 0.01,
      avg_fill_price: 100000,
      venue: "GMX",
    });
    expect(reply.fills).toEqual([
      expect.objectContaining({
        side: "BUY",
        quantity: 0.01,
        price: 100000,
        fee: 0.6,
        liquidity: "TAKER",
        realized_pnl: 0,
      }),
    ]);
    expect(reply.violations).toEqual([]);
    expect(h.balance).toBe(usd("9999.4"));
    expect([...h.account.positions.values()]).toEqual([
      expect.objectContaining({ side: "BUY", quantity: 100, cost_basis: usd("1000"), leverage: 2 }),
    ]);
    expectReplayEqual(h);
  });

  it("fill an IOC partially by depth, level by level, and cancel the rest", () => {
    const h = btc(10);
    const reply = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.006" });
    expect(reply.fills.map((f) => [f.price, f.quantity])).toEqual([
      [100000, 0.001],
      [100000.1, 0.001],
      [100000.2, 0.001],
      [100000.3, 0.001],
      [100000.4, 0.001],
    ]);
    expect(reply.order).toMatchObject({ status: "CANCELED", filled_quantity: 0.005, avg_fill_price: 100000.2 });
    expect(ofType(h.lastEvents, "OrderCanceled")).toEqual([expect.objectContaining({ reason: "ioc_remainder" })]);
    expect(h.balance).toBe(STARTING - 30_000_060);
    expectReplayEqual(h);
  });

  it("leave taken depth gone until the next price update", () => {
    const h = btc(10);
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.005" });
    const empty = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" });
    expect(empty.fills).toEqual([]);
    expect(empty.order.status).toBe("CANCELED");
    h.price("BTC-USD", "100000", { depth: 10 });
    expect(h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" }).order.status).toBe("FILLED");
  });

  it("expire a FOK the book cannot fill, without any fill", () => {
    const h = btc(10);
    const reply = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.006", time_in_force: "FOK" });
    expect(reply.order).toMatchObject({ status: "EXPIRED", filled_quantity: 0 });
    expect(reply.fills).toEqual([]);
    expect(ofType(h.lastEvents, "OrderExpired")).toEqual([expect.objectContaining({ reason: "fok" })]);
    expect(h.balance).toBe(STARTING);
    expect(h.account.positions.size).toBe(0);
  });

  it("fill a FOK the book can fill entirely", () => {
    const h = btc(10);
    const reply = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "MARKET",
      quantity: "0.005",
      time_in_force: "FOK",
    });
    expect(reply.order.status).toBe("FILLED");
    expect(reply.fills.at(-1)?.price).toBe(99999.6);
  });
});

describe("LIMIT orders", () => {
  it("rest below the mark and fill as maker at the market's price when the mark crosses", () => {
    const h = btc();
    const { order } = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "99000",
    });
    expect(order).toMatchObject({ status: "NEW", time_in_force: "GTC", filled_quantity: 0 });
    expect(h.price("BTC-USD", "99500")).toEqual([]);
    // The market gapped below the limit: the order buys at 98,900, not at its 99,000.
    h.price("BTC-USD", "98900");
    expect(ofType(h.lastEvents, "OrderFilled").map((e) => e.fill)).toEqual([
      expect.objectContaining({ price: 989_000, quantity: 100, liquidity: "MAKER", fee: usd("0.5934") }),
    ]);
    expect(h.order(order.order_id)).toMatchObject({ status: "FILLED", avg_fill_price: 98900 });
    expect(h.balance).toBe(STARTING - usd("0.5934"));
    expectReplayEqual(h);
  });

  it("fill partially by the depth of an update and finish on a later one", () => {
    const h = btc(10);
    const { order } = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.008",
      limit_price: "99000",
    });
    h.price("BTC-USD", "98900", { depth: 10 });
    expect(h.order(order.order_id)).toMatchObject({ status: "PARTIALLY_FILLED", filled_quantity: 0.005 });
    h.price("BTC-USD", "98950", { depth: 10 });
    // Five levels from 98,900.0 to 98,900.4, then three from 98,950.0: all at or below the limit.
    expect(h.order(order.order_id)).toMatchObject({
      status: "FILLED",
      filled_quantity: 0.008,
      avg_fill_price: 98918.9125,
    });
  });

  it("take when crossing at placement, never above the limit, and rest the remainder", () => {
    const h = btc(10);
    const reply = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.004",
      limit_price: "100000.1",
    });
    expect(reply.fills.map((f) => [f.price, f.quantity, f.liquidity])).toEqual([
      [100000, 0.001, "TAKER"],
      [100000.1, 0.001, "TAKER"],
    ]);
    expect(reply.order).toMatchObject({ status: "PARTIALLY_FILLED", filled_quantity: 0.002 });
    h.price("BTC-USD", "100000", { depth: 10 });
    // The rest takes the book from the mark up to its limit, not at the limit.
    expect(ofType(h.lastEvents, "OrderFilled").map((e) => [e.fill.price, e.fill.quantity, e.fill.liquidity])).toEqual([
      [1_000_000, 10, "MAKER"],
      [1_000_001, 10, "MAKER"],
    ]);
    expectReplayEqual(h);
  });

  it("fill the rest of a marketable limit at the market's price on later updates, not at the limit", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("ETH-USD", "2500", { depth: 100 });
    const reply = h.placed({ symbol: "ETH-USD", side: "BUY", kind: "LIMIT", quantity: "1", limit_price: "2550" });
    expect(reply.fills.map((f) => [f.price, f.quantity])).toEqual([
      [2500, 0.1],
      [2500.01, 0.1],
      [2500.02, 0.1],
      [2500.03, 0.1],
      [2500.04, 0.1],
    ]);
    h.price("ETH-USD", "2500", { depth: 100 });
    expect(ofType(h.lastEvents, "OrderFilled").map((e) => [e.fill.price, e.fill.quantity])).toEqual([
      [250_000, 100],
      [250_001, 100],
      [250_002, 100],
      [250_003, 100],
      [250_004, 100],
    ]);
    expect(h.order(reply.order.order_id)).toMatchObject({ status: "FILLED", avg_fill_price: 2500.02 });
    expectReplayEqual(h);
  });

  it("cancel the rest of a crossing IOC limit", () => {
    const h = btc(10);
    const reply = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "LIMIT",
      quantity: "0.004",
      limit_price: "99999.9",
      time_in_force: "IOC",
    });
    expect(reply.order).toMatchObject({ status: "CANCELED", filled_quantity: 0.002 });
    expect(ofType(h.lastEvents, "OrderCanceled")[0]?.reason).toBe("ioc_remainder");
  });

  it("expire a FOK limit the book cannot fill within its price", () => {
    const h = btc(10);
    const reply = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.004",
      limit_price: "100000.1",
      time_in_force: "FOK",
    });
    expect(reply.order.status).toBe("EXPIRED");
    expect(reply.fills).toEqual([]);
  });

  it("cancel an IOC limit that does not cross at once", () => {
    const h = btc();
    const reply = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "99000",
      time_in_force: "IOC",
    });
    expect(reply.order.status).toBe("CANCELED");
  });

  it.each<[string, Record<string, unknown>]>([
    ["a post-only buy at the mark", { side: "BUY", limit_price: "100000", post_only: true }],
    ["a post-only sell below the mark", { side: "SELL", limit_price: "99000", post_only: true }],
    ["a GTX buy above the mark", { side: "BUY", limit_price: "100500", time_in_force: "GTX" }],
  ])("reject %s that would take, with post_only_would_take", (_label, patch) => {
    const h = btc();
    const reply = h.place({ symbol: "BTC-USD", kind: "LIMIT", quantity: "0.01", side: "BUY", ...patch });
    expect(reply.kind).toBe("rejected");
    if (reply.kind === "error") throw new Error("unexpected error");
    expect(reply.order.status).toBe("REJECTED");
    expect(reply.fills).toEqual([]);
    expect(reply.violations).toEqual([expect.objectContaining({ rule: "post_only_would_take", severity: "critical" })]);
    expect(h.account.orders.get(reply.order.order_id)?.status).toBe("REJECTED");
    expect(h.account.working.size).toBe(0);
  });

  it("rest a post-only order that would not take", () => {
    const h = btc();
    const reply = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "99999.9",
      post_only: true,
    });
    expect(reply.order).toMatchObject({ status: "NEW", post_only: true });
  });

  it("expire a GTD order on the first update after its time", () => {
    const h = btc();
    const expireAt = new Date(WEDNESDAY_NOON + 60_000).toISOString();
    const { order } = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "99000",
      time_in_force: "GTD",
      expire_at: expireAt,
    });
    expect(order.expire_at).toBe(expireAt);
    h.now += 59_999;
    expect(h.price("BTC-USD", "100000")).toEqual([]);
    h.now += 1;
    h.price("BTC-USD", "100000");
    expect(ofType(h.lastEvents, "OrderExpired")).toEqual([
      expect.objectContaining({ order_id: order.order_id, reason: "gtd" }),
    ]);
    expect(h.order(order.order_id).status).toBe("EXPIRED");
    expect(h.account.expiries.size).toBe(0);
    expect(h.account.reserved_margin).toBe(0);
  });

  it("expire a GTD order on any later command, before the command itself", () => {
    const h = btc();
    const { order } = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "99000",
      time_in_force: "GTD",
      expire_at: new Date(WEDNESDAY_NOON + 1_000).toISOString(),
    });
    h.now += 5_000;
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" });
    expect(h.lastEvents[0]).toMatchObject({ type: "OrderExpired", order_id: order.order_id, reason: "gtd" });
  });
});

describe("STOP and TAKE_PROFIT orders", () => {
  it("trigger a sell stop when the mark falls to its trigger and fill as a market order", () => {
    const h = long();
    const { order } = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "99000",
      reduce_only: true,
    });
    expect(order).toMatchObject({ status: "NEW", mark_trigger: true, index_trigger: false });
    expect(h.price("BTC-USD", "99000.1")).toEqual([]);
    h.price("BTC-USD", "99000");
    expect(h.lastEvents.map((e) => e.type)).toEqual(["OrderTriggered", "OrderFilled"]);
    const fill = ofType(h.lastEvents, "OrderFilled")[0]?.fill;
    expect(fill).toMatchObject({ price: 990_000, liquidity: "TAKER", realized_pnl: usd("-10"), fee: usd("0.594") });
    expect(h.account.positions.size).toBe(0);
    expect(h.balance).toBe(usd("9999.4") - usd("10") - usd("0.594"));
    expectReplayEqual(h);
  });

  it("trigger a sell stop on the index when index_trigger is set", () => {
    const h = long();
    h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "99000",
      index_trigger: true,
      reduce_only: true,
    });
    expect(h.price("BTC-USD", "98000", { index: "99500" })).toEqual([]);
    h.price("BTC-USD", "99500", { index: "98900" });
    expect(ofType(h.lastEvents, "OrderTriggered")[0]?.reference_price).toBe(989_000);
    expect(ofType(h.lastEvents, "OrderFilled")[0]?.fill.price).toBe(995_000);
  });

  it("trigger a buy stop when the mark rises to its trigger", () => {
    const h = btc();
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "STOP", quantity: "0.01", trigger_price: "101000" });
    expect(h.price("BTC-USD", "100999.9")).toEqual([]);
    h.price("BTC-USD", "101000");
    expect(ofType(h.lastEvents, "OrderFilled")[0]?.fill).toMatchObject({ side: "BUY", price: 1_010_000 });
  });

  it("trigger a sell take-profit when the mark rises to its trigger", () => {
    const h = long();
    h.placed({ symbol: "BTC-USD", side: "SELL", kind: "TAKE_PROFIT", quantity: "0.01", trigger_price: "102000" });
    expect(orderEvents(h.price("BTC-USD", "101999.9"))).toEqual([]);
    h.price("BTC-USD", "102500");
    expect(ofType(h.lastEvents, "OrderFilled")[0]?.fill).toMatchObject({ price: 1_025_000, realized_pnl: usd("25") });
  });

  it("trigger a buy take-profit when the index falls to its trigger", () => {
    const h = btc();
    h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "TAKE_PROFIT",
      quantity: "0.01",
      trigger_price: "98000",
      index_trigger: true,
    });
    expect(h.price("BTC-USD", "97000", { index: "98000.1" })).toEqual([]);
    h.price("BTC-USD", "98500", { index: "97000" });
    expect(ofType(h.lastEvents, "OrderFilled")[0]?.fill).toMatchObject({ side: "BUY", price: 985_000 });
  });

  it("execute at once when already triggered at placement", () => {
    const h = long();
    const reply = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "101000",
    });
    expect(reply.order.status).toBe("FILLED");
    expect(h.lastEvents.map((e) => e.type)).toEqual(["OrderAccepted", "OrderTriggered", "OrderFilled"]);
  });

  it("keep a triggered stop taking on later updates until it is filled", () => {
    const h = long();
    h.quote("BTC-USD", "100000", { depth: 6 });
    const { order } = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "99000",
      reduce_only: true,
    });
    h.price("BTC-USD", "98000", { depth: 6 });
    expect(h.order(order.order_id)).toMatchObject({ status: "PARTIALLY_FILLED", filled_quantity: 0.003 });
    h.price("BTC-USD", "98100", { depth: 6 });
    expect(h.order(order.order_id)).toMatchObject({ status: "PARTIALLY_FILLED", filled_quantity: 0.006 });
    h.price("BTC-USD", "98200", { depth: 100 });
    expect(h.order(order.order_id)).toMatchObject({ status: "FILLED", filled_quantity: 0.01 });
    expect(ofType(h.journal, "OrderTriggered")).toHaveLength(1);
    expectReplayEqual(h);
  });
});

describe("reduce-only orders", () => {
  it("clamp a fill to the position and cancel the rest", () => {
    const h = long();
    const reply = h.placed({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.03", reduce_only: true });
    expect(reply.order).toMatchObject({ status: "CANCELED", filled_quantity: 0.01 });
    expect(ofType(h.lastEvents, "OrderCanceled")[0]?.reason).toBe("reduce_only_no_position");
    expect(h.account.positions.size).toBe(0);
  });

  it("are refused with 409 when there is nothing to reduce", () => {
    const h = btc();
    expect(h.place({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.01", reduce_only: true })).toEqual({
      kind: "error",
      code: "conflict",
      fields: { reason: "reduce_only_would_increase" },
    });
    const longH = long();
    expect(
      longH.place({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01", reduce_only: true }),
    ).toMatchObject({
      kind: "error",
      code: "conflict",
    });
  });

  it("are canceled when they would fill after their position is gone", () => {
    const h = long();
    const { order } = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "105000",
      reduce_only: true,
    });
    // Closed by another order: the reduce-only order goes with the position, at once.
    h.placed({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.01" });
    expect(h.order(order.order_id)).toMatchObject({ status: "CANCELED", filled_quantity: 0 });
    expect(ofType(h.lastEvents, "OrderCanceled")).toEqual([
      expect.objectContaining({ order_id: order.order_id, reason: "reduce_only_no_position" }),
    ]);
    h.price("BTC-USD", "105000");
    expect(ofType(h.lastEvents, "OrderFilled")).toEqual([]);
    expect(h.account.positions.size).toBe(0);
    expectReplayEqual(h);
  });

  it("stop-losses and take-profits of a position closed by hand are canceled with it; a partial close keeps them", () => {
    const h = btc();
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.02" });
    const stop = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.02",
      trigger_price: "95000",
      reduce_only: true,
    }).order;
    const tp = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "TAKE_PROFIT",
      quantity: "0.02",
      trigger_price: "110000",
      reduce_only: true,
    }).order;
    // Another symbol's reduce-only order is not touched.
    h.quote("ETH-USD", "3000");
    h.placed({ symbol: "ETH-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    const ethStop = h.placed({
      symbol: "ETH-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.1",
      trigger_price: "2800",
      reduce_only: true,
    }).order;

    h.close({ symbol: "BTC-USD", quantity: "0.01" });
    expect(h.order(stop.order_id).status).toBe("NEW");
    expect(h.order(tp.order_id).status).toBe("NEW");

    h.close({ symbol: "BTC-USD" });
    expect(h.order(stop.order_id)).toMatchObject({ status: "CANCELED" });
    expect(h.order(tp.order_id)).toMatchObject({ status: "CANCELED" });
    expect(h.order(ethStop.order_id).status).toBe("NEW");
    expect(h.account.stop_losses.size).toBe(1);
    expect(h.account.reserved_margin).toBe(0);
    expectReplayEqual(h);
  });

  it("never flip a position", () => {
    const h = long();
    const reply = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "LIMIT",
      quantity: "0.02",
      limit_price: "100000",
      reduce_only: true,
    });
    expect(reply.order.filled_quantity).toBe(0.01);
    expect(h.account.positions.size).toBe(0);
  });
});

describe("netting", () => {
  it("closes the position and opens a new one with a new id when a fill goes past zero", () => {
    const h = long();
    const before = [...h.account.positions.values()][0];
    h.quote("BTC-USD", "101000");
    const reply = h.placed({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.03" });
    expect(reply.fills.map((f) => [f.quantity, f.realized_pnl, f.fee])).toEqual([
      [0.01, 10, 0.606],
      [0.02, 0, 1.212],
    ]);
    const after = [...h.account.positions.values()];
    expect(after).toEqual([expect.objectContaining({ side: "SELL", quantity: 200, cost_basis: usd("2020") })]);
    expect(after[0]?.position_id).not.toBe(before?.position_id);
    expect(h.account.closed_positions).toEqual([
      expect.objectContaining({ position_id: before?.position_id, realized_pnl: usd("10"), fees: usd("1.206") }),
    ]);
    expect(h.balance).toBe(usd("9999.4") + usd("10") - usd("0.606") - usd("1.212"));
    expectReplayEqual(h);
  });

  it("keeps positions apart per venue", () => {
    const h = btc();
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01", venue: "GMX" });
    h.placed({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.01", venue: "OSTIUM" });
    expect([...h.account.positions.keys()].sort()).toEqual(["BTC-USD|GMX", "BTC-USD|OSTIUM"]);
    // OSTIUM crypto taker opening fee 0.10% of 1,000 USD
    expect(h.balance).toBe(STARTING - usd("0.6") - usd("1"));
  });
});

describe("TP/SL children", () => {
  /** A parent BUY LIMIT 0.01 at 99,000 and one SELL LIMIT child at `limitPrice` with `timeInForce`. */
  function limitChild(limitPrice: string, timeInForce: string) {
    const h = btc();
    const parent = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "99000",
    }).order;
    const child = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: limitPrice,
      time_in_force: timeInForce,
      parent_order_id: parent.order_id,
    }).order;
    return { h, parent, child };
  }

  /**
   * One step (0.0001 BTC) a level: a parent BUY LIMIT 0.02 at 100,000 that fills in parts, and one SELL child
   * of `kind` at `trigger`.
   */
  function thinBookChild(kind: "STOP" | "TAKE_PROFIT", trigger: string) {
    const h = btc(1);
    h.quote("BTC-USD", "100500", { depth: 1 });
    const parent = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.02",
      limit_price: "100000",
    }).order;
    const child = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind,
      quantity: "0.02",
      trigger_price: trigger,
      parent_order_id: parent.order_id,
    }).order;
    return { h, parent, child };
  }

  function bracket() {
    const h = btc();
    const parent = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "99000",
    }).order;
    const tp = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "101000",
      parent_order_id: parent.order_id,
    }).order;
    const sl = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "98000",
      parent_order_id: parent.order_id,
    }).order;
    return { h, parent, tp, sl };
  }

  it("are HELD and reduce-only while the parent has no fill", () => {
    const { h, tp, sl } = bracket();
    expect(tp).toMatchObject({ status: "HELD", reduce_only: true });
    expect(sl).toMatchObject({ status: "HELD", reduce_only: true });
    expect(h.account.reserved_margin).toBe(usd("495"));
  });

  it("become NEW on the parent's first fill, and one child's fill cancels the other (OCO)", () => {
    const { h, parent, tp, sl } = bracket();
    h.price("BTC-USD", "98900");
    expect(h.lastEvents.map((e) => e.type)).toEqual(["OrderFilled", "OrderActivated", "OrderActivated"]);
    expect(h.order(parent.order_id).status).toBe("FILLED");
    expect([h.order(tp.order_id).status, h.order(sl.order_id).status]).toEqual(["NEW", "NEW"]);
    h.price("BTC-USD", "101000");
    expect(h.order(tp.order_id).status).toBe("FILLED");
    expect(h.order(sl.order_id).status).toBe("CANCELED");
    expect(ofType(h.lastEvents, "OrderCanceled")).toEqual([
      expect.objectContaining({ order_id: sl.order_id, reason: "oco" }),
    ]);
    expect(h.account.positions.size).toBe(0);
    expectReplayEqual(h);
  });

  it("trigger and fill on the very update that activates them", () => {
    const { h, sl } = bracket();
    h.price("BTC-USD", "97500");
    expect(h.order(sl.order_id).status).toBe("FILLED");
    expect(h.account.positions.size).toBe(0);
  });

  it.each<[string, string, string, string]>([
    ["cancel the rest of an IOC child", "IOC", "CANCELED", "ioc_remainder"],
    ["expire a FOK child that cannot fill entirely", "FOK", "EXPIRED", "fok"],
  ])("honour the time in force on activation by a price update: %s", (_label, timeInForce, status, reason) => {
    const { h, parent, child } = limitChild("120000", timeInForce);
    h.price("BTC-USD", "98900");
    expect(h.order(parent.order_id).status).toBe("FILLED");
    // A sell at 120,000 cannot execute at a mark of 98,900: nothing of it may rest.
    expect(h.order(child.order_id).status).toBe(status);
    expect(h.account.orders.get(child.order_id)?.reason).toBe(reason);
    expect(h.account.positions.size).toBe(1);
    expectReplayEqual(h);
  });

  it("take at once, as placed, when activated crossing with an IOC", () => {
    const { h, child } = limitChild("98000", "IOC");
    h.price("BTC-USD", "98900");
    expect(h.order(child.order_id).status).toBe("FILLED");
    expect(h.account.positions.size).toBe(0);
  });

  it("protect every fill of their parent: the bracket ends only when the parent is final and its position closed", () => {
    // A thin book (0.005 BTC a level): the parent BUY 0.05 fills 0.025 on its first update.
    const h = btc(50);
    const parent = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.05",
      limit_price: "99000",
    }).order;
    const tp = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "LIMIT",
      quantity: "0.05",
      limit_price: "101000",
      parent_order_id: parent.order_id,
    }).order;
    const sl = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.05",
      trigger_price: "98000",
      parent_order_id: parent.order_id,
    }).order;
    h.price("BTC-USD", "98900", { depth: 50 });
    expect(h.order(parent.order_id)).toMatchObject({ status: "PARTIALLY_FILLED", filled_quantity: 0.025 });
    // The take-profit closes what the parent filled, and no more; the stop and its own rest stay working.
    h.price("BTC-USD", "101500", { depth: 50 });
    expect(h.order(tp.order_id)).toMatchObject({ status: "PARTIALLY_FILLED", filled_quantity: 0.025 });
    expect(h.order(sl.order_id).status).toBe("NEW");
    expect(h.account.positions.size).toBe(0);
    // The parent's second half opens a long the children still protect.
    h.price("BTC-USD", "98900", { depth: 50 });
    expect(h.order(parent.order_id).status).toBe("FILLED");
    expect([h.order(tp.order_id).status, h.order(sl.order_id).status]).toEqual(["PARTIALLY_FILLED", "NEW"]);
    expect([...h.account.positions.values()].map((p) => p.quantity)).toEqual([250]);
    // The stop closes it (0.025 of its 0.05): the parent is final and all it filled is closed, so the bracket
    // ends: the take-profit goes as OCO, the stop's own rest with nothing to reduce.
    h.price("BTC-USD", "97500", { depth: 50 });
    expect(h.order(sl.order_id)).toMatchObject({ status: "CANCELED", filled_quantity: 0.025 });
    expect(h.account.orders.get(sl.order_id)?.reason).toBe("reduce_only_no_position");
    expect(h.order(tp.order_id).status).toBe("CANCELED");
    expect(h.account.orders.get(tp.order_id)?.reason).toBe("oco");
    expect(h.account.positions.size).toBe(0);
    expect(h.account.working.size).toBe(0);
    expectReplayEqual(h);
  });

  it("re-arm a triggered stop that closed all its parent filled: the parent's next fill waits for the trigger", () => {
    const { h, parent, child: sl } = thinBookChild("STOP", "98000");
    // At 97,000 the parent fills in part, the stop triggers and closes all of it, then waits for its trigger again.
    h.price("BTC-USD", "97000", { depth: 1 });
    const closed = h.order(sl.order_id).filled_quantity;
    expect(closed).toBe(h.order(parent.order_id).filled_quantity);
    expect(h.account.positions.size).toBe(0);
    expect(h.account.orders.get(sl.order_id)?.triggered).toBe(false);
    expect(ofType(h.lastEvents, "OrderRearmed").map((event) => event.order_id)).toEqual([sl.order_id]);
    h.price("BTC-USD", "101000", { depth: 1 });
    // The parent's next step at 100,000 is above the stop's trigger: it stays open, protected by the stop.
    h.price("BTC-USD", "100000", { depth: 1 });
    expect(h.order(sl.order_id)).toMatchObject({ status: "PARTIALLY_FILLED", filled_quantity: closed });
    expect([...h.account.positions.values()].map((p) => p.quantity)).toEqual([1]);
    // At its trigger it acts again.
    h.price("BTC-USD", "97900", { depth: 1 });
    expect(ofType(h.lastEvents, "OrderTriggered").map((event) => event.order_id)).toEqual([sl.order_id]);
    expect(h.order(sl.order_id).filled_quantity).toBeGreaterThan(closed);
    expectReplayEqual(h);
  });

  it("leave a re-armed child armed while the market stays past its trigger and nothing is left to close", () => {
    const { h, parent, child: tp } = thinBookChild("TAKE_PROFIT", "105000");
    h.price("BTC-USD", "100000", { depth: 1 });
    expect(h.order(parent.order_id).filled_quantity).toBe(0.0001);
    // The take-profit closes the one step and waits for its trigger again.
    h.price("BTC-USD", "106000", { depth: 1 });
    expect(h.order(tp.order_id).filled_quantity).toBe(0.0001);
    expect(h.account.orders.get(tp.order_id)?.triggered).toBe(false);
    // The mark stays past the trigger, the parent rests and nothing of it is left to close: no trigger, no
    // re-arm, nothing journaled, update after update.
    for (const mark of ["106100", "106200", "106300"]) {
      h.price("BTC-USD", mark, { depth: 1 });
      expect(h.lastEvents.filter((e) => e.type === "OrderTriggered" || e.type === "OrderRearmed")).toEqual([]);
    }
    expect(h.order(tp.order_id).filled_quantity).toBe(0.0001);
    expectReplayEqual(h);
  });

  it("leave a child armed when the trader closed its parent's fills by hand, so the parent's next fill waits for the trigger", () => {
    const { h, child: tp } = thinBookChild("TAKE_PROFIT", "105000");
    h.price("BTC-USD", "100000", { depth: 1 });
    h.placed({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.0001", reduce_only: true });
    expect(h.account.positions.size).toBe(0);
    // Past the trigger with no position to reduce: the take-profit does not trigger.
    h.price("BTC-USD", "106000", { depth: 1 });
    expect(h.account.orders.get(tp.order_id)?.triggered).toBe(false);
    expect(ofType(h.lastEvents, "OrderTriggered")).toEqual([]);
    // The parent's next step opens a long the take-profit protects at its trigger, not sold at once.
    h.price("BTC-USD", "100000", { depth: 1 });
    expect([...h.account.positions.values()].map((p) => p.quantity)).toEqual([1]);
    expect(h.order(tp.order_id).filled_quantity).toBe(0);
    expectReplayEqual(h);
  });

  it("re-arm a triggered stop when the trader closes what it had left to close, so the parent's next fill waits for the trigger", () => {
    const { h, parent, child: sl } = thinBookChild("STOP", "98000");
    h.price("BTC-USD", "100000", { depth: 3 });
    // At 97,000 the parent fills a step a level and the stop triggers, closing as many: three steps stay open.
    h.price("BTC-USD", "97000", { depth: 1 });
    expect(h.account.orders.get(sl.order_id)?.triggered).toBe(true);
    expect([...h.account.positions.values()].map((p) => p.quantity)).toEqual([3]);
    h.quote("BTC-USD", "97000", { depth: 100 });
    h.placed({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.0003", reduce_only: true });
    expect(h.account.positions.size).toBe(0);
    expect(ofType(h.lastEvents, "OrderRearmed").map((event) => event.order_id)).toEqual([sl.order_id]);
    expect(h.account.orders.get(sl.order_id)?.triggered).toBe(false);
    // The parent's next step at 100,000 is above the stop's trigger: it stays open, protected by the stop.
    const closed = h.order(sl.order_id).filled_quantity;
    h.price("BTC-USD", "100000", { depth: 1 });
    expect(h.order(parent.order_id).status).toBe("PARTIALLY_FILLED");
    expect([...h.account.positions.values()].map((p) => p.quantity)).toEqual([1]);
    expect(h.order(sl.order_id).filled_quantity).toBe(closed);
    expectReplayEqual(h);
  });

  it("keep protecting the rest of a position a child closed only in part", () => {
    const { h, parent, tp, sl } = bracket();
    h.price("BTC-USD", "98900");
    expect(h.order(parent.order_id).status).toBe("FILLED");
    // A take-profit filled 0.004 of 0.01 by a thin book: the stop still guards the 0.006 left.
    h.price("BTC-USD", "101000", { depth: 10 });
    expect(h.order(tp.order_id)).toMatchObject({ status: "PARTIALLY_FILLED", filled_quantity: 0.001 });
    expect(h.order(sl.order_id).status).toBe("NEW");
    h.price("BTC-USD", "97000");
    expect(h.order(sl.order_id)).toMatchObject({ status: "CANCELED", filled_quantity: 0.009 });
    expect(h.order(tp.order_id).status).toBe("CANCELED");
    expect(h.account.positions.size).toBe(0);
  });

  it("are canceled with the parent when it is canceled without a fill", () => {
    const { h, parent, tp, sl } = bracket();
    h.cancel(parent.order_id);
    expect(ofType(h.lastEvents, "OrderCanceled").map((e) => [e.order_id, e.reason])).toEqual([
      [parent.order_id, "user"],
      [tp.order_id, "parent_canceled"],
      [sl.order_id, "parent_canceled"],
    ]);
    expect(h.account.working.size).toBe(0);
    expect(h.account.reserved_margin).toBe(0);
  });

  it("are canceled when the parent expires without a fill", () => {
    const h = btc();
    const parent = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "99000",
      time_in_force: "GTD",
      expire_at: new Date(WEDNESDAY_NOON + 1_000).toISOString(),
    }).order;
    const child = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "98000",
      parent_order_id: parent.order_id,
    }).order;
    h.now += 1_000;
    h.price("BTC-USD", "100000");
    expect(h.order(child.order_id).status).toBe("CANCELED");
  });

  it("are NEW at once under a parent that has filled", () => {
    const h = long();
    const parent = [...h.account.orders.values()][0];
    const child = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "98000",
      parent_order_id: parent?.order_id ?? "",
    }).order;
    expect(child.status).toBe("NEW");
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["the same side as the parent", { side: "BUY" }, "side"],
    ["another symbol", { symbol: "ETH-USD", trigger_price: "3000" }, "symbol"],
    ["another venue", { venue: "OSTIUM" }, "venue"],
  ])("must not be on %s (400)", (_label, patch, path) => {
    const { h, parent } = bracket();
    const reply = h.place({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "98000",
      parent_order_id: parent.order_id,
      ...patch,
    });
    expect(reply).toEqual({
      kind: "error",
      code: "invalid_payload",
      fields: { issues: [expect.objectContaining({ path })] },
    });
  });

  it("need a known parent (404) that is not final without a fill (409)", () => {
    const { h, parent } = bracket();
    const child = { symbol: "BTC-USD", side: "SELL", kind: "STOP", quantity: "0.01", trigger_price: "98000" };
    expect(h.place({ ...child, parent_order_id: "00000000-0000-4000-8000-ffffffffffff" })).toEqual({
      kind: "error",
      code: "not_found",
      fields: {},
    });
    h.cancel(parent.order_id);
    expect(h.place({ ...child, parent_order_id: parent.order_id })).toEqual({
      kind: "error",
      code: "conflict",
      fields: { reason: "parent_final", order_id: parent.order_id },
    });
  });
});

describe("position_id", () => {
  it("targets one position and fixes the order's venue", () => {
    const h = btc();
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01", venue: "GMX" });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.02", venue: "OSTIUM" });
    const ostium = h.account.positions.get("BTC-USD|OSTIUM");
    const reply = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "MARKET",
      quantity: "0.02",
      reduce_only: true,
      position_id: ostium?.position_id ?? "",
    });
    expect(reply.order).toMatchObject({ venue: "OSTIUM", status: "FILLED", position_id: ostium?.position_id });
    expect([...h.account.positions.keys()]).toEqual(["BTC-USD|GMX"]);
  });

  it("must name an open position (404) on the order's symbol (400)", () => {
    const h = long();
    const position = [...h.account.positions.values()][0];
    const order = { side: "SELL", kind: "MARKET", quantity: "0.01" };
    expect(h.place({ ...order, symbol: "BTC-USD", position_id: "nope" })).toMatchObject({ code: "not_found" });
    expect(h.place({ ...order, symbol: "ETH-USD", position_id: position?.position_id ?? "" })).toMatchObject({
      code: "invalid_payload",
    });
  });
});
