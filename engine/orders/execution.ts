// Execution against the simulated venues (docs/engine.md, "Execution"): market and crossing limit orders
// take depth level by level, resting limits fill as maker through the book when the mark crosses them, stops
// and take-profits trigger on the mark or the index and then take like market orders. Reduce-only fills are
// clamped to the opposite position, a fill that flips a position is split into a close and an open, the
// first fill of a parent activates its HELD children and a child's fill cancels its siblings (OCO).
import type { AccountState } from "../basics/account-state.js";
import { fillableSteps, isQuoteOpen, takenOn, takerFills, type BookFill, type SymbolQuote } from "../market/book.js";
import { notionalOf, tickerUnits } from "../market/units.js";
import { planFill } from "../positions/ledger.js";
import { positionKey, type Position } from "../basics/position-types.js";
import { leverageFor, reserveFor } from "../risk/margin.js";
import { fillRiskInput } from "../risk/input.js";
import { FILL_CHECKS, firstViolation } from "../risk/pipeline.js";
import { isExposureRule, type RuleViolation, type Violation } from "../basics/risk-types.js";
import type { Venue } from "../market/types.js";
import { fee, type Liquidity } from "../venues/fees.js";
import type { Run } from "../basics/run.js";
import {
  isWorking,
  remainingOf,
  type CancelReason,
  type ExpireReason,
  type FillReason,
  type Order,
} from "../basics/order-types.js";

/** `placement`: the order was just placed or amended (a crossing limit takes); `update`: a price update. */
export type Phase = "placement" | "update";

function working(state: AccountState, orderId: string): Order | undefined {
  const order = state.orders.get(orderId);
  return order !== undefined && isWorking(order.status) ? order : undefined;
}

/** Whether a LIMIT's price is crossed by the mark (buy: mark ≤ limit; sell: mark ≥ limit). */
export function crosses(order: Pick<Order, "side" | "limit_price">, mark: number): boolean {
  if (order.limit_price === null) return false;
  return order.side === "BUY" ? mark <= order.limit_price : mark >= order.limit_price;
}

/** Whether a STOP/TAKE_PROFIT's reference (mark or index) has reached its trigger. */
export function triggerReached(order: Order, quote: SymbolQuote): boolean {
  if (order.trigger_price === null) return false;
  const reference = order.index_trigger ? quote.index : quote.mark;
  const rising = (order.kind === "STOP") === (order.side === "BUY");
  return rising ? reference >= order.trigger_price : reference <= order.trigger_price;
}

/** The open position at (symbol, venue) when it is opposite to `side`: what an order on that side reduces. */
export function oppositePosition(
  state: AccountState,
  symbol: string,
  venue: Venue,
  side: Order["side"],
): Position | undefined {
  const position = state.positions.get(positionKey(symbol, venue));
  return position !== undefined && position.side !== side ? position : undefined;
}

/** Steps of an opposite position a reduce-only order may fill (none when it targets another position). */
export function reducibleOf(opposite: Position | undefined, positionId: string | null): number {
  if (opposite === undefined) return 0;
  if (positionId !== null && opposite.position_id !== positionId) return 0;
  return opposite.quantity;
}

/** Steps a reduce-only order may still fill: the open opposite position (the targeted one, if any). */
export function reducibleSteps(
  state: AccountState,
  order: Pick<Order, "symbol" | "venue" | "side" | "position_id">,
): number {
  return reducibleOf(oppositePosition(state, order.symbol, order.venue, order.side), order.position_id);
}

/** The price (ticks) a working order's reserve is valued at: its limit, its trigger, else the mark. */
export function reservePrice(
  order: Pick<Order, "limit_price" | "trigger_price">,
  quote: SymbolQuote | undefined,
): number {
  return order.limit_price ?? order.trigger_price ?? quote?.mark ?? 0;
}

/**
 * Cancels a working order (with the violation row a refused fill records); a parent without fills takes its
 * working children with it.
 */
export function cancelOrder(run: Run, orderId: string, reason: CancelReason, violation?: RuleViolation): void {
  const order = working(run.state, orderId);
  if (order === undefined) return;
  run.emit(
    violation === undefined
      ? { type: "OrderCanceled", at: run.now, order_id: orderId, reason }
      : { type: "OrderCanceled", at: run.now, order_id: orderId, reason, violation },
  );
  if (order.filled_quantity === 0) cancelChildren(run, order);
  else if (order.child_ids.length > 0) endBracket(run, orderId);
}

