import { describe, expect, it } from "vitest";
import { Harness, PLAN } from "../core.testing.js";

const ORDER_FIELDS = [
  "order_id",
  "account_id",
  "client_id",
  "symbol",
  "side",
  "kind",
  "quantity",
  "filled_quantity",
  "avg_fill_price",
  "limit_price",
  "trigger_price",
  "time_in_force",
  "expire_at",
  "post_only",
  "reduce_only",
  "index_trigger",
  "mark_trigger",
  "venue",
  "parent_order_id",
  "position_id",
  "status",
  "created_at",
  "updated_at",
];

const FILL_FIELDS = [
  "fill_id",
  "order_id",
  "account_id",
  "client_id",
  "symbol",
  "side",
  "quantity",
  "price",
  "fee",
  "liquidity",
  "venue",
  "realized_pnl",
  "executed_at",
];

describe("wire records", () => {
  const h = new Harness().open(PLAN.c200k);
  h.quote("BTC-USD", "96412.3");
  const reply = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: 0.3, client_id: "c-1" });

  it("give an order exactly the contract's fields, in that order", () => {
    expect(Object.keys(reply.order)).toEqual(ORDER_FIELDS);
  });

  it("give a fill exactly the contract's fields, in that order", () => {
    expect(reply.fills.map((fill) => Object.keys(fill))).toEqual([FILL_FIELDS]);
  });

  it("write numbers from exact decimals, without binary noise", () => {
    expect(reply.order).toMatchObject({
      quantity: 0.3,
      filled_quantity: 0.3,
      avg_fill_price: 96412.3,
      client_id: "c-1",
    });
    // 0.3 × 96412.3 = 28923.69 USD at 6 bps = 17.354214 USD
    expect(reply.fills[0]).toMatchObject({ quantity: 0.3, price: 96412.3, fee: 17.354214, client_id: "c-1" });
    expect(JSON.stringify(reply)).not.toMatch(/\d\.\d*0000000\d|\d\.\d*9999999\d/);
  });

  it("write instants as ISO 8601 UTC with milliseconds", () => {
    expect(reply.order.created_at).toBe("2026-11-25T12:00:00.000Z");
    expect(reply.fills[0]?.executed_at).toBe("2026-11-25T12:00:00.000Z");
  });
});
