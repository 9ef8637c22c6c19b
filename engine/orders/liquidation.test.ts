// Liquidation (docs/risk.md, "Liquidation"): a position whose mark reaches its liquidation_price is closed at
// the mark by the risk system, at the price update that reaches it. A 10K static account on OSTIUM forex
// (leverage 30): long 10,000 EUR-USD at 1.00000 locks 333.33 of margin and shows a liquidation price of
// 1 × (1 − 1/30) = 0.96667; its loss there (333.33) stays inside the daily limit (500), so the account lives on.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { accountSummary, openPositions, positionHistory, trades } from "../accounts/queries.js";
import { replay } from "../core.js";
import { Harness, PLAN, usd } from "../core.testing.js";
import { takenOn } from "../market/book.js";
import type { TickerUnits } from "../market/units.js";
import { liquidationPrice } from "../positions/ledger.js";
import type { Position } from "../basics/position-types.js";
import { liquidationReached } from "./liquidation.js";
import { quietBand } from "../risk/quiet-band.js";

const all = { from: null, to: null, limit: 100 };

function longEur(): Harness {
  const h = new Harness().open(PLAN.c10k);
  h.quote("EUR-USD", "1");
  h.placed({ symbol: "EUR-USD", side: "BUY", kind: "MARKET", quantity: 10_000, venue: "OSTIUM" });
  return h;
}