/** Expires a working order; a parent without fills cancels its working children. */
export function expireOrder(run: Run, orderId: string, reason: ExpireReason): void {
  const order = working(run.state, orderId);
  if (order === undefined) return;
  run.emit({ type: "OrderExpired", at: run.now, order_id: orderId, reason });
  if (order.filled_quantity === 0) cancelChildren(run, order);
  else if (order.child_ids.length > 0) endBracket(run, orderId);
}

function cancelChildren(run: Run, parent: Order): void {
  for (const childId of parent.child_ids) {
    if (working(run.state, childId) !== undefined) {
      run.emit({ type: "OrderCanceled", at: run.now, order_id: childId, reason: "parent_canceled" });
    }
  }
}

/** Expires every working GTD order whose `expire_at` has passed (run before every command). */
export function expireDue(run: Run): void {
  if (run.state.expiries.size === 0) return;
  let due: string[] | undefined;
  for (const [orderId, expireAt] of run.state.expiries) if (expireAt <= run.now) (due ??= []).push(orderId);
  if (due !== undefined) for (const orderId of due) expireOrder(run, orderId, "gtd");
}

/**
 * Executes one working order against the current quote, then the HELD children its first fill activated.
 * IOC/FOK apply when the order can execute now: a MARKET or LIMIT at placement, a STOP/TAKE_PROFIT once
 * triggered. A child's activation is its placement: it executes at once with its time in force honoured.
 * `gated`: the part of its fills that adds exposure is checked again (see `fillLevels`); always on an update,
 * and at an amend the checks did not judge (one that only lowers the quantity).
 */
export function executeOrder(
  run: Run,
  orderId: string,
  phase: Phase,
  current?: Order,
  gated: boolean = phase === "update",
): void {
  // `current`: the caller's object is the order as it stands (it was just accepted and nothing since touched
  // it), so a resting order is looked at without building the decision's draft state.
  const order = current ?? working(run.state, orderId);
  if (order === undefined || order.status === "HELD") return;
  if (order.filled_quantity > 0 || order.child_ids.length === 0) {
    executeOne(run, order, phase, gated);
    return;
  }
  const from = run.activated.length;
  executeOne(run, order, phase, gated);
  for (let i = from; i < run.activated.length; i++) {
    const childId = run.activated[i];
    if (childId !== undefined) executeOne(run, working(run.state, childId), "placement", false);
  }
}

function executeOne(run: Run, current: Order | undefined, phase: Phase, gated: boolean): void {
  let order = current;
  if (order === undefined || order.status === "HELD") return;
  const orderId = order.order_id;
  const quote = run.market.quotes.get(order.symbol);
  const open = quote !== undefined && isQuoteOpen(quote, run.now);
  let immediate = true;
  switch (order.kind) {
    case "MARKET":
      if (open) take(run, order, quote, null, false);
      break;
    case "LIMIT":
      immediate = phase === "placement";
      if (open && crosses(order, quote.mark)) {
        if (phase === "placement") take(run, order, quote, order.limit_price, gated);
        else make(run, order, quote);
      }
      break;
    case "STOP":
    case "TAKE_PROFIT":
      if (!order.triggered) {
        if (!open || !triggerReached(order, quote)) return;
        // A bracket child with nothing of its parent's fills left to close stays armed until there is some.
        if (awaitsParent(run.state, order) && closableSteps(run.state, order) === 0) return;
        const reference = order.index_trigger ? quote.index : quote.mark;
        run.emit({ type: "OrderTriggered", at: run.now, order_id: orderId, reference_price: reference });
        order = working(run.state, orderId);
        if (order === undefined) return;
      }
      // Checked at placement when it triggers then; on an update the rules are checked again at its fills.
      if (open) take(run, order, quote, null, gated);
      rearmIfClosedAll(run, orderId);
      break;
  }
  // Only IOC and FOK do anything with a remainder (the time in force never changes within a decision).
  if (!immediate || (order.time_in_force !== "IOC" && order.time_in_force !== "FOK")) return;
  const rest = working(run.state, orderId);
  if (rest === undefined) return;
  if (rest.time_in_force === "IOC") cancelOrder(run, orderId, "ioc_remainder");
  else if (rest.time_in_force === "FOK") expireOrder(run, orderId, "fok");
}

/**
 * A triggered bracket child that has closed all its parent filled while the parent still works waits for its
 * trigger again (docs/risk.md, "Brackets protect every fill"): the parent's next fill is protected at the
 * trigger, not closed at once at whatever the market is then.
 */
