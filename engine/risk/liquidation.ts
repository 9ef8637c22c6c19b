// Liquidation (docs/risk.md, "Liquidation"): a position whose mark reaches the liquidation price it shows
// (`liquidation_price`, the isolated estimate of positions/ledger.ts) is closed at the mark by the risk system,
// at every price update, fill and funding payment, before the account's limits are judged.
import type { AccountState } from "../accounts/state.js";
import type { MarketView } from "../market/book.js";
import type { TickerUnits } from "../market/units.js";
import { liquidatePosition } from "../orders/execution.js";
import type { Run } from "../orders/run.js";
import { liquidationPrice } from "../positions/ledger.js";
import type { Position } from "../positions/types.js";

/**
 * Liquidation prices by position object: positions are replaced, never mutated, so a price computed once holds
 * for the object's life, and a price update that checks every position of an account costs a lookup each, not a
 * BigInt division.
 */
const PRICES = new WeakMap<Position, number>();

/** Whether the mark (ticks) is at or past the position's liquidation price: long at or below, short at or above. */
export function liquidationReached(position: Position, mark: number, units: TickerUnits): boolean {
  let price = PRICES.get(position);
  if (price === undefined) {
    price = liquidationPrice(position, units);
    PRICES.set(position, price);
  }
  return position.side === "BUY" ? mark <= price : mark >= price;
}

/** The open positions to liquidate at the view's marks (a symbol without a price has no mark: never). */
export function positionsToLiquidate(state: AccountState, market: MarketView): Position[] {
  let due: Position[] | undefined;
  for (const position of state.positions.values()) {
    const quote = market.quotes.get(position.symbol);
    if (quote === undefined) continue;
    if (liquidationReached(position, quote.mark, quote.units)) (due ??= []).push(position);
  }
  return due ?? [];
}

/** Closes every position whose mark reached its liquidation price (run by the monitor before judging). */
export function liquidate(run: Run): void {
  for (const position of positionsToLiquidate(run.state, run.market)) liquidatePosition(run, position);
}
