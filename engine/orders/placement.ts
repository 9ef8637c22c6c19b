// Placing an order (docs/engine.md, "Placement rules"): normalise, then the state-dependent outcomes in
// their documented order (idempotency, parent, position, reduce-only, risk, post-only), then accept and
// execute at once. A close-position request becomes a reduce-only order against the position and joins the
// same path after its own lookup.
import type { AccountState } from "../basics/account-state.js";
import type { SymbolQuote } from "../market/book.js";
import type { Venue } from "../market/types.js";
import { notionalOf, type TickerUnits } from "../market/units.js";
import { positionKey, type Position } from "../basics/position-types.js";
import { leverageFor, reserveFor } from "../risk/margin.js";
import { addingSteps } from "../risk/exposure.js";
import { headroomAfter, headroomOf, riskInput } from "../risk/input.js";
import { monitor } from "./monitor.js";
import type { RiskHeadroom } from "../basics/risk-types.js";
import { firstViolation } from "../risk/pipeline.js";
import type { RiskInput } from "../risk/checks.js";
import { critical, type Violation } from "../basics/risk-types.js";
import { recordOf, replayed } from "./idempotency.js";
import { idempotencyKey, requestedRecordKey, type IdempotencyKey } from "../basics/record-keys.js";
import { crosses } from "../basics/entry.js";
import { entryPrice, oppositePosition, reducibleOf, reservePrice, tooLarge } from "./conditions.js";
import { executeOrder } from "./execution.js";
import { toFillRecord, toOrderRecord, type FillRecord } from "../basics/order-records.js";
import { closeFingerprint, closeRetryMatches, orderFingerprint, orderRetryMatches } from "./fingerprint.js";
import {
  normalizeClose,
  normalizePlaceOrder,
  type ClosePositionRequest,
  type NormalizedOrder,
  type PlaceOrderRequest,
} from "./request.js";
import {
  conflict,
  invalid,
  notFound,
  orderLimitReached,
  type ErrorReply,
  type PlaceOrderReply,
  type TestOrderReply,
} from "../basics/replies.js";
import type { Issue } from "../../kernel/errors.js";
import type { Run } from "../basics/run.js";
import { isWorking, opposite, type Order } from "../basics/order-types.js";

const NO_CHILDREN: readonly string[] = Object.freeze([]);

/** What a placement with a key is recorded as: its key and the fingerprint of its body. */
interface Recorded {
  readonly key: IdempotencyKey;
  readonly fingerprint: string;
}
/**
 * The empty lists of a response, shared: every accepted order answers `violations: []` and every resting
 * one `fills: []`, and the violations stay in the state for idempotency. Frozen, so a consumer that tried
 * to add to one would throw instead of changing every response (nothing does: responses are read-only).
 */
const NO_FILLS: FillRecord[] = [];
Object.freeze(NO_FILLS);
const NO_VIOLATIONS: Violation[] = [];
Object.freeze(NO_VIOLATIONS);

/** PlaceOrder: POST /v1/order. */
export function placeOrder(run: Run, request: PlaceOrderRequest): PlaceOrderReply {
  return place(run, request, false) as PlaceOrderReply;
}

/**
 * TestOrder: POST /v1/order/test. The same normalisation and lookups as placing, every risk check, and the
 * headroom; nothing is emitted and `client_id` is neither replayed nor spent.
 */
export function testOrder(run: Run, request: PlaceOrderRequest): TestOrderReply | ErrorReply {
  return place(run, request, true) as TestOrderReply | ErrorReply;
}

