import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CATALOGUE } from "../market/catalogue.js";
import { notionalOf, tickerUnits } from "../market/units.js";
import type { Side } from "../basics/order-types.js";
import { applyFill, liquidationPrice, planFill, positionMargin, unrealizedPnl } from "./ledger.js";
import type { Position } from "../basics/position-types.js";

const spec = CATALOGUE.byKey("BTC-USD");
if (spec === undefined) throw new Error("BTC-USD missing");
const units = tickerUnits(spec);
const USD = 100_000_000;

/** Runs one fill of `steps` BTC steps at `ticks` through planFill and applyFill. */
function fill(position: Position | undefined, side: Side, steps: number, ticks: number, fee = 0, at = 1) {
  const notional = notionalOf(ticks, steps, units.unitsPerTickStep);
  const plan = planFill(position, side, steps, notional);
  const outcome = applyFill(
    position,
    {
      position_id: position?.position_id ?? "p1",
      symbol: "BTC-USD",
      venue: "GMX",
      side,
      quantity: steps,
      fee,
      realized_pnl: plan.realized_pnl,
    },
    { notional, effect: plan.effect, released_basis: plan.released_basis, leverage: 2, at },
  );
  return { plan, ...outcome };
}

function open(side: Side, steps: number, ticks: number): Position {
  const { position } = fill(undefined, side, steps, ticks);
  if (position === undefined) throw new Error("expected a position");
  return position;
}

describe("a netted position", () => {
  it("opens with its entry notional as cost basis", () => {
    const position = open("BUY", 3_000, 1_000_000);
    expect(position).toMatchObject({ side: "BUY", quantity: 3_000, cost_basis: 30_000 * USD, leverage: 2 });
  });

  it("adds on the same side at the average entry", () => {
    const { plan, position } = fill(open("BUY", 3_000, 1_000_000), "BUY", 1_000, 1_010_000);
    expect(plan.effect).toBe("increase");
    expect(position).toMatchObject({ quantity: 4_000, cost_basis: 40_100 * USD });
  });

  it("realizes (exit − entry) × qty on a long reduced at a profit", () => {
    const long = fill(open("BUY", 3_000, 1_000_000), "BUY", 1_000, 1_010_000).position;
    const { plan, position } = fill(long, "SELL", 1_000, 1_020_000);
    // average entry 100250, exit 102000, 0.1 BTC: 175 USD
    expect(plan).toEqual({ effect: "reduce", released_basis: 10_025 * USD, realized_pnl: 175 * USD });
    expect(position).toMatchObject({ quantity: 3_000, cost_basis: 30_075 * USD, realized_pnl: 175 * USD });
  });

  it("realizes (entry − exit) × qty on a short", () => {
    const { plan } = fill(open("SELL", 10_000, 1_000_000), "BUY", 5_000, 990_000);
    expect(plan.realized_pnl).toBe(500 * USD);
    const loss = fill(open("SELL", 10_000, 1_000_000), "BUY", 5_000, 1_010_000);
    expect(loss.plan.realized_pnl).toBe(-500 * USD);
  });

  it("releases cost basis in rounded shares that add up to the whole", () => {
    let position: Position | undefined = {
      ...open("BUY", 3, 1_000_000),
      cost_basis: 1_000,
    };
    const released: number[] = [];
    for (let i = 0; i < 3; i++) {
      const step = fill(position, "SELL", 1, 1_000_000);
      released.push(step.plan.released_basis);
      position = step.position;
    }
    expect(released).toEqual([333, 334, 333]);
    expect(position).toBeUndefined();
  });

  it("closes into a history row with lifetime totals", () => {
    const long = fill(open("BUY", 3_000, 1_000_000), "BUY", 1_000, 1_010_000, 7).position;
    const half = fill(long, "SELL", 2_000, 1_020_000, 5, 2).position;
    const { position, closed } = fill(half, "SELL", 2_000, 990_000, 3, 3);
    expect(position).toBeUndefined();
    expect(closed).toEqual({
      position_id: "p1",
      symbol: "BTC-USD",
      venue: "GMX",
      side: "BUY",
      quantity: 4_000,
      entry_notional: BigInt(40_100 * USD),
      exit_notional: BigInt(40_200 * USD),
      // +350 on the first half (102000 vs 100250), −250 on the second (99000 vs 100250)
      realized_pnl: 100 * USD,
      fees: 15,
      funding: 0,
      leverage: 2,
      opened_at: 1,
      closed_at: 3,
    });
  });

  it("refuses a reduce larger than the position (the core splits flips)", () => {
    expect(() => planFill(open("BUY", 10, 1_000_000), "SELL", 11, 1)).toThrow(/exceeds/);
  });

  it("refuses a fill that does not match the position it names", () => {
    const long = open("BUY", 10, 1_000_000);
    const change = { notional: 1, effect: "increase" as const, released_basis: 0, leverage: 2, at: 1 };
    const record = { position_id: "other", symbol: "BTC-USD", venue: "GMX" as const, side: "BUY" as const };
    expect(() => applyFill(long, { ...record, quantity: 1, fee: 0, realized_pnl: 0 }, change)).toThrow();
    expect(() =>
      applyFill(long, { ...record, quantity: 1, fee: 0, realized_pnl: 0 }, { ...change, effect: "open" }),
    ).toThrow();
  });

  it("keeps cost basis and realized P&L exact over any sequence of reduces", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 900_000, max: 1_100_000 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 900_000, max: 1_100_000 })), {
          maxLength: 20,
        }),
        (size, entry, exits) => {
          let position: Position | undefined = open("BUY", size, entry);
          const cost = position.cost_basis;
          let released = 0;
          let realized = 0;
          let exitNotional = 0;
          for (const [steps, ticks] of exits) {
            if (position === undefined) break;
            const qty = Math.min(steps, position.quantity);
            const step = fill(position, "SELL", qty, ticks);
            released += step.plan.released_basis;
            realized += step.plan.realized_pnl;
            exitNotional += notionalOf(ticks, qty, units.unitsPerTickStep);
            position = step.position;
          }
          expect(released + (position?.cost_basis ?? 0)).toBe(cost);
          expect(realized).toBe(exitNotional - released);
        },
      ),
    );
  });
});

describe("margin, unrealized P&L and liquidation", () => {
  const long = fill(open("BUY", 3_000, 1_000_000), "BUY", 1_000, 1_010_000).position;
  if (long === undefined) throw new Error("expected a position");

  it("locks entry notional / leverage", () => {
    expect(positionMargin(long)).toBe(20_050 * USD);
  });

  it("marks a long at (mark − entry) × qty", () => {
    expect(unrealizedPnl(long, 1_000_000, units)).toBe(-100 * USD);
    expect(unrealizedPnl(long, 1_005_000, units)).toBe(100 * USD);
  });

  it("marks a short the other way", () => {
    expect(unrealizedPnl(open("SELL", 10_000, 1_000_000), 990_000, units)).toBe(1_000 * USD);
  });

  it("puts the liquidation estimate of a 2x long at half its entry", () => {
    expect(liquidationPrice(long, units)).toBe(501_250);
    expect(liquidationPrice(open("SELL", 10_000, 1_000_000), units)).toBe(1_500_000);
  });
});
