// Liquidation (docs/risk.md, "Liquidation"): a position whose mark reaches the liquidation price it shows
// (`liquidation_price`, the isolated estimate of positions/ledger.ts) is closed at the mark by the risk system,
// at every price update, fill and funding payment, before the account's limits are judged.
import type { AccountState } from "../basics/account-state.js";
import type { MarketView } from "../market/book.js";
import type { TickerUnits } from "../market/units.js";
import { liquidatePosition } from "./forced-close.js";
import type { Run } from "../basics/run.js";
import { liquidationPrice } from "../positions/ledger.js";
import type { Position } from "../basics/position-types.js";

/**
 * Whether the mark (ticks) is at or past the position's liquidation price: long at or below, short at or above.
 * The exact price is one BigInt ratio (market/units.ts `liquidationTicks`); a mark more than a tick away from
 * its floating-point estimate is decided without it (the estimate is off by far less than half a tick, and the
 * exact price is that ratio rounded to the nearest tick), so a price update pays for BigInt only near the edge.
 */
export function liquidationReached(position: Position, mark: number, units: TickerUnits): boolean {
  const long = position.side === "BUY";
  const perLeverage = 1 / position.leverage;
  const estimate =
    (position.cost_basis / (position.quantity * units.unitsPerTickStep)) * (long ? 1 - perLeverage : 1 + perLeverage);
  if (mark <= estimate - 1) return long;
  if (mark >= estimate + 1) return !long;
  const price = liquidationPrice(position, units);
  return long ? mark <= price : mark >= price;
}

/** The answer of (almost) every call, shared: the monitor asks after every fill and on every price update. */
const NOTHING_DUE: readonly Position[] = Object.freeze([]);

/** The open positions to liquidate at the view's marks (a symbol without a price has no mark: never). */
export function positionsToLiquidate(state: AccountState, market: MarketView): readonly Position[] {
  let due: Position[] | undefined;
  for (const position of state.positions.values()) {
    const quote = market.quotes.get(position.symbol);
    if (quote === undefined) continue;
    if (liquidationReached(position, quote.mark, quote.units)) (due ??= []).push(position);
  }
  return due ?? NOTHING_DUE;
}

/** Closes every position whose mark reached its liquidation price (run by the monitor before judging). */
export function liquidate(run: Run): void {
  for (const position of positionsToLiquidate(run.state, run.market)) liquidatePosition(run, position);
}