function rearmIfClosedAll(run: Run, orderId: string): void {
  const order = working(run.state, orderId);
  if (order?.triggered !== true || !awaitsParent(run.state, order)) return;
  if (closableSteps(run.state, order) > 0) return;
  run.emit({ type: "OrderRearmed", at: run.now, order_id: orderId });
}

/**
 * The steps a reduce-only order could close now: what is left of the position it reduces and, for a bracket
 * child, of its parent's fills the children have not closed yet.
 */
function closableSteps(state: AccountState, order: Order): number {
  return Math.min(reducibleSteps(state, order), bracketRoom(state, order));
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

/**
 * Steps a bracket child may still close: its parent's filled quantity less what all the parent's children
 * have filled (they protect that quantity together). Unbounded for an order without a parent.
 */
export function bracketRoom(state: AccountState, order: Pick<Order, "parent_order_id">): number {
  if (order.parent_order_id === null) return Number.POSITIVE_INFINITY;
  const parent = state.orders.get(order.parent_order_id);
  if (parent === undefined) return 0;
  return Math.max(0, parent.filled_quantity - childrenFilled(state, parent));
}

function childrenFilled(state: AccountState, parent: Order): number {
  let filled = 0;
  for (const childId of parent.child_ids) filled += state.orders.get(childId)?.filled_quantity ?? 0;
  return filled;
}

/** Whether the order is a bracket child whose parent still works: it waits for the parent's next fill. */
function awaitsParent(state: AccountState, order: Pick<Order, "parent_order_id">): boolean {
  if (order.parent_order_id === null) return false;
  const parent = state.orders.get(order.parent_order_id);
  return parent !== undefined && isWorking(parent.status);
}

/**
 * A bracket ends when its parent is final and the children have closed everything it filled: until then they
 * protect the rest of the position it opened, and its later fills. Its working children are canceled then:
 * the siblings of the child whose fill ended it as `oco`, that child's own rest as having nothing to reduce.
 */
function endBracket(run: Run, parentId: string, lastFilled?: string): void {
  const parent = run.state.orders.get(parentId);
  if (parent === undefined || isWorking(parent.status)) return;
  if (childrenFilled(run.state, parent) < parent.filled_quantity) return;
  for (const childId of parent.child_ids) {
    cancelOrder(run, childId, childId === lastFilled ? "reduce_only_no_position" : "oco");
  }
}

function taken(run: Run, quote: SymbolQuote, order: Order): number {
  return takenOn(quote, order.side) + run.localTaken(order.symbol, order.side);
}

/**
 * Takes depth as a taker, level by level, never worse than `cap`; FOK fills all of it or expires. `gated`: the
 * part that adds exposure is checked again, whole, before any of it fills (see `fillLevels`).
 */
function take(run: Run, order: Order, quote: SymbolQuote, cap: number | null, gated: boolean): void {
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
function make(run: Run, order: Order, quote: SymbolQuote): void {
  const want = wanted(run, order);
  if (want === 0 || order.limit_price === null) return;
  const levels = takerFills(quote, order.side, want, order.limit_price, taken(run, quote, order));
  fillLevels(run, order, quote, levels, "MAKER", true);
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

/**
 * The position of (symbol, venue) just closed: the other working reduce-only orders there (stop-losses,
 * take-profits, reduce-only limits) have nothing left to reduce and are canceled now, not when they would
 * trigger (a stale stop must not hold risk budget, nor wait to act on a later position). Children of a parent
 * that still works (HELD or not) are left alone: they belong to the position its next fills open; a triggered
 * one of them is re-armed, so the parent's next fill waits for its trigger instead of being closed at once at
 * whatever the market is then. The order that closed it is `afterFills`' business.
 */
function cancelOrphanedReduceOnly(run: Run, symbol: string, venue: Order["venue"], closingId: string): void {
  const orphans: string[] = [];
  const triggered: string[] = [];
  // A bracket's children are reduce-only, so the triggered ones awaiting their parent are among these too.
  for (const order of run.state.reduce_only.values()) {
    if (order.order_id === closingId || order.symbol !== symbol || order.venue !== venue) continue;
    if (order.triggered && awaitsParent(run.state, order)) triggered.push(order.order_id);
    if (order.status !== "HELD" && reducibleSteps(run.state, order) === 0 && !awaitsParent(run.state, order)) {
      orphans.push(order.order_id);
    }
  }
  for (const orderId of orphans) cancelOrder(run, orderId, "reduce_only_no_position");
  for (const orderId of triggered) rearmIfClosedAll(run, orderId);
}

function emitFill(
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
  run.emit({
    type: "OrderFilled",
    at: run.now,
    fill: {
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
      ...(reason === undefined ? {} : { reason }),
    },
    notional,
    effect: plan.effect,
    released_basis: plan.released_basis,
    leverage,
    reserve_after: reserveAfter,
    book_version: quote.version,
  });
}

function activateChildren(run: Run, parentId: string): void {
  const parent = run.state.orders.get(parentId);
  if (parent === undefined) return;
  for (const childId of parent.child_ids) {
    if (run.state.orders.get(childId)?.status === "HELD") {
      run.emit({ type: "OrderActivated", at: run.now, order_id: childId });
      run.activated.push(childId);
    }
  }
}

/** A price update: every working order on the updated symbols, in placement order (parents before children). */
export function onPriceUpdate(run: Run, symbols: ReadonlySet<string> | undefined): void {
  const ids: string[] = [];
  for (const order of run.state.working.values()) {
    if (symbols !== undefined && !symbols.has(order.symbol)) continue;
    // A HELD child executes when its parent's fill activates it (`executeOrder`), as if placed then.
    if (order.status === "HELD" || restsThrough(run, order)) continue;
    ids.push(order.order_id);
  }
  for (const orderId of ids) executeOrder(run, orderId, "update");
}

/**
 * A LIMIT the mark does not cross does nothing on an update (`executeOrder` neither takes nor makes, and
 * IOC/FOK apply only at placement), and nothing in an update changes its side or price: it is skipped
 * before the lookup by id. Most working orders of a busy account are such resting limits.
 */
function restsThrough(run: Run, order: Order): boolean {
  if (order.kind !== "LIMIT") return false;
  const quote = run.market.quotes.get(order.symbol);
  return quote === undefined || !crosses(order, quote.mark);
}

/**
 * The risk system closes a position at once (termination, liquidation: docs/risk.md): a reduce-only MARKET order
 * for the whole quantity, filled as a taker at the mark whatever the book's depth (the venue's closing fee
 * charged), the fill carrying `reason`. Without a price for the symbol it closes at the position's average entry
 * (no P&L). Returns the closing order's id.
 */
export function closeAtMark(run: Run, position: Position, reason: FillReason): string {
  const quote = run.market.quotes.get(position.symbol) ?? entryQuote(run, position);
  const order: Order = {
    order_id: run.nextId(),
    account_id: run.state.account_id,
    client_id: null,
    symbol: position.symbol,
    side: position.side === "BUY" ? "SELL" : "BUY",
    kind: "MARKET",
    quantity: position.quantity,
    filled_quantity: 0,
    filled_notional: 0,
    limit_price: null,
    trigger_price: null,
    time_in_force: "IOC",
    expire_at: null,
    post_only: false,
    reduce_only: true,
    index_trigger: false,
    mark_trigger: false,
    venue: position.venue,
    parent_order_id: null,
    position_id: position.position_id,
    status: "NEW",
    created_at: run.now,
    updated_at: run.now,
    triggered: false,
    reserve: 0,
    child_ids: [],
    reason: null,
  };
  run.emit({ type: "OrderAccepted", at: run.now, order });
  emitFill(run, order, quote, quote.mark, position.quantity, "TAKER", position, reason);
  return order.order_id;
}

/**
 * Liquidates a position (docs/risk.md, "Liquidation"): closed at the mark like any close by the risk system,
 * then the working reduce-only orders left with nothing to reduce on it are canceled, as after any close
 * (`reduce_only_no_position`; children of a parent that still works stay, for its next fills).
 */
export function liquidatePosition(run: Run, position: Position): void {
  const closingId = closeAtMark(run, position, "liquidation");
  cancelOrphanedReduceOnly(run, position.symbol, position.venue, closingId);
}

/** A stand-in quote at the position's average entry, for a symbol the shard has no price for. */
function entryQuote(run: Run, position: Position): SymbolQuote {
  const spec = run.market.catalogue.bySymbol(position.symbol);
  if (spec === undefined) throw new RangeError(`unknown symbol ${position.symbol}`);
  const units = tickerUnits(spec);
  const entry = Math.max(1, Math.round(position.cost_basis / (position.quantity * units.unitsPerTickStep)));
  return {
    spec,
    units,
    mark: entry,
    index: entry,
    skew: 0,
    open: true,
    depth: position.quantity,
    version: -1,
    takenBuy: 0,
    takenSell: 0,
    at: 0,
    resetMark: entry,
    nextReset: 0,
  };
}
