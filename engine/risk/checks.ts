// The pre-trade checks, one small pure function each: `(input) => Violation | undefined`. Adding a rule is
// adding one function here and one line in pipeline.ts. The formulas are in docs/risk.md.
import type { AccountState } from "../basics/account-state.js";
import type { TickerSpec } from "../market/catalogue.js";
import { usdToUnits as usdUnits } from "../market/units.js";
import { BOOK_LEVELS, isQuoteOpen, type MarketView, type SymbolQuote } from "../market/book.js";
import { affects, type NewsEvent } from "../market/calendar.js";
import { marginFor, notionalOf, tickerUnits, unitsToDecimalString } from "../market/units.js";
import type { Order } from "../basics/order-types.js";
import { executesOnEntry } from "../basics/entry.js";
import { positionKey } from "../basics/position-types.js";
import { fee } from "../venues/fees.js";
import { dailyLoss, type Limits } from "./limits.js";
import type { MarginSnapshot } from "./margin.js";
import { critical, type Violation } from "../basics/risk-types.js";

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
  /** The account's margin and equity now (before the order). */
  readonly margin: MarginSnapshot;
  /** The plan's limits as they stand now. */
  readonly limits: Limits;
  /** Notional (units) of the exposure the order adds, at `priceTicks`; 0 when it adds none. */
  readonly exposureNotional: number;
  /** Taker fee (units) on `exposureNotional`: what opening that exposure costs at once. */
  readonly openingFee: number;
  /** The news calendar, in time order. */
  readonly calendar: readonly NewsEvent[];
  /** At a fill: its slippage against the mark (units), counted instead of a walk over the book. */
  readonly fillSlippage?: number;
  /** Exposure (units) of the order's symbol and of the account with the order counted (docs/risk.md). */
  readonly symbolExposure: number;
  readonly totalExposure: number;
}

const usd = unitsToDecimalString;

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

/** An order that must execute at once: a MARKET, or a LIMIT that is IOC or FOK (nothing of it may rest). */
const executesAtOnce = (order: Order): boolean =>
  order.kind === "MARKET" ||
  (order.kind === "LIMIT" && (order.time_in_force === "IOC" || order.time_in_force === "FOK"));

/**
 * A HELD bracket child is exempt: it executes only when its parent fills, which needs the market open, and is
 * placed for execution then (docs/risk.md, "Time in force on activation").
 */
export const marketClosed: RiskCheck = ({ order, quote, now, spec }) =>
  order.status !== "HELD" && executesAtOnce(order) && quote !== undefined && !isQuoteOpen(quote, now)
    ? critical("market_closed", `the ${spec.asset_class} market for ${spec.symbol} is closed`)
    : undefined;

/** The taker fee of opening `notional` with this order (what the checks charge the order at once). */
export function openingFeeOf(order: Order, spec: TickerSpec, quote: SymbolQuote | undefined, notional: number): number {
  if (notional <= 0) return 0;
  return fee(notional, {
    venue: order.venue,
    assetClass: spec.asset_class,
    liquidity: "TAKER",
    effect: "open",
    side: order.side,
    skew: quote?.skew ?? 0,
  });
}

export const insufficientMargin: RiskCheck = (input) => {
  if (input.exposureSteps <= 0) return undefined;
  const needed = marginFor(input.exposureNotional, input.leverage) + input.openingFee;
  const { available } = input.margin;
  if (needed <= available) return undefined;
  return critical(
    "insufficient_margin",
    `the order needs ${usd(needed)} USD of margin; ${usd(Math.max(0, available))} USD is available`,
  );
};

/** Equity after the order's opening fee must stay at or above the drawdown floor. */
export const drawdownGate: RiskCheck = ({ margin, openingFee, limits }) => {
  const after = margin.equity - openingFee;
  if (after >= limits.drawdownFloor) return undefined;
  return critical(
    "drawdown_gate",
    `equity ${usd(margin.equity)} USD less the order's fee ${usd(openingFee)} USD is below the drawdown floor of ${usd(limits.drawdownFloor)} USD`,
  );
};

/**
 * The order's worst case (docs/risk.md): every fee the whole order pays (the opening fee on the part it adds,
 * the closing fee on the part it reduces), the slippage of the whole order through the book, plus the loss to
 * the nearest stop-loss already protecting the position it adds to (working, not HELD), with that stop's
 * closing fee. An order that adds nothing risks nothing here (reducing is never refused).
 */
export function worstCase(input: RiskInput): number {
  const { order, state, spec, quote } = input;
  if (input.exposureSteps <= 0) return 0;
  const units = tickerUnits(spec);
  const reducing = Math.max(0, order.quantity - input.exposureSteps);
  const start = quote !== undefined && executesOnEntry(order, quote, input.now) ? quote.mark : input.priceTicks;
  const closingLegFee =
    reducing === 0
      ? 0
      : fee(notionalOf(start, reducing, units.unitsPerTickStep), {
          venue: order.venue,
          assetClass: spec.asset_class,
          liquidity: "TAKER",
          effect: "close",
          side: order.side,
          skew: quote?.skew ?? 0,
        });
  const slippage = input.fillSlippage ?? bookSlippage(order, quote, start, units.unitsPerTickStep);
  const base = input.openingFee + closingLegFee + slippage;
  const long = order.side === "BUY";
  // Only a stop working against a position the order adds to protects it: a flat account's order opens a
  // position no stop covers yet, and a HELD child stop waits for another order's entry.
  const position = state.positions.get(positionKey(order.symbol, order.venue));
  if (position?.side !== order.side) return base;
  let nearest: number | undefined;
  for (const stop of state.stop_losses.values()) {
    if (stop.symbol !== order.symbol || stop.venue !== order.venue || stop.side === order.side) continue;
    if (stop.status === "HELD") continue;
    const trigger = stop.trigger_price;
    if (trigger === null) continue;
    if (nearest === undefined || (long ? trigger > nearest : trigger < nearest)) nearest = trigger;
  }
  if (nearest === undefined) return base;
  // From where it executes, as its slippage is: a crossing LIMIT fills from the mark, not at its limit.
  const distance = long ? start - nearest : nearest - start;
  const loss = distance > 0 ? notionalOf(distance, input.exposureSteps, units.unitsPerTickStep) : 0;
  const closingFee = fee(notionalOf(nearest, input.exposureSteps, units.unitsPerTickStep), {
    venue: order.venue,
    assetClass: spec.asset_class,
    liquidity: "TAKER",
    effect: "close",
    side: long ? "SELL" : "BUY",
    skew: quote?.skew ?? 0,
  });
  return base + loss + closingFee;
}

