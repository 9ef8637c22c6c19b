// Builds the one RiskInput every check of an order reads (computed once: margin, limits, exposure, fee),
// and the `risk_headroom` the order leaves (docs/risk.md, "risk_headroom").
import type { AccountState } from "../basics/account-state.js";
import type { MarketView, SymbolQuote } from "../market/book.js";
import type { NewsEvent } from "../market/calendar.js";
import type { TickerSpec } from "../market/catalogue.js";
import { notionalOf, tickerUnits, unitsToNumber, usdToUnits } from "../market/units.js";
import type { Order } from "../basics/order-types.js";
import { openingFeeOf, type RiskInput } from "./checks.js";
import { exposuresOf } from "./exposure.js";
import { dailyLoss, limitsOf } from "./limits.js";
import { leverageFor, marginSnapshot } from "./margin.js";
import type { RiskHeadroom } from "../basics/risk-types.js";

export interface RiskInputParts {
  state: AccountState;
  market: MarketView;
  now: number;
  calendar: readonly NewsEvent[];
  spec: TickerSpec;
  quote: SymbolQuote | undefined;
  order: Order;
  /** Steps that could add exposure (beyond the opposite position): what fee, margin and worst case are charged on. */
  exposureSteps: number;
  priceTicks: number;
  leverage: number;
  /**
   * Notional (units) the order counts in `B` or `S` of the exposure cap (docs/risk.md): its whole quantity at
   * its price, 0 when reduce-only; for an amend, the amended order's less what the old one counted.
   */
  countedNotional: number;
}

export function riskInput(parts: RiskInputParts): RiskInput {
  const { state, market, order, spec, quote } = parts;
  const exposureNotional =
    parts.exposureSteps > 0 ? notionalOf(parts.priceTicks, parts.exposureSteps, tickerUnits(spec).unitsPerTickStep) : 0;
  const extra = { symbol: order.symbol, side: order.side, notional: parts.countedNotional };
  const exposures = exposuresOf(state, market, order.symbol, extra);
  // Field by field, not a spread: one fixed-shape literal (a spread of the parts cost ~7 µs per order).
  return {
    state,
    market,
    now: parts.now,
    calendar: parts.calendar,
    spec,
    quote,
    order,
    exposureSteps: parts.exposureSteps,
    priceTicks: parts.priceTicks,
    leverage: parts.leverage,
    margin: marginSnapshot(state, market),
    limits: limitsOf(state),
    exposureNotional,
    openingFee: openingFeeOf(order, spec, quote, exposureNotional),
    symbolExposure: exposures.symbol,
    totalExposure: exposures.total,
  };
}

const remaining = (units: number): number => unitsToNumber(Math.max(0, units));

/**
 * Computed as if the order were accepted (its opening fee paid, its exposure counted): for an accepted
 * order the room it leaves, for a rejected one the room it would have left (0 where it breaks a cap).
 */
export function headroomOf(input: RiskInput): RiskHeadroom {
  const { limits, margin, openingFee, state } = input;
  return {
    daily_loss_remaining: remaining(limits.dailyLimit - dailyLoss(state, margin.equity) - openingFee),
    drawdown_remaining: remaining(margin.equity - openingFee - limits.drawdownFloor),
    symbol_exposure_remaining: remaining(usdToUnits(state.plan.max_symbol_notional) - input.symbolExposure),
    total_exposure_remaining: remaining(usdToUnits(state.plan.max_total_notional) - input.totalExposure),
  };
}

/**
 * The room the account has once an order's decision is done: its fills and fees in the balance, what they
 * caused (breaches, termination) in the state, the order's rest counted among the working orders. All 0 for a
 * terminated account: it has no room left.
 */
export function headroomAfter(
  state: AccountState,
  market: MarketView,
  symbol: string,
  /** The account's equity at the view's marks, when the caller has just computed it for this very state. */
  knownEquity?: number,
): RiskHeadroom {
  if (state.state === "TERMINATED") {
    return {
      daily_loss_remaining: 0,
      drawdown_remaining: 0,
      symbol_exposure_remaining: 0,
      total_exposure_remaining: 0,
    };
  }
  const limits = limitsOf(state);
  const equity = knownEquity ?? marginSnapshot(state, market).equity;
  const exposures = exposuresOf(state, market, symbol);
  return {
    daily_loss_remaining: remaining(limits.dailyLimit - dailyLoss(state, equity)),
    drawdown_remaining: remaining(equity - limits.drawdownFloor),
    symbol_exposure_remaining: remaining(usdToUnits(state.plan.max_symbol_notional) - exposures.symbol),
    total_exposure_remaining: remaining(usdToUnits(state.plan.max_total_notional) - exposures.total),
  };
}

export interface FillRiskParts {
  state: AccountState;
  market: MarketView;
  now: number;
  calendar: readonly NewsEvent[];
  order: Order;
  quote: SymbolQuote;
  /** The levels of the part of the fill that adds exposure, best first: steps and price (ticks) of each. */
  levels: readonly { readonly price: number; readonly steps: number }[];
}

/**
 * The RiskInput of the part of a working order's fill that adds exposure, over all the levels it takes: that
 * part as the order, valued at its worst level's price; its margin available with the order's own reserve (the
 * fill uses it); nothing more in the exposure cap (the order already counts among the working orders); and its
 * slippage each level's distance from the mark.
 */
export function fillRiskInput(parts: FillRiskParts): RiskInput {
  const { state, order, quote, levels } = parts;
  let steps = 0;
  let slippageTicks = 0;
  let worst = quote.mark;
  for (const level of levels) {
    steps += level.steps;
    slippageTicks += Math.abs(level.price - quote.mark) * level.steps;
    worst = level.price;
  }
  const input = riskInput({
    state,
    market: parts.market,
    now: parts.now,
    calendar: parts.calendar,
    spec: quote.spec,
    quote,
    order: { ...order, quantity: steps },
    exposureSteps: steps,
    priceTicks: worst,
    leverage: leverageFor(state.plan, quote.spec),
    countedNotional: 0,
  });
  return {
    ...input,
    margin: { ...input.margin, available: input.margin.available + order.reserve },
    fillSlippage: notionalOf(slippageTicks, 1, quote.units.unitsPerTickStep),
  };
}
