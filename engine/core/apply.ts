// `apply(state, event)`: the only code that changes an account's state (docs/engine.md, "Commands and
// events"). One function per event type, dispatched by one switch; each checks the event against the order
// transition table (orders/transitions.ts) and the state, and throws on an event the state cannot take.
import { accountStateFrom, type AccountState, type SideNotional } from "../basics/account-state.js";
import { addSafe } from "../market/units.js";
import type {
  AccountOpened,
  AccountTerminated,
  DayStarted,
  EngineEvent,
  FundingPaid,
  OrderAccepted,
  OrderAmended,
  OrderCanceled,
  OrderExpired,
  OrderFilled,
} from "../basics/events.js";
import { idempotencyRecord } from "../orders/idempotency.js";
import { recordKey } from "../basics/record-keys.js";
import { transition, UNPLACED } from "../orders/transitions.js";
import { copyOrder, isWorking, type Order } from "../basics/order-types.js";
import { applyFill } from "../positions/ledger.js";
import { copyPosition, positionKey } from "../basics/position-types.js";
import { workingOrderExposure } from "../risk/exposure.js";
import { DAY_MS } from "../../kernel/time.js";

/** Applies one event: mutates `state` and returns it (a fresh state for AccountOpened). */
export function apply(state: AccountState | undefined, event: EngineEvent): AccountState {
  if (event.type === "AccountOpened") return opened(state, event);
  if (state === undefined) throw new Error(`${event.type} before AccountOpened`);
  switch (event.type) {
    case "OrderAccepted":
      accepted(state, event);
      break;
    case "OrderRejected":
      if (transition(UNPLACED, "reject") !== event.order.status) {
        throw new Error(`rejected order ${event.order.order_id} has status ${event.order.status}`);
      }
      state.orders.set(event.order.order_id, event.order);
      break;
    case "OrderActivated":
      activated(state, event.order_id, event.at);
      break;
    case "OrderTriggered":
      triggered(state, event.order_id, event.at);
      break;
    case "OrderRearmed":
      rearmed(state, event.order_id, event.at);
      break;
    case "OrderFilled":
      filled(state, event);
      break;
    case "OrderCanceled":
    case "OrderExpired":
      ended(state, event);
      break;
    case "OrderAmended":
      amended(state, event);
      break;
    case "DayStarted":
      dayStarted(state, event);
      break;
    case "HighWaterMarkRaised":
      if (event.value <= state.high_water_mark) throw new Error("the high-water mark only rises");
      state.high_water_mark = event.value;
      break;
    case "BreachRecorded":
      state.breaches.push(event.breach);
      if (event.breach.rule === "daily_loss_limit") state.daily_levels += 1;
      else state.drawdown_levels += 1;
      break;
    case "AccountTerminated":
      terminated(state, event);
      break;
    case "AccountPassed":
      if (state.state !== "ACTIVE") throw new Error(`account ${state.account_id} cannot pass from ${state.state}`);
      state.state = "PASSED";
      state.passed_at = event.at;
      break;
    case "FundingPaid":
      fundingPaid(state, event);
      break;
    case "IdempotencyRecorded":
      state.client_ids.set(recordKey(event), idempotencyRecord(state.orders.get(event.order_id), state.fills, event));
      break;
    case "CancelAfterArmed":
      if (event.deadline !== event.at + event.timeout_ms) throw new Error("cancel-after deadline is not at + timeout");
      state.cancel_after = { timeout_ms: event.timeout_ms, deadline: event.deadline };
      break;
    case "CancelAfterDisarmed":
      state.cancel_after = null;
      break;
    case "CancelAfterFired":
      if (state.cancel_after === null || event.at < state.cancel_after.deadline) {
        throw new Error(`cancel-after of ${state.account_id} fired while not due`);
      }
      state.cancel_after = null;
      break;
  }
  state.seq += 1;
  return state;
}