function place(run: Run, request: PlaceOrderRequest, test: boolean): PlaceOrderReply | TestOrderReply {
  const state = run.state;
  if (request.account_id !== state.account_id) return notFound();
  // A retry of a known client_id (or request id) is judged against its first body, not the clock: a GTD
  // retried after its expire_at still replays instead of failing "must be in the future".
  const requested = test ? undefined : requestedRecordKey(request);
  const retry = requested !== undefined && recordOf(run, requested) !== undefined;
  const normalized = normalizePlaceOrder(request, run.market.catalogue, retry ? null : run.now);
  if (!normalized.ok) return invalid(normalized.issues);
  const intent = normalized.value;
  const key = test ? null : idempotencyKey(intent.client_id, intent.request_id);
  const recorded = key === null ? null : { key, fingerprint: orderFingerprint(intent, state.default_venue) };
  // `retry` already looked the key up: an unknown one has nothing to replay.
  const replay = retry
    ? replayed(run, key, (record) => orderRetryMatches(record, intent, state.default_venue))
    : undefined;
  if (replay !== undefined) return replay;
  // The cap on working orders (docs/engine.md, "Limits"): refused before anything is emitted, so a refused order
  // costs no memory and no journal row. Closing a position (ClosePosition) is never refused by it.
  if (!test && state.working.size >= run.maxWorkingOrders) return orderLimitReached(run.maxWorkingOrders);

  let venue: Venue | null = intent.venue;
  let parent: Order | undefined;
  if (intent.parent_order_id !== null) {
    parent = state.orders.get(intent.parent_order_id);
    if (parent === undefined) return notFound();
    if (!isWorking(parent.status) && parent.filled_quantity === 0) {
      return conflict({ reason: "parent_final", order_id: parent.order_id });
    }
    const issues: Issue[] = [];
    if (parent.parent_order_id !== null) {
      issues.push({ path: "parent_order_id", message: "a child order cannot be a parent" });
    }
    if (parent.symbol !== intent.symbol) issues.push({ path: "symbol", message: "must be the parent's symbol" });
    if (parent.side === intent.side) issues.push({ path: "side", message: "must be opposite to the parent's side" });
    if (venue !== null && venue !== parent.venue) issues.push({ path: "venue", message: "must be the parent's venue" });
    if (issues.length > 0) return invalid(issues);
    venue = parent.venue;
  }
  if (intent.position_id !== null) {
    const position = findPosition(state, intent.position_id);
    if (position === undefined) return notFound();
    if (position.symbol !== intent.symbol) {
      return invalid([{ path: "position_id", message: "the position is on another symbol" }]);
    }
    if (venue !== null && venue !== position.venue) {
      return invalid([{ path: "venue", message: "must be the position's venue" }]);
    }
    venue = position.venue;
  }
  const order: NormalizedOrder = parent === undefined ? intent : { ...intent, reduce_only: true };
  return submit(run, order, venue ?? state.default_venue, recorded, parent, test);
}

/** ClosePosition: POST /v1/position/close, a reduce-only order against one open position. */
export function closePosition(run: Run, request: ClosePositionRequest): PlaceOrderReply {
  const state = run.state;
  if (request.account_id !== state.account_id) return notFound();
  const normalized = normalizeClose(request, run.market.catalogue);
  if (!normalized.ok) return invalid(normalized.issues);
  const close = normalized.value;
  const key = idempotencyKey(close.client_id, close.request_id);
  const recorded = key === null ? null : { key, fingerprint: closeFingerprint(close) };
  const replay = replayed(run, key, (record) => closeRetryMatches(record, close));
  if (replay !== undefined) return replay;

  let position: Position | undefined;
  if (close.position_id !== null) {
    position = findPosition(state, close.position_id);
    if (position === undefined) return notFound();
    if (position.symbol !== close.symbol) {
      return invalid([{ path: "position_id", message: "the position is on another symbol" }]);
    }
    if (close.venue !== null && close.venue !== position.venue) {
      return invalid([{ path: "venue", message: "must be the position's venue" }]);
    }
  } else if (close.venue !== null) {
    position = state.positions.get(positionKey(close.symbol, close.venue));
    if (position === undefined) return notFound();
  } else {
    const candidates = [...state.positions.values()].filter((p) => p.symbol === close.symbol);
    if (candidates.length === 0) return notFound();
    if (candidates.length > 1) {
      return invalid([
        { path: "venue", message: "positions are open on several venues: name the venue or position_id" },
      ]);
    }
    position = candidates[0];
  }
  if (position === undefined) return notFound();
  const order: NormalizedOrder = {
    spec: close.spec,
    units: close.units,
    symbol: close.symbol,
    side: opposite(position.side),
    kind: close.kind,
    quantity: close.quantity ?? position.quantity,
    limit_price: close.limit_price,
    trigger_price: null,
    time_in_force: close.time_in_force,
    expire_at: null,
    post_only: close.post_only,
    reduce_only: true,
    index_trigger: false,
    mark_trigger: false,
    client_id: close.client_id,
    venue: position.venue,
    parent_order_id: null,
    position_id: position.position_id,
    request_id: close.request_id,
  };
  return submit(run, order, position.venue, recorded, undefined, false) as PlaceOrderReply;
}

