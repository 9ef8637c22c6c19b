// Filling an order against the simulated book (docs/engine.md, "Execution"): a taker takes depth level by
// level, a resting limit the mark crossed fills as maker; reduce-only fills are clamped to the opposite
// position, a fill that flips a position is split into a close and an open, and the part of a resting order's
// fill that adds exposure is checked again first (docs/risk.md, "Orders after placement").
import { fillableSteps, takenOn, takerFills, type BookFill, type SymbolQuote } from "../market/book.js";
import { notionalOf } from "../market/units.js";
import { planFill } from "../positions/ledger.js";
import { positionKey, type Position } from "../basics/position-types.js";
import { leverageFor, reserveFor } from "../risk/margin.js";
import { fillRiskInput } from "../risk/input.js";
import { FILL_CHECKS, firstViolation } from "../risk/pipeline.js";
import { isExposureRule, type Violation } from "../basics/risk-types.js";
import { fee, type Liquidity } from "../venues/fees.js";
import type { Run } from "../basics/run.js";
import { remainingOf, type Draft, type Fill, type FillReason, type Order } from "../basics/order-types.js";
import { awaitsParent, closableSteps, oppositePosition, reducibleSteps, reservePrice, working } from "./conditions.js";
import { activateChildren, cancelOrder, cancelOrphanedReduceOnly, endBracket, expireOrder } from "./lifecycle.js";

function taken(run: Run, quote: SymbolQuote, order: Order): number {
  return takenOn(quote, order.side) + run.localTaken(order.symbol, order.side);
}

/**
 * Takes depth as a taker, level by level, never worse than `cap`; FOK fills all of it or expires. `gated`: the
 * part that adds exposure is checked again, whole, before any of it fills (see `fillLevels`).
 */
export function take(run: Run, order: Order, quote: SymbolQuote, cap: number | null, gated: boolean): void {
  const want = wanted(run, order);
  if (want === 0) return;
  const already = taken(run, quote, order);
  // FOK fills its whole remainder or nothing: a reduce-only cap below it (a close larger than the position)
  // expires the order like a book too thin.
  if (
    order.time_in_force === "FOK" &&
    (want < remainingOf(order) || fillableSteps(quote, order.side, cap, already) < want)
  ) {
    expireOrder(run, order.order_id, "fok");
    return;
  }
  fillLevels(run, order, quote, takerFills(quote, order.side, want, cap, already), "TAKER", gated);
}

/**
 * Fills a resting LIMIT the mark crossed, as maker: at the market's price through the book (level by level from
 * the mark, as a taker would), never worse than its limit. A market that gaps through the limit fills it at the
 * better price the market offers, not at the limit.
 */
export function make(run: Run, order: Order, quote: SymbolQuote): void {
  const want = wanted(run, order);
  if (want === 0 || order.limit_price === null) return;
  const levels = takerFills(quote, order.side, want, order.limit_price, taken(run, quote, order));
  fillLevels(run, order, quote, levels, "MAKER", true);
}

/**
 * The steps the order may fill now: its remainder, clamped for reduce-only to the position and, for a bracket
 * child, to what its parent has filled that the children have not closed yet. Nothing to reduce cancels it,
 * unless it is the child of a parent that may still fill.
 */
function wanted(run: Run, order: Order): number {
  const remaining = remainingOf(order);
  if (!order.reduce_only) return remaining;
  const reducible = closableSteps(run.state, order);
  if (reducible === 0 && !awaitsParent(run.state, order)) cancelOrder(run, order.order_id, "reduce_only_no_position");
  return Math.min(remaining, reducible);
}

/** The exposure rule that refuses the levels of this order's fill that add exposure now, if any. */
function fillViolation(run: Run, order: Order, quote: SymbolQuote, levels: readonly BookFill[]): Violation | undefined {
  const input = fillRiskInput({
    state: run.state,
    market: run.market,
    now: run.now,
    calendar: run.calendar,
    order,
    quote,
    levels,
  });
  return firstViolation(input, FILL_CHECKS);
}

/** The adding part of a fill was refused: the order is canceled with the rule, and a violation row says why. */
function refuseFill(run: Run, order: Order, violation: Violation): void {
  const rule = violation.rule;
  if (!isExposureRule(rule)) throw new Error(`${rule} is not a rule a fill is checked against`);
  cancelOrder(run, order.order_id, rule, {
    violation_id: run.nextId(),
    rule,
    threshold: 0,
    value: 0,
    message: `the part of order ${order.order_id} that would add exposure was not executed: ${violation.message}`,
    occurred_at: run.now,
  });
}

/**
 * Fills the levels one by one. `gated` (a resting order's fill on a price update): the part that adds exposure
 * (beyond the opposite position) must pass the exposure rules as they stand, checked once over all its levels
 * after the part that reduces has filled; a refused part is not executed and the order is canceled with the
 * rule. A FOK is checked before anything fills, so a refused FOK fills nothing (all or nothing).
 */