function opened(state: AccountState | undefined, event: AccountOpened): AccountState {
  if (state !== undefined) throw new Error(`account ${state.account_id} is already open`);
  const fresh = accountStateFrom(event);
  fresh.seq = 1;
  return fresh;
}

function accepted(state: AccountState, event: OrderAccepted): void {
  const order = event.order;
  if (transition(UNPLACED, order.status === "HELD" ? "hold" : "accept") !== order.status) {
    throw new Error(`accepted order ${order.order_id} has status ${order.status}`);
  }
  // UNPLACED → NEW/HELD: the id is new, no version of it is stored.
  putOrder(state, order, undefined);
  noteFirstStop(state, order);
  state.reserved_margin += order.reserve;
  if (order.expire_at !== null) state.expiries.set(order.order_id, order.expire_at);
  // A live decision places a child only on a parent in memory. A replay under a lower retention than the live
  // actor had (docs/engine.md, "Limits") may have forgotten a filled parent already: the child then stands
  // alone, a reduce-only order on the position (orders/conditions.ts, `bracketRoom`).
  const parent = order.parent_order_id === null ? undefined : state.orders.get(order.parent_order_id);
  if (parent !== undefined) {
    const next = copyOrder(parent);
    next.child_ids = [...parent.child_ids, order.order_id];
    putOrder(state, next, parent);
  }
}

function activated(state: AccountState, orderId: string, at: number): void {
  const order = orderOf(state, orderId);
  const next = copyOrder(order);
  next.status = transition(next.status, "activate");
  next.updated_at = at;
  putOrder(state, next, order);
  noteFirstStop(state, next);
}

function triggered(state: AccountState, orderId: string, at: number): void {
  const order = orderOf(state, orderId);
  if (order.triggered || !isWorking(order.status) || order.trigger_price === null) {
    throw new Error(`order ${order.order_id} cannot trigger`);
  }
  const next = copyOrder(order);
  next.triggered = true;
  next.updated_at = at;
  putOrder(state, next, order);
}

function rearmed(state: AccountState, orderId: string, at: number): void {
  const order = orderOf(state, orderId);
  if (!order.triggered || !isWorking(order.status)) throw new Error(`order ${order.order_id} cannot rearm`);
  const next = copyOrder(order);
  next.triggered = false;
  next.updated_at = at;
  putOrder(state, next, order);
}

function filled(state: AccountState, event: OrderFilled): void {
  const fill = event.fill;
  const order = orderOf(state, fill.order_id);
  const filledQuantity = order.filled_quantity + fill.quantity;
  if (filledQuantity > order.quantity) throw new Error(`order ${order.order_id} overfilled`);
  const next = copyOrder(order);
  next.filled_quantity = filledQuantity;
  next.filled_notional = addSafe(order.filled_notional, event.notional);
  next.status = transition(order.status, filledQuantity === order.quantity ? "fill_rest" : "fill_part");
  next.reserve = event.reserve_after;
  next.updated_at = event.at;
  putOrder(state, next, order);
  state.reserved_margin += event.reserve_after - order.reserve;
  const key = positionKey(fill.symbol, fill.venue);
  const outcome = applyFill(state.positions.get(key), fill, event);
  if (outcome.position === undefined) state.positions.delete(key);
  else state.positions.set(key, outcome.position);
  if (outcome.closed !== undefined) state.closed_positions.push(outcome.closed);
  state.fills.push(fill);
  state.balance = addSafe(state.balance, fill.realized_pnl - fill.fee);
}

function ended(state: AccountState, event: OrderCanceled | OrderExpired): void {
  const order = orderOf(state, event.order_id);
  const next = copyOrder(order);
  next.status = transition(order.status, event.type === "OrderCanceled" ? "cancel" : "expire");
  next.reserve = 0;
  next.reason = event.reason;
  next.updated_at = event.at;
  putOrder(state, next, order);
  state.reserved_margin -= order.reserve;
  if (event.type === "OrderCanceled" && event.violation !== undefined) state.violations.push(event.violation);
}

