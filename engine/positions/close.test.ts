import { describe, expect, it } from "vitest";
import { replay } from "../core.js";
import { Harness, PLAN, usd } from "../core.testing.js";

/** A 10K account long 0.01 BTC at 100000.0 on GMX. */
function long(): Harness {
  const h = new Harness().open(PLAN.c10k);
  h.quote("BTC-USD", "100000");
  h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
  return h;
}

describe("close position", () => {
  it("closes the whole position with a reduce-only MARKET order by default", () => {
    const h = long();
    const position = [...h.account.positions.values()][0];
    h.quote("BTC-USD", "101000");
    const reply = h.close({ symbol: "btcusd" });
    expect(reply).toMatchObject({
      kind: "created",
      order: {
        side: "SELL",
        kind: "MARKET",
        quantity: 0.01,
        reduce_only: true,
        time_in_force: "IOC",
        position_id: position?.position_id,
        status: "FILLED",
      },
      fills: [{ quantity: 0.01, price: 101000, realized_pnl: 10, fee: 0.606 }],
      violations: [],
    });
    expect(h.account.positions.size).toBe(0);
    expect(h.account.closed_positions).toEqual([
      expect.objectContaining({ position_id: position?.position_id, realized_pnl: usd("10"), fees: usd("1.206") }),
    ]);
    expect(replay(h.journal)).toEqual(h.state);
  });

  it("closes part of the position", () => {
    const h = long();
    expect(h.close({ symbol: "BTC-USD", quantity: "0.004" })).toMatchObject({ order: { status: "FILLED" } });
    expect([...h.account.positions.values()]).toEqual([expect.objectContaining({ quantity: 60 })]);
  });

  it("rests a LIMIT close until the mark reaches its price", () => {
    const h = long();
    const reply = h.close({ symbol: "BTC-USD", kind: "LIMIT", price: "102000" });
    expect(reply).toMatchObject({ order: { status: "NEW", limit_price: 102000, time_in_force: "GTC" } });
    h.price("BTC-USD", "101500");
    expect(h.account.positions.size).toBe(1);
    h.price("BTC-USD", "102000");
    expect(h.account.positions.size).toBe(0);
    expect(h.account.closed_positions[0]?.realized_pnl).toBe(usd("20"));
  });

  it("closes a partial quantity with a LIMIT that crosses at once", () => {
    const h = long();
    const reply = h.close({ symbol: "BTC-USD", kind: "LIMIT", price: "99000", quantity: "0.005" });
    expect(reply).toMatchObject({ order: { status: "FILLED", filled_quantity: 0.005 }, fills: [{ price: 100000 }] });
    expect([...h.account.positions.values()]).toEqual([expect.objectContaining({ quantity: 50 })]);
  });

  it("never closes more than the position", () => {
    const h = long();
    const reply = h.close({ symbol: "BTC-USD", quantity: "0.05" });
    expect(reply).toMatchObject({ order: { status: "CANCELED", filled_quantity: 0.01 } });
    expect(h.account.positions.size).toBe(0);
  });

  it("answers 404 without an open position", () => {
    const h = long();
    expect(h.close({ symbol: "ETH-USD" })).toEqual({ kind: "error", code: "not_found", fields: {} });
    expect(h.close({ symbol: "BTC-USD", venue: "OSTIUM" })).toMatchObject({ code: "not_found" });
    expect(h.close({ symbol: "BTC-USD", position_id: "nope" })).toMatchObject({ code: "not_found" });
  });

  it("asks for a venue or position_id when the symbol is open on both venues", () => {
    const h = long();
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.02", venue: "OSTIUM" });
    expect(h.close({ symbol: "BTC-USD" })).toMatchObject({
      code: "invalid_payload",
      fields: { issues: [{ path: "venue" }] },
    });
    const ostium = h.account.positions.get("BTC-USD|OSTIUM");
    expect(h.close({ symbol: "BTC-USD", venue: "OSTIUM" })).toMatchObject({
      order: { venue: "OSTIUM", status: "FILLED" },
    });
    expect(h.account.closed_positions[0]?.position_id).toBe(ostium?.position_id);
    const gmx = h.account.positions.get("BTC-USD|GMX");
    expect(h.close({ symbol: "BTC-USD", position_id: gmx?.position_id ?? "" })).toMatchObject({
      order: { venue: "GMX", status: "FILLED" },
    });
    expect(h.account.positions.size).toBe(0);
  });

  it("replays a close retried with its client_id", () => {
    const h = long();
    const first = h.close({ symbol: "BTC-USD", client_id: "close-1" });
    expect(h.close({ symbol: "BTC-USD", client_id: "close-1" })).toEqual({ ...first, kind: "replayed" });
  });
});