function findPosition(state: AccountState, positionId: string): Position | undefined {
  for (const position of state.positions.values()) if (position.position_id === positionId) return position;
  return undefined;
}

/** Rules 4 to 7 and the immediate execution, for a normalised order whose venue is settled. */
function submit(
  run: Run,
  intent: NormalizedOrder,
  venue: Venue,
  recorded: Recorded | null,
  parent: Order | undefined,
  test: boolean,
): PlaceOrderReply | TestOrderReply {
  const state = run.state;
  const quote = run.market.quotes.get(intent.symbol);
  // An order that must execute at once needs a price to execute against (docs/decisions.md, "Pushed prices").
  if (quote === undefined && intent.kind === "MARKET") {
    return invalid([{ path: "symbol", message: "has no price yet: a MARKET order cannot execute" }]);
  }
  const parentUnfilled = parent !== undefined && parent.filled_quantity === 0;
  // An IOC or FOK LIMIT too; a STOP or TAKE_PROFIT waits for its trigger, a HELD child for its parent's fill.
  const immediate = intent.time_in_force === "IOC" || intent.time_in_force === "FOK";
  if (quote === undefined && !parentUnfilled && intent.kind === "LIMIT" && immediate) {
    return invalid([{ path: "symbol", message: `has no price yet: an ${intent.time_in_force} order cannot execute` }]);
  }
  // One lookup of the opposite position serves rule 4 and the exposure the risk checks value.
  const opposite = oppositePosition(state, intent.symbol, venue, intent.side);
  const reducible = reducibleOf(opposite, intent.position_id);
  // A terminated account answers every order with the account_terminated rejection (rule 1), not a 409.
  if (intent.reduce_only && !parentUnfilled && reducible === 0 && state.state !== "TERMINATED") {
    return conflict({ reason: "reduce_only_would_increase" });
  }
  // Valued where it executes: an order that executes at once fills from the mark, whatever its limit or trigger
  // says (a SELL LIMIT at 0.1 sells at the mark); a HELD child executes only when its parent fills.
  const own = reservePrice(intent, quote);
  const price = parentUnfilled ? own : entryPrice(intent, quote, run.now);
  // What rests of it is counted at its own price: both must stay exactly accountable.
  const oversized = tooLarge(intent, intent.quantity, intent.units.unitsPerTickStep, quote, price, own);
  if (oversized !== undefined) return invalid([oversized]);
  const leverage = leverageFor(state.plan, intent.spec);
  // The reserve of what rests is valued at the order's own price, as every working order's is.
  const reserve = reserveFor(intent.reduce_only, intent.quantity, own, intent.units, leverage);
  const order = newOrder(run, intent, venue, parentUnfilled ? "HELD" : "NEW", reserve);
  const input = riskInput({
    state,
    market: run.market,
    now: run.now,
    calendar: run.calendar,
    spec: intent.spec,
    quote,
    order,
    exposureSteps: addingSteps(state, order, intent.quantity, opposite),
    priceTicks: price,
    leverage,
    countedNotional: intent.reduce_only ? 0 : notionalOf(price, intent.quantity, intent.units.unitsPerTickStep),
  });
  const violation = firstViolation(input) ?? postOnlyWouldTake(order, quote);
  if (test) {
    return { kind: "tested", violations: violation === undefined ? [] : [violation], risk_headroom: headroomOf(input) };
  }
  return enter(run, order, intent.units, recorded, violation, input);
}