/**
 * What the whole order loses against `start` walking the book's levels from it (level i at `start` ± i ticks,
 * the quote's depth each; from the depth left when it executes now): Σ steps × distance, never past a LIMIT's
 * price. Steps the levels cannot hold are charged at the last level's price.
 */
function bookSlippage(order: Order, quote: SymbolQuote | undefined, start: number, unitsPerTickStep: number): number {
  if (quote === undefined) return 0;
  const buy = order.side === "BUY";
  const cap = order.limit_price === null ? Number.POSITIVE_INFINITY : Math.abs(order.limit_price - start);
  let taken = start === quote.mark ? (buy ? quote.takenBuy : quote.takenSell) : 0;
  let left = order.quantity;
  let ticks = 0;
  let level = Math.floor(taken / quote.depth);
  let last = 0;
  for (; left > 0 && level < BOOK_LEVELS && level <= cap; level++) {
    const steps = Math.min(left, quote.depth * (level + 1) - taken);
    if (steps <= 0) continue;
    ticks += steps * level;
    left -= steps;
    taken += steps;
    last = level;
  }
  return notionalOf(ticks + left * Math.min(last, cap), 1, unitsPerTickStep);
}

/** The day's loss must be below the limit, and the order's worst case must fit in what is left. */
export const dailyLossLimit: RiskCheck = (input) => {
  const { limits } = input;
  const loss = dailyLoss(input.state, input.margin.equity);
  if (loss >= limits.dailyLimit) {
    return critical(
      "daily_loss_limit",
      `today's loss of ${usd(loss)} USD has reached the daily limit of ${usd(limits.dailyLimit)} USD`,
    );
  }
  const worst = worstCase(input);
  if (loss + worst <= limits.dailyLimit) return undefined;
  return critical(
    "daily_loss_limit",
    `the order could lose ${usd(worst)} USD; ${usd(limits.dailyLimit - loss)} USD of today's limit of ${usd(limits.dailyLimit)} USD is left`,
  );
};

/** Index of the first event at or after `at` in a calendar sorted by time. */
function firstFrom(calendar: readonly NewsEvent[], at: number): number {
  let low = 0;
  let high = calendar.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((calendar[mid]?.at ?? Infinity) < at) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The event whose freeze window (minutes before/after, both ends inclusive) holds `now` for this ticker. */
export function freezingEvent(
  calendar: readonly NewsEvent[],
  spec: TickerSpec,
  now: number,
  window: { minutes_before: number; minutes_after: number },
): NewsEvent | undefined {
  const before = window.minutes_before * 60_000;
  const after = window.minutes_after * 60_000;
  for (let i = firstFrom(calendar, now - after); i < calendar.length; i++) {
    const event = calendar[i];
    if (event === undefined || event.at - before > now) break;
    if (affects(event, spec)) return event;
  }
  return undefined;
}

export const newsFreeze: RiskCheck = ({ calendar, spec, now, state }) => {
  const event = freezingEvent(calendar, spec, now, state.plan.news_freeze);
  if (event === undefined) return undefined;
  const { minutes_before: before, minutes_after: after } = state.plan.news_freeze;
  return critical(
    "news_freeze",
    `${spec.symbol} is frozen from ${before} min before to ${after} min after "${event.title}" at ${event.scheduled_at}`,
  );
};

/** The symbol's and the account's exposure, with the order counted, must stay within the plan's caps. */
export const exposureCap: RiskCheck = (input) => {
  if (input.exposureNotional <= 0) return undefined;
  const { state, order } = input;
  const symbolCap = usdUnits(state.plan.max_symbol_notional);
  const symbol = input.symbolExposure;
  if (symbol > symbolCap) {
    return critical(
      "exposure_cap",
      `${order.symbol} exposure would be ${usd(symbol)} USD, above the cap of ${usd(symbolCap)} USD (working orders count)`,
    );
  }
  const totalCap = usdUnits(state.plan.max_total_notional);
  const total = input.totalExposure;
  if (total <= totalCap) return undefined;
  return critical(
    "exposure_cap",
    `total exposure would be ${usd(total)} USD, above the cap of ${usd(totalCap)} USD (working orders count)`,
  );
};

/**
 * Wraps an exposure rule: orders that cannot add exposure skip it: reduce-only orders (children and closes
 * included), and orders that only reduce the opposite position (nothing beyond it).
 */
export function exposureRule(check: RiskCheck): RiskCheck {
  return (input) => (input.order.reduce_only || input.exposureSteps <= 0 ? undefined : check(input));
}