function amended(state: AccountState, event: OrderAmended): void {
  const order = orderOf(state, event.order_id);
  if (!isWorking(order.status) || event.quantity <= order.filled_quantity) {
    throw new Error(`order ${order.order_id} cannot be amended`);
  }
  const next = copyOrder(order);
  next.quantity = event.quantity;
  next.limit_price = event.limit_price;
  next.trigger_price = event.trigger_price;
  next.reserve = event.reserve;
  next.updated_at = event.at;
  putOrder(state, next, order);
  state.reserved_margin += event.reserve - order.reserve;
}

function dayStarted(state: AccountState, event: DayStarted): void {
  state.day = event.day;
  // The day it started (its `at` may be later: a day started as of a time before the decision).
  state.next_day_at = Date.parse(event.day) + DAY_MS;
  state.day_start_equity = event.equity;
  state.daily_levels = 0;
  state.drawdown_levels = 0;
}

function terminated(state: AccountState, event: AccountTerminated): void {
  if (state.working.size > 0 || state.positions.size > 0) {
    throw new Error(`account ${state.account_id} terminated with working orders or open positions`);
  }
  state.state = "TERMINATED";
  state.terminated_at = event.at;
  // Nothing is left for the switch to cancel, and nothing can be placed again.
  state.cancel_after = null;
  state.violations.push(event.violation);
}

function fundingPaid(state: AccountState, event: FundingPaid): void {
  const { payment } = event;
  const position = state.positions.get(payment.position_key);
  if (position === undefined) throw new Error(`funding for a closed position ${payment.position_id}`);
  const next = copyPosition(position);
  next.funding = addSafe(position.funding, payment.amount);
  state.positions.set(payment.position_key, next);
  state.balance = addSafe(state.balance, payment.amount);
  state.funding.push(payment);
  if (event.boundary !== undefined && event.boundary > state.funded_through) state.funded_through = event.boundary;
}

/**
 * Stores a new version of an order and keeps the working, expiry and stop-loss tables and the exposure in step.
 * `previous` is the version stored until now (undefined for a new order): every caller has just read it.
 */
function putOrder(state: AccountState, order: Order, previous: Order | undefined): void {
  const before = workingOrderExposure(previous);
  const after = workingOrderExposure(order);
  if (before !== after) {
    const sides = state.order_exposure.get(order.symbol) ?? NO_EXPOSURE;
    const delta = after - before;
    state.order_exposure.set(
      order.symbol,
      order.side === "BUY"
        ? { buy: sides.buy + delta, sell: sides.sell }
        : { buy: sides.buy, sell: sides.sell + delta },
    );
  }
  state.orders.set(order.order_id, order);
  const working = isWorking(order.status);
  if (working) {
    state.working.set(order.order_id, order);
  } else {
    state.working.delete(order.order_id);
    if (order.expire_at !== null) state.expiries.delete(order.order_id);
  }
  if (order.reduce_only) {
    if (working) state.reduce_only.set(order.order_id, order);
    else state.reduce_only.delete(order.order_id);
    if (order.kind === "STOP") {
      if (working) state.stop_losses.set(order.order_id, order);
      else state.stop_losses.delete(order.order_id);
    }
  }
}

const NO_EXPOSURE: SideNotional = Object.freeze({ buy: 0, sell: 0 });

/** The first working stop-loss against an open position sets the position's initial risk (R). */
function noteFirstStop(state: AccountState, order: Order): void {
  if (order.kind !== "STOP" || !order.reduce_only || order.status !== "NEW" || order.trigger_price === null) return;
  const position = state.positions.get(positionKey(order.symbol, order.venue));
  if (position === undefined || position.side === order.side) return;
  if (!state.first_stops.has(position.position_id)) state.first_stops.set(position.position_id, order.trigger_price);
}

function orderOf(state: AccountState, orderId: string): Order {
  const order = state.orders.get(orderId);
  if (order === undefined) throw new Error(`event for unknown order ${orderId}`);
  return order;
}