/** A new order for a normalised one, as it enters the book (before the risk checks). */
function newOrder(run: Run, intent: NormalizedOrder, venue: Venue, status: "HELD" | "NEW", reserve: number): Order {
  return {
    order_id: run.nextId(),
    account_id: run.state.account_id,
    client_id: intent.client_id,
    symbol: intent.symbol,
    side: intent.side,
    kind: intent.kind,
    quantity: intent.quantity,
    filled_quantity: 0,
    filled_notional: 0,
    limit_price: intent.limit_price,
    trigger_price: intent.trigger_price,
    time_in_force: intent.time_in_force,
    expire_at: intent.expire_at,
    post_only: intent.post_only,
    reduce_only: intent.reduce_only,
    index_trigger: intent.index_trigger,
    mark_trigger: intent.mark_trigger,
    venue,
    parent_order_id: intent.parent_order_id,
    position_id: intent.position_id,
    status,
    created_at: run.now,
    updated_at: run.now,
    triggered: false,
    reserve,
    child_ids: NO_CHILDREN,
    reason: null,
  };
}

/**
 * Enters an order that passed the checks or rejects one that failed them (the first violation), executes an
 * accepted one at once and answers with what it caused. `input` is what the checks read: a rejected or resting
 * order answers the headroom computed from it; an order that executed, the headroom it left.
 */
function enter(
  run: Run,
  order: Order,
  units: TickerUnits,
  recorded: Recorded | null,
  violation: Violation | undefined,
  input: RiskInput,
): PlaceOrderReply {
  if (violation !== undefined) {
    const rejected: Order = { ...order, status: "REJECTED", reserve: 0 };
    run.emit({ type: "OrderRejected", at: run.now, order: rejected, violations: [violation] });
    return finish(run, "rejected", rejected.order_id, units, recorded, [violation], headroomOf(input), rejected);
  }
  run.emit({ type: "OrderAccepted", at: run.now, order });
  const accepted = run.emitted;
  executeOrder(run, order.order_id, "placement", order);
  // Nothing emitted since: the order rests as accepted, without fills (no draft state needed to answer).
  if (run.emitted === accepted) {
    return finish(run, "created", order.order_id, units, recorded, NO_VIOLATIONS, headroomOf(input), order);
  }
  // Its fills moved equity: the monitor acts before the answer, which shows what the order caused.
  const judged = run.filled ? monitor(run) : undefined;
  const after = run.state;
  return finish(
    run,
    "created",
    order.order_id,
    units,
    recorded,
    after.state === "TERMINATED" ? terminationOf(after) : NO_VIOLATIONS,
    headroomAfter(after, run.market, order.symbol, judged),
  );
}

/** The violation that terminated the account, as an order's answer names it. */
function terminationOf(state: AccountState): Violation[] {
  const last = state.violations.at(-1);
  return last === undefined ? NO_VIOLATIONS : [critical(last.rule, last.message)];
}

/** Rule 6: a post-only LIMIT that would take now (buy ≥ mark, sell ≤ mark). */
function postOnlyWouldTake(order: Order, quote: SymbolQuote | undefined): Violation | undefined {
  if (!order.post_only || quote === undefined || !crosses(order, quote.mark)) return undefined;
  return critical("post_only_would_take", "the post-only order would take liquidity at the current mark");
}

/**
 * The response (order as it stands after execution and what it caused, its fills), recorded for the client_id
 * if any; a retry rebuilds it from the record (orders/idempotency.ts) the same way, so keep the two in step.
 */
function finish(
  run: Run,
  kind: "created" | "rejected",
  orderId: string,
  units: TickerUnits,
  recorded: Recorded | null,
  violations: Violation[],
  headroom: RiskHeadroom,
  settled?: Order,
): PlaceOrderReply {
  let order = settled;
  let fills = NO_FILLS;
  // `settled`: the order as the decision's last event left it, without fills (nothing to look up).
  if (order === undefined) {
    const state = run.state;
    order = state.orders.get(orderId);
    if (order === undefined) throw new Error(`order ${orderId} vanished from its own decision`);
    for (const fill of state.fills) {
      if (fill.order_id !== orderId) continue;
      if (fills === NO_FILLS) fills = [];
      fills.push(toFillRecord(fill, state.account_id, units));
    }
  }
  if (recorded !== null) {
    // The order and its fills are in the state when this is applied: only the rest is journaled.
    run.emit({
      type: "IdempotencyRecorded",
      at: run.now,
      ...recorded.key,
      order_id: orderId,
      fingerprint: recorded.fingerprint,
      violations,
      risk_headroom: headroom,
    });
  }
  return { kind, order: toOrderRecord(order, units), fills, violations, risk_headroom: headroom };
}
