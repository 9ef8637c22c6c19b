import { describe, expect, it } from "vitest";
import { replay } from "../core.js";
import { Harness, PLAN, usd } from "../core.testing.js";

function resting() {
  const h = new Harness().open(PLAN.c10k);
  h.quote("BTC-USD", "100000", { depth: 10 });
  const order = h.placed({
    symbol: "BTC-USD",
    side: "BUY",
    kind: "LIMIT",
    quantity: "0.01",
    limit_price: "99000",
  }).order;
  return { h, order };
}

/** A BUY LIMIT 0.01 BTC at 99,000 resting under a mark of 100,000. */
const RESTING_BUY = { symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "99000" } as const;

function restingBuy(extra: { post_only?: boolean } = {}) {
  const h = new Harness().open(PLAN.c10k);
  h.quote("BTC-USD", "100000");
  return { h, order: h.placed({ ...RESTING_BUY, ...extra }).order };
}

describe("cancel", () => {
  it("cancels a working order and answers it in its final state", () => {
    const { h, order } = resting();
    const reply = h.cancel(order.order_id);
    expect(reply).toMatchObject({ kind: "ok", order: { order_id: order.order_id, status: "CANCELED" } });
    expect(h.lastEvents).toEqual([expect.objectContaining({ type: "OrderCanceled", reason: "user" })]);
    expect(h.account.working.size).toBe(0);
    expect(h.account.reserved_margin).toBe(0);
  });

  it("answers an already canceled order the same way, without events", () => {
    const { h, order } = resting();
    const first = h.cancel(order.order_id);
    expect(h.cancel(order.order_id)).toEqual(first);
    expect(h.lastEvents).toEqual([]);
  });

  it("answers 409 order_final with the order for a filled, rejected or expired order", () => {
    const { h } = resting();
    const filled = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" }).order;
    expect(h.cancel(filled.order_id)).toEqual({
      kind: "error",
      code: "conflict",
      fields: { reason: "order_final", order: filled },
    });
    const rejected = h.place({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "100000",
      post_only: true,
    });
    if (rejected.kind === "error") throw new Error("expected a rejection");
    expect(h.cancel(rejected.order.order_id)).toMatchObject({ code: "conflict", fields: { reason: "order_final" } });
  });

  it("answers 404 for an unknown order", () => {
    const { h } = resting();
    expect(h.cancel("00000000-0000-4000-8000-0000000000ff")).toEqual({ kind: "error", code: "not_found", fields: {} });
  });
});

describe("amend", () => {
  it("moves a resting limit and re-reserves its margin", () => {
    const { h, order } = resting();
    const reply = h.amend({ order_id: order.order_id, limit_price: "98000", quantity: "0.02" });
    expect(reply).toMatchObject({ kind: "ok", order: { limit_price: 98000, quantity: 0.02, status: "NEW" } });
    expect(h.account.reserved_margin).toBe(usd("980"));
    h.price("BTC-USD", "98500");
    expect(h.lastEvents).toEqual([]);
    h.price("BTC-USD", "98000");
    expect(h.order(order.order_id).status).toBe("FILLED");
  });

  it("takes at once when the new limit crosses the mark", () => {
    const { h, order } = resting();
    const reply = h.amend({ order_id: order.order_id, limit_price: "100000.1" });
    expect(reply).toMatchObject({ kind: "ok", order: { status: "PARTIALLY_FILLED", filled_quantity: 0.002 } });
    expect(h.lastEvents.filter((e) => e.type === "OrderFilled")).toHaveLength(2);
  });

  it("moves a stop's trigger and fires it when the reference is already past", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
    const stop = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "95000",
    }).order;
    expect(h.amend({ order_id: stop.order_id, trigger_price: "96000" })).toMatchObject({
      order: { trigger_price: 96000 },
    });
    expect(h.amend({ order_id: stop.order_id, trigger_price: "100000" })).toMatchObject({
      order: { status: "FILLED" },
    });
    expect(replay(h.journal)).toEqual(h.state);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["a trigger price on a limit order", { trigger_price: "1" }, "trigger_price"],
    ["a quantity off the grid", { quantity: "0.00001" }, "quantity"],
    ["a quantity below min_quantity", { quantity: "0" }, "quantity"],
    ["a post-only limit moved across the mark", { limit_price: "100000" }, "limit_price"],
    ["nothing to change", {}, ""],
  ])("refuses %s with 400", (_label, patch, path) => {
    const { h, order } = restingBuy({ post_only: true });
    expect(h.amend({ order_id: order.order_id, ...patch })).toEqual({
      kind: "error",
      code: "invalid_payload",
      fields: { issues: [expect.objectContaining({ path })] },
    });
    expect(h.lastEvents).toEqual([]);
  });

  it("words a bad amount as a placement does", () => {
    const { h, order } = restingBuy();
    const amended = (patch: Record<string, unknown>) => h.amend({ order_id: order.order_id, ...patch });
    const placed = (patch: Record<string, unknown>) => h.place({ ...RESTING_BUY, ...patch });
    for (const patch of [
      { quantity: "0.00001" },
      { quantity: "abc" },
      { limit_price: "99000.001" },
      { limit_price: "-1" },
      { quantity: "0" },
    ]) {
      expect(amended(patch), JSON.stringify(patch)).toEqual(placed(patch));
    }
  });

  it("refuses a quantity not above what is already filled", () => {
    const { h, order } = resting();
    h.price("BTC-USD", "98900", { depth: 1 });
    expect(h.order(order.order_id)).toMatchObject({ status: "PARTIALLY_FILLED", filled_quantity: 0.0005 });
    expect(h.amend({ order_id: order.order_id, quantity: "0.0005" })).toMatchObject({ code: "invalid_payload" });
    expect(h.amend({ order_id: order.order_id, quantity: "0.0006" })).toMatchObject({ kind: "ok" });
  });

  it("refuses to grow an order past the margin available (409)", () => {
    const { h, order } = resting();
    expect(h.amend({ order_id: order.order_id, quantity: "0.3" })).toEqual({
      kind: "error",
      code: "conflict",
      fields: { reason: "insufficient_margin", order_id: order.order_id },
    });
  });

  it("answers 409 order_final for an order that no longer works, and 404 for an unknown one", () => {
    const { h, order } = resting();
    h.cancel(order.order_id);
    expect(h.amend({ order_id: order.order_id, limit_price: "1" })).toMatchObject({
      code: "conflict",
      fields: { reason: "order_final" },
    });
    expect(h.amend({ order_id: "nope", limit_price: "1" })).toMatchObject({ code: "not_found" });
  });
});

