// Exposure as the exposure cap counts it (docs/risk.md, `exposure_cap`): per symbol, the largest the
// position could become if every working order that can add exposure filled, `max(|P + B|, |P − S|)`, with
// P the signed position notional at the mark (both venues), B and S the working BUY and SELL notional. The
// account's total is the sum over symbols. Everything in units; O(symbols in use) per call.
import type { AccountState } from "../basics/account-state.js";
import type { MarketView } from "../market/book.js";
import { CATALOGUE } from "../market/catalogue.js";
import { VENUES } from "../market/types.js";
import { notionalOf, unitsFor } from "../market/units.js";
import { isWorking, type Order, type Side } from "../basics/order-types.js";
import { positionKey, type Position } from "../basics/position-types.js";

/**
 * Notional (units) a working order could add to its side of the symbol's exposure, as `order_exposure` keeps
 * it: its remaining steps at its own price; 0 for reduce-only orders, final orders and MARKET orders (they
 * never outlive their decision; the order being checked is counted by the check itself).
 */
export function workingOrderExposure(order: Order | undefined): number {
  if (order === undefined || order.reduce_only || order.kind === "MARKET" || !isWorking(order.status)) return 0;
  const price = order.limit_price ?? order.trigger_price;
  if (price === null) return 0;
  return notionalOf(price, order.quantity - order.filled_quantity, unitsFor(CATALOGUE, order.symbol).unitsPerTickStep);
}

/**
 * Steps of a non-reduce-only order that could add exposure: its `steps` beyond what is left of the opposite
 * position once the working orders on the same side (not reduce-only; `except` aside, the order being
 * amended) have reduced it first. Five SELL orders each the size of a long only reduce it once between them.
 */
export function addingSteps(
  state: AccountState,
  order: Pick<Order, "symbol" | "venue" | "side" | "reduce_only">,
  steps: number,
  opposite: Position | undefined,
  except?: string,
): number {
  if (order.reduce_only) return 0;
  if (opposite === undefined) return steps;
  let left = opposite.quantity;
  for (const other of state.working.values()) {
    if (left <= 0) break;
    if (
      other.order_id === except ||
      other.reduce_only ||
      other.symbol !== order.symbol ||
      other.venue !== order.venue ||
      other.side !== order.side
    ) {
      continue;
    }
    left -= other.quantity - other.filled_quantity;
  }
  return Math.max(0, steps - Math.max(0, left));
}

/** An order being checked: its side and the notional it could add (units). */
export interface ExtraExposure {
  readonly symbol: string;
  readonly side: Side;
  readonly notional: number;
}

/** A position's notional (units) at the mark, at its entry while the symbol has no price. */
export function notionalAtMark(position: Position, market: MarketView): number {
  const quote = market.quotes.get(position.symbol);
  if (quote === undefined) return position.cost_basis;
  return notionalOf(quote.mark, position.quantity, quote.units.unitsPerTickStep);
}

/** Signed notional (long positive) of the symbol's open positions at the mark (at entry without a price). */
export function positionNotional(state: AccountState, market: MarketView, symbol: string): number {
  // A flat account (every resting order, most of the time) has nothing to look up: no keys to build.
  if (state.positions.size === 0) return 0;
  let total = 0;
  for (const venue of VENUES) {
    const position = state.positions.get(positionKey(symbol, venue));
    if (position === undefined) continue;
    const value = notionalAtMark(position, market);
    total += position.side === "BUY" ? value : -value;
  }
  return total;
}

/** The symbol's exposure, with an order being checked counted on its side. */
export function symbolExposure(state: AccountState, market: MarketView, symbol: string, extra?: ExtraExposure): number {
  const position = positionNotional(state, market, symbol);
  const working = state.order_exposure.get(symbol);
  let buy = working?.buy ?? 0;
  let sell = working?.sell ?? 0;
  if (extra !== undefined && extra.symbol === symbol) {
    if (extra.side === "BUY") buy += extra.notional;
    else sell += extra.notional;
  }
  return Math.max(Math.abs(position + buy), Math.abs(position - sell));
}

/**
 * Every symbol with an open position or working orders, once, in first-seen order. A list, not a Set: an
 * account trades a few symbols, and this runs for every order (a Set per call cost more than the scans). The
 * tables are walked with `forEach`: a draft's iterators would build lists of their entries first.
 */
function symbolsInUse(state: AccountState, extra?: ExtraExposure): string[] {
  const symbols: string[] = [];
  state.positions.forEach((position) => {
    if (!symbols.includes(position.symbol)) symbols.push(position.symbol);
  });
  state.order_exposure.forEach((sides, symbol) => {
    if ((sides.buy !== 0 || sides.sell !== 0) && !symbols.includes(symbol)) symbols.push(symbol);
  });
  if (extra !== undefined && !symbols.includes(extra.symbol)) symbols.push(extra.symbol);
  return symbols;
}

/** A symbol's exposure and the account's total (units). */
export interface Exposures {
  readonly symbol: number;
  readonly total: number;
}

/**
 * The symbol's exposure and the account's total (Σ symbol exposures), with an order being checked counted, in
 * one walk: the symbol's figure is its term of the total (a symbol not in use has none, and is 0 then unless
 * it is the order's).
 */
export function exposuresOf(state: AccountState, market: MarketView, symbol: string, extra?: ExtraExposure): Exposures {
  let total = 0;
  let own: number | undefined;
  for (const inUse of symbolsInUse(state, extra)) {
    const exposure = symbolExposure(state, market, inUse, extra);
    total += exposure;
    if (inUse === symbol) own = exposure;
  }
  return { symbol: own ?? symbolExposure(state, market, symbol, extra), total };
}