describe("liquidation", () => {
  it("shows the price it enforces", () => {
    const h = longEur();
    expect(openPositions(h.account, h.market).data[0]).toMatchObject({
      liquidation_price: 0.96667,
      margin: 333.33333333,
    });
  });

  it("closes a long at the mark once a gap takes the mark past its liquidation price, reason liquidation", () => {
    const h = longEur();
    // A stop-loss below the liquidation price and a take-profit: the gap jumps past the first, not the second.
    const stop = h.placed({
      symbol: "EUR-USD",
      side: "SELL",
      kind: "STOP",
      quantity: 10_000,
      trigger_price: "0.95",
      reduce_only: true,
      venue: "OSTIUM",
    });
    const takeProfit = h.placed({
      symbol: "EUR-USD",
      side: "SELL",
      kind: "LIMIT",
      quantity: 10_000,
      limit_price: "1.02",
      reduce_only: true,
      venue: "OSTIUM",
    });
    // A resting BUY that adds exposure is not the position's: it keeps working.
    const buy = h.placed({
      symbol: "EUR-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: 1_000,
      limit_price: "0.9",
      venue: "OSTIUM",
    });
    const outboxBefore = h.outbox.length;

    h.price("EUR-USD", "0.966");
    expect(h.account.positions.size).toBe(0);
    const fill = trades(h.account, h.market, all).data.at(-1);
    expect(fill).toMatchObject({
      side: "SELL",
      quantity: 10_000,
      price: 0.966,
      liquidity: "TAKER",
      reason: "liquidation",
    });
    // Closed at the mark: −340 realized (OSTIUM charges no closing fee on forex).
    expect(fill?.realized_pnl).toBe(-340);
    expect(positionHistory(h.account, h.market, all).data[0]).toMatchObject({ exit_price: 0.966, realized_pnl: -340 });
    expect(h.balance).toBe(usd("10000") - usd("3") - usd("340"));
    // The reduce-only orders on it have nothing left to reduce; the BUY stays.
    expect(h.order(stop.order.order_id)).toMatchObject({ status: "CANCELED" });
    expect(h.account.orders.get(stop.order.order_id)?.reason).toBe("reduce_only_no_position");
    expect(h.account.orders.get(takeProfit.order.order_id)?.reason).toBe("reduce_only_no_position");
    expect(h.order(buy.order.order_id)).toMatchObject({ status: "NEW" });
    // Webhooks as for any close: the closing order's ack, its fill (with the reason), the position's close, the
    // cancels; and the daily loss's 50% breach (343 of 500).
    const types = h.outbox.slice(outboxBefore).map((e) => e.type);
    expect(types).toEqual([
      "order.ack",
      "order.fill",
      "position.close",
      "order.cancel",
      "order.cancel",
      "account.breach",
    ]);
    expect(JSON.parse(h.outbox[outboxBefore + 1]?.data ?? "{}")).toMatchObject({ reason: "liquidation" });
    expect(h.account.state).toBe("ACTIVE");
    const summary = accountSummary(h.account, h.market, h.now);
    expect(summary.margin_available).toBeGreaterThanOrEqual(0);
    // Journaled like any close: a replay rebuilds the same account, the fill's reason included.
    const rebuilt = replay(h.journal);
    expect(rebuilt.positions.size).toBe(0);
    expect(rebuilt.balance).toBe(h.balance);
    expect(rebuilt.fills.at(-1)?.reason).toBe("liquidation");
  });

  it("acts at the liquidation price exactly, not a tick before, for a long and a short", () => {
    const long = longEur();
    long.price("EUR-USD", "0.96668");
    expect(long.account.positions.size).toBe(1);
    long.price("EUR-USD", "0.96667");
    expect(long.account.positions.size).toBe(0);
    expect(long.account.fills.at(-1)).toMatchObject({ reason: "liquidation", price: 96_667 });

    // Short 10,000 at 1.00000: 1 × (1 + 1/30) = 1.03333.
    const short = new Harness().open(PLAN.c10k);
    short.quote("EUR-USD", "1");
    short.placed({ symbol: "EUR-USD", side: "SELL", kind: "MARKET", quantity: 10_000, venue: "OSTIUM" });
    expect(openPositions(short.account, short.market).data[0]?.liquidation_price).toBe(1.03333);
    short.price("EUR-USD", "1.03332");
    expect(short.account.positions.size).toBe(1);
    short.price("EUR-USD", "1.03333");
    expect(short.account.positions.size).toBe(0);
    expect(short.account.fills.at(-1)).toMatchObject({ side: "BUY", reason: "liquidation", price: 103_333 });
  });

  it("lets a stop that triggers on the same update close first: only what is left is liquidated", () => {
    const h = longEur();
    // A stop-loss above the liquidation price for half the position: the gap triggers it and liquidates the rest.
    h.placed({
      symbol: "EUR-USD",
      side: "SELL",
      kind: "STOP",
      quantity: 5_000,
      trigger_price: "0.98",
      reduce_only: true,
      venue: "OSTIUM",
    });
    h.price("EUR-USD", "0.966");
    const fills = h.lastEvents.flatMap((e) => (e.type === "OrderFilled" ? [e.fill] : []));
    expect(fills.map((f) => [f.quantity, f.reason ?? null])).toEqual([
      [5_000, null],
      [5_000, "liquidation"],
    ]);
    expect(h.account.positions.size).toBe(0);
  });

  it("re-arms a triggered stop of a parent that still works, so the parent's next fill is not sold at once", () => {
    // 100K: a BUY LIMIT 20,000 at 1 with a stop-loss child at 0.99; the parent fills 10,000, then a gap to
    // 0.966 in a thin book fills it a little more, triggers the stop (which closes as little) and liquidates
    // the rest. The parent still works, so its child stays, waiting for its trigger again.
    const h = new Harness().open(PLAN.c100kOstium);
    h.quote("EUR-USD", "1.0001");
    const order = { symbol: "EUR-USD", venue: "OSTIUM", quantity: 20_000 } as const;
    const parent = h.placed({ ...order, side: "BUY", kind: "LIMIT", limit_price: "1" }).order;
    const sl = h.placed({
      ...order,
      side: "SELL",
      kind: "STOP",
      trigger_price: "0.99",
      parent_order_id: parent.order_id,
    }).order;
    h.price("EUR-USD", "1", { depth: 10_000 });
    h.price("EUR-USD", "0.966", { depth: 1 });
    expect(h.account.fills.at(-1)?.reason).toBe("liquidation");
    expect(h.account.positions.size).toBe(0);
    expect(h.order(sl.order_id).status).toBe("PARTIALLY_FILLED");
    expect(h.lastEvents.at(-1)).toMatchObject({ type: "OrderRearmed", order_id: sl.order_id });
    // Back above the trigger, the parent's next fill opens a long the stop protects at 0.99.
    const closed = h.order(sl.order_id).filled_quantity;
    h.price("EUR-USD", "1", { depth: 3_000 });
    expect([...h.account.positions.values()].map((p) => p.quantity)).toEqual([3_000]);
    expect(h.order(sl.order_id).filled_quantity).toBe(closed);
    expect(replay(h.journal)).toEqual(h.account);
  });

  it("keeps the quiet band inside the liquidation price, so the update that reaches it is never skipped", () => {
    // 100K (daily limit 5,000): the 333.33 loss at the liquidation price is far from any breach level, so the
    // liquidation price is what bounds the band.
    const h = new Harness().open(PLAN.c100kOstium);
    h.quote("EUR-USD", "1");
    h.placed({ symbol: "EUR-USD", side: "BUY", kind: "MARKET", quantity: 10_000, venue: "OSTIUM" });
    expect(quietBand(h.account, h.market)?.low).toBe(96_668);
    h.price("EUR-USD", "0.96668");
    expect(h.account.positions.size).toBe(1);
    h.price("EUR-USD", "0.96667");
    expect(h.account.positions.size).toBe(0);
  });

  it("names the termination's closing fills by their reason", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    h.price("BTC-USD", "90000");
    expect(h.account.state).toBe("TERMINATED");
    expect(h.account.fills.at(-1)?.reason).toBe("termination");
    expect(h.account.fills[0]?.reason).toBeUndefined();
  });

  it("takes no depth from the shard's book: a forced close fills at the mark whatever the depth, for itself alone", () => {
    // The book is shared by every account of the shard; a liquidation or a termination's close is the risk
    // system's, filled at the mark whatever the depth, so it leaves the depth to the accounts' own orders.
    const liquidated = longEur();
    liquidated.price("EUR-USD", "0.966");
    expect(liquidated.account.fills.at(-1)?.reason).toBe("liquidation");
    const eur = liquidated.market.quotes.get("EUR-USD");
    expect(eur === undefined ? -1 : takenOn(eur, "SELL")).toBe(0);

    const terminated = new Harness().open(PLAN.c10k);
    terminated.quote("BTC-USD", "100000");
    terminated.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    terminated.price("BTC-USD", "90000");
    expect(terminated.account.fills.at(-1)?.reason).toBe("termination");
    const btc = terminated.market.quotes.get("BTC-USD");
    expect(btc === undefined ? -1 : takenOn(btc, "SELL")).toBe(0);
  });

  it("decides at the exact liquidation price, whatever the estimate it starts from says", () => {
    // The check estimates the price in floating point and computes the exact ratio only near it: for random
    // positions and marks around (and on) the exact price, it answers as the exact comparison does.
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.constantFrom(1, 2, 2.5, 3, 5, 10, 20, 30, 50, 100),
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.oneof(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -1_000_000, max: 1_000_000 })),
        (long, steps, entryTicks, leverage, unitsPerTickStep, offset) => {
          const position = {
            side: long ? "BUY" : "SELL",
            quantity: steps,
            cost_basis: Math.min(Number.MAX_SAFE_INTEGER, steps * entryTicks * unitsPerTickStep),
            leverage,
          } as Position;
          const units = { unitsPerTickStep } as TickerUnits;
          const exact = liquidationPrice(position, units);
          const mark = exact + offset;
          expect(liquidationReached(position, mark, units)).toBe(long ? mark <= exact : mark >= exact);
        },
      ),
      { seed: 9_001, numRuns: 20_000 },
    );
  });
});