describe("amend: the risk of a partly filled order", () => {
  /** 10K on GMX (limit 500): BUY LIMIT 0.1 BTC filled 0.09 at placement, a long 1 ETH holding the day's loss. */
  function partlyFilled(eth: string) {
    const h = new Harness().open(PLAN.c10k, "GMX");
    h.quote("BTC-USD", "100000", { depth: 180 });
    h.quote("ETH-USD", "2500", { depth: 1_000_000 });
    h.placed({ symbol: "ETH-USD", side: "BUY", kind: "MARKET", quantity: "1" });
    const order = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.1",
      limit_price: "100000.4",
    }).order;
    h.price("ETH-USD", eth, { depth: 1_000_000 });
    return { h, order };
  }

  it("charges the worst case on the remainder only, not on the steps already filled", () => {
    const { h, order } = partlyFilled("2009.5");
    expect(h.order(order.order_id).filled_quantity).toBe(0.09);
    const left = h.test({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "99000" });
    // The remainder's worst case (0.594 of fee) fits in what is left; the filled 0.09 would add 5.35 of closing fee.
    if (left.kind === "error") throw new Error(`expected a test result, got ${JSON.stringify(left)}`);
    expect(left.violations).toEqual([]);
    expect(left.risk_headroom.daily_loss_remaining).toBeLessThan(5);
    const reply = h.amend({ order_id: order.order_id, limit_price: "99000" });
    expect(reply).toMatchObject({ kind: "ok", order: { limit_price: 99000, filled_quantity: 0.09 } });
  });
});

describe("amend: fills of an amend the checks did not judge", () => {
  it("checks the fills of an amend that only lowers the quantity: inside a news freeze it does not fill", () => {
    // BUY LIMIT 0.02 at the mark: 0.001 fills at placement (one level within its limit), the rest waits for depth.
    const h = new Harness().open(PLAN.c10k, "GMX");
    h.quote("BTC-USD", "100000", { depth: 10 });
    const order = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.02",
      limit_price: "100000",
    }).order;
    expect(h.order(order.order_id).filled_quantity).toBe(0.001);
    h.calendar = [
      {
        id: "cpi",
        title: "CPI",
        scheduled_at: new Date(h.now).toISOString(),
        at: h.now,
        symbols: [],
        asset_classes: ["crypto"],
      },
    ];
    // Fresh depth, and the order lowered: the amend is not checked, so its fill is.
    h.quote("BTC-USD", "100000", { depth: 10 });
    const reply = h.amend({ order_id: order.order_id, quantity: "0.015" });
    expect(reply).toMatchObject({ kind: "ok", order: { status: "CANCELED", filled_quantity: 0.001 } });
    expect(h.account.orders.get(order.order_id)?.reason).toBe("news_freeze");
    expect(replay(h.journal)).toEqual(h.state);
  });
});
