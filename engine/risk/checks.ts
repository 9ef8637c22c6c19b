// The pre-trade checks, one small pure function each: `(input) => Violation | undefined`. Adding a rule is
// adding one function here and one line in pipeline.ts (issue 4: drawdown_gate, daily_loss_limit,
// news_freeze, exposure_cap).
import type { AccountState } from "../accounts/state.js";
import type { TickerSpec } from "../market/catalogue.js";
import { isQuoteOpen, type MarketView, type SymbolQuote } from "../market/book.js";
import { marginFor, notionalOf, tickerUnits, unitsToDecimalString } from "../market/units.js";
import type { Order } from "../orders/types.js";
import { fee } from "../venues/fees.js";
import { marginSnapshot } from "./margin.js";
import { critical, type Violation } from "./types.js";

/** Everything a check may look at; built once per order. */
export interface RiskInput {
  readonly state: AccountState;
  readonly market: MarketView;
  readonly now: number;
  readonly spec: TickerSpec;
  readonly quote: SymbolQuote | undefined;
  /** The order as it would be placed. */
  readonly order: Order;
  /** Steps of the order that would add exposure (beyond the opposite position it would reduce). */
  readonly exposureSteps: number;
  /** The price (ticks) exposure is valued at: the limit, the trigger or the mark. */
  readonly priceTicks: number;
  readonly leverage: number;
}

export type RiskCheck = (input: RiskInput) => Violation | undefined;

export const accountTerminated: RiskCheck = ({ state }) =>
  state.state === "TERMINATED" ? critical("account_terminated", "the account is terminated") : undefined;

export const venueNotAllowed: RiskCheck = ({ state, spec, order }) => {
  if (!state.allowed_venues.includes(order.venue)) {
    return critical("venue_not_allowed", `the account's plan does not allow ${order.venue}`);
  }
  if (!spec.venues.includes(order.venue)) {
    return critical("venue_not_allowed", `${order.venue} does not list ${spec.symbol}`);
  }
  return undefined;
};

export const marketClosed: RiskCheck = ({ order, quote, now, spec }) =>
  order.kind === "MARKET" && quote !== undefined && !isQuoteOpen(quote, now)
    ? critical("market_closed", `the ${spec.asset_class} market for ${spec.symbol} is closed`)
    : undefined;

export const insufficientMargin: RiskCheck = (input) => {
  if (input.exposureSteps <= 0) return undefined;
  const { order, quote, spec } = input;
  const notional = notionalOf(input.priceTicks, input.exposureSteps, tickerUnits(spec).unitsPerTickStep);
  const takerFee = fee(notional, {
    venue: order.venue,
    assetClass: spec.asset_class,
    liquidity: "TAKER",
    effect: "open",
    side: order.side,
    skew: quote?.skew ?? 0,
  });
  const needed = marginFor(notional, input.leverage) + takerFee;
  const { available } = marginSnapshot(input.state, input.market);
  if (needed <= available) return undefined;
  return critical(
    "insufficient_margin",
    `the order needs ${unitsToDecimalString(needed)} USD of margin; ${unitsToDecimalString(Math.max(0, available))} USD is available`,
  );
};

/** Wraps an exposure rule: reduce-only orders (children and closes included) skip it. */
export function exposureRule(check: RiskCheck): RiskCheck {
  return (input) => (input.order.reduce_only ? undefined : check(input));
}
