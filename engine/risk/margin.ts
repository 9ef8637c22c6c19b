// Margin and equity of an account at the current marks (docs/engine.md, "Positions and money"):
// equity = balance + Σ unrealized; margin_locked = Σ positions' initial margin; working orders that can add
// exposure reserve margin; margin_available = equity − margin_locked − reserved.
import type { AccountState } from "../basics/account-state.js";
import type { Plan } from "../basics/plans.js";
import type { TickerSpec } from "../market/catalogue.js";
import { markAtReset, type MarketView } from "../market/book.js";
import { marginFor, notionalOf, tickerUnits, type TickerUnits } from "../market/units.js";
import { positionMargin, unrealizedPnl } from "../positions/ledger.js";
import type { Position } from "../basics/position-types.js";

/** Leverage of a position on a ticker: the lower of the plan's for its asset class and the ticker's. */
export function leverageFor(plan: Plan, spec: TickerSpec): number {
  return Math.min(plan.max_leverage[spec.asset_class], spec.max_leverage);
}

/** Margin a working order reserves: remaining steps × price / leverage, none for reduce-only orders. */
export function reserveFor(
  reduceOnly: boolean,
  remainingSteps: number,
  priceTicks: number,
  units: TickerUnits,
  leverage: number,
): number {
  if (reduceOnly || remainingSteps <= 0 || priceTicks <= 0) return 0;
  return marginFor(notionalOf(priceTicks, remainingSteps, units.unitsPerTickStep), leverage);
}

export interface MarginSnapshot {
  readonly unrealized: number;
  readonly equity: number;
  readonly locked: number;
  readonly reserved: number;
  readonly available: number;
}

/** A position's unrealized P&L at the view's mark (0 on a symbol without a price: it counts at entry). */
function unrealizedAtMark(position: Position, market: MarketView): number {
  const quote = market.quotes.get(position.symbol);
  return quote === undefined ? 0 : unrealizedPnl(position, quote.mark, quote.units);
}

/** Σ unrealized P&L at the view's marks (a position on a symbol without a price counts at entry: 0). */
export function unrealizedOf(state: AccountState, market: MarketView): number {
  let unrealized = 0;
  for (const position of state.positions.values()) unrealized += unrealizedAtMark(position, market);
  return unrealized;
}

/**
 * Equity at the marks in force at the daily reset `reset` (00:00Z), at or before the view's updates: the day's
 * start (docs/risk.md, "Daily reset"). Read before any event of the new day, so the balance is the reset's too.
 */
export function equityAtReset(state: AccountState, market: MarketView, reset: number): number {
  let unrealized = 0;
  for (const position of state.positions.values()) {
    const quote = market.quotes.get(position.symbol);
    if (quote !== undefined) unrealized += unrealizedPnl(position, markAtReset(quote, reset), quote.units);
  }
  return state.balance + unrealized;
}

/** The account's margin at the view's marks (a position on a symbol without a price counts at entry). */
export function marginSnapshot(state: AccountState, market: MarketView): MarginSnapshot {
  // One walk over the positions for both sums (unrealizedOf's, and the margin they lock); `forEach`, as a
  // draft's iterators would list its entries first.
  let unrealized = 0;
  let locked = 0;
  state.positions.forEach((position) => {
    unrealized += unrealizedAtMark(position, market);
    locked += positionMargin(position);
  });
  const equity = state.balance + unrealized;
  const reserved = state.reserved_margin;
  return { unrealized, equity, locked, reserved, available: equity - locked - reserved };
}

/** The fixed-point view of a ticker in the market's catalogue. */
export function unitsIn(market: MarketView, symbol: string): TickerUnits | undefined {
  const spec = market.catalogue.byKey(symbol);
  return spec === undefined ? undefined : tickerUnits(spec);
}