function fillLevels(
  run: Run,
  order: Order,
  quote: SymbolQuote,
  levels: readonly BookFill[],
  liquidity: Liquidity,
  gated: boolean,
): void {
  const orderId = order.order_id;
  if (gated && !order.reduce_only) {
    const opposite = oppositePosition(run.state, order.symbol, order.venue, order.side);
    const [reducing, adding] = splitLevels(levels, opposite?.quantity ?? 0);
    if (adding.length > 0) {
      const fok = order.time_in_force === "FOK";
      if (!fok) for (const level of reducing) fillAt(run, orderId, quote, level.price, level.steps, liquidity);
      const current = working(run.state, orderId);
      if (current === undefined) return;
      const refused = fillViolation(run, current, quote, adding);
      if (refused !== undefined) {
        refuseFill(run, current, refused);
        return;
      }
      for (const level of fok ? levels : adding) fillAt(run, orderId, quote, level.price, level.steps, liquidity);
      afterFills(run, orderId);
      return;
    }
  }
  for (const level of levels) fillAt(run, orderId, quote, level.price, level.steps, liquidity);
  afterFills(run, orderId);
}

/** The levels split at `reducing` steps: the part that closes the opposite position, and the part that adds. */
function splitLevels(levels: readonly BookFill[], reducing: number): [BookFill[], BookFill[]] {
  const closes: BookFill[] = [];
  const adds: BookFill[] = [];
  let left = reducing;
  for (const level of levels) {
    const closing = Math.min(left, level.steps);
    left -= closing;
    if (closing > 0) closes.push({ price: level.price, steps: closing });
    if (level.steps > closing) adds.push({ price: level.price, steps: level.steps - closing });
  }
  return [closes, adds];
}

/** A reduce-only order with quantity left and no position left to reduce is canceled. */
function afterFills(run: Run, orderId: string): void {
  const order = working(run.state, orderId);
  if (
    order?.reduce_only === true &&
    remainingOf(order) > 0 &&
    reducibleSteps(run.state, order) === 0 &&
    !awaitsParent(run.state, order)
  ) {
    cancelOrder(run, orderId, "reduce_only_no_position");
  }
}

/** One price level's fill for an order: a close of the opposite position first, then an open or add. */
function fillAt(
  run: Run,
  orderId: string,
  quote: SymbolQuote,
  price: number,
  steps: number,
  liquidity: Liquidity,
): void {
  const before = working(run.state, orderId);
  if (before === undefined) return;
  const key = positionKey(before.symbol, before.venue);
  let left = steps;
  const position = run.state.positions.get(key);
  let closed = false;
  if (position !== undefined && position.side !== before.side) {
    const closing = Math.min(left, position.quantity);
    emitFill(run, before, quote, price, closing, liquidity, position);
    left -= closing;
    closed = closing === position.quantity;
  }
  const after = working(run.state, orderId);
  if (left > 0 && after !== undefined && !after.reduce_only) {
    emitFill(run, after, quote, price, left, liquidity, run.state.positions.get(key));
  }
  // Its first fill activates a parent's children.
  if (before.filled_quantity === 0 && (run.state.orders.get(orderId)?.filled_quantity ?? 0) > 0) {
    activateChildren(run, orderId);
  }
  // A child's fill, or the parent's last one, may end the bracket (its siblings go as `oco`).
  if (before.parent_order_id !== null) endBracket(run, before.parent_order_id, orderId);
  else if (before.child_ids.length > 0) endBracket(run, orderId);
  // After the OCO siblings went (with their own reason).
  if (closed) cancelOrphanedReduceOnly(run, before.symbol, before.venue, orderId);
}

export function emitFill(
  run: Run,
  order: Order,
  quote: SymbolQuote,
  price: number,
  steps: number,
  liquidity: Liquidity,
  position: Position | undefined,
  reason?: FillReason,
): void {
  const units = quote.units;
  const notional = notionalOf(price, steps, units.unitsPerTickStep);
  const plan = planFill(position, order.side, steps, notional);
  const leverage = position?.leverage ?? leverageFor(run.state.plan, quote.spec);
  const feeUnits = fee(notional, {
    venue: order.venue,
    assetClass: quote.spec.asset_class,
    liquidity,
    effect: plan.effect === "reduce" ? "close" : "open",
    side: order.side,
    skew: quote.skew,
  });
  const reserveAfter = reserveFor(
    order.reduce_only,
    remainingOf(order) - steps,
    reservePrice(order, quote),
    units,
    leverageFor(run.state.plan, quote.spec),
  );
  const fill: Draft<Fill> = {
    fill_id: run.nextId(),
    order_id: order.order_id,
    client_id: order.client_id,
    symbol: order.symbol,
    side: order.side,
    quantity: steps,
    price,
    fee: feeUnits,
    liquidity,
    venue: order.venue,
    realized_pnl: plan.realized_pnl,
    executed_at: run.now,
    position_id: position?.position_id ?? run.nextId(),
  };
  // Added only when set: a trader's fill has no `reason` key (and one literal shape, not a spread, per fill).
  if (reason !== undefined) fill.reason = reason;
  run.emit({
    type: "OrderFilled",
    at: run.now,
    fill,
    notional,
    effect: plan.effect,
    released_basis: plan.released_basis,
    leverage,
    reserve_after: reserveAfter,
    book_version: quote.version,
  });
}
