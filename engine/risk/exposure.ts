// Exposure as the exposure cap counts it (docs/risk.md, `exposure_cap`): per symbol, the largest the
// position could become if every working order that can add exposure filled, `max(|P + B|, |P − S|)`, with
// P the signed position notional at the mark (both venues), B and S the working BUY and SELL notional. The
// account's total is the sum over symbols. Everything in units; O(symbols in use) per call.
import type { AccountState } from "../accounts/state.js";
import type { MarketView } from "../market/book.js";
import { VENUES } from "../market/types.js";
import { notionalOf } from "../market/units.js";
import type { Side } from "../orders/types.js";
import { positionKey, type Position } from "../positions/types.js";

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
 * account trades a few symbols, and this runs for every order (a Set per call cost more than the scans).
 */
function symbolsInUse(state: AccountState, extra?: ExtraExposure): string[] {
  const symbols: string[] = [];
  for (const position of state.positions.values()) {
    if (!symbols.includes(position.symbol)) symbols.push(position.symbol);
  }
  for (const [symbol, sides] of state.order_exposure) {
    if ((sides.buy !== 0 || sides.sell !== 0) && !symbols.includes(symbol)) symbols.push(symbol);
  }
  if (extra !== undefined && !symbols.includes(extra.symbol)) symbols.push(extra.symbol);
  return symbols;
}

/** The account's total exposure: Σ symbol exposures, with an order being checked counted. */
export function totalExposure(state: AccountState, market: MarketView, extra?: ExtraExposure): number {
  let total = 0;
  for (const symbol of symbolsInUse(state, extra)) total += symbolExposure(state, market, symbol, extra);
  return total;
}
