// The pure core of an account actor (docs/engine.md, "Commands and events"): `decide(state, command, ctx)`
// turns a command into events and the API reply without touching the state; `apply(state, event)` is the
// only code that changes a state; `replay(events)` rebuilds one from its journal. No I/O, no clock, no
// randomness: time, prices and ids come in through `ctx`. A decision works on a copy-on-write draft and
// applies each event it emits to it (before the state is next read), so execution sees its own fills
// exactly as a replay will.
import { DEFAULT_MAX_WORKING_ORDERS } from "./accounts/limits.js";
import { PLANS, type PlanCatalogue } from "./basics/plans.js";
import { accountRecord, type AccountRecord } from "./accounts/queries.js";
import {
  accountStateFrom,
  defaultVenueFor,
  forkState,
  type AccountState,
  type SideNotional,
} from "./basics/account-state.js";
import { consume, release, type BookSide, type MarketView } from "./market/book.js";
import { VENUES, type Venue } from "./market/types.js";
import { addSafe, usdToUnits } from "./market/units.js";
import type { EngineEvent, NewEngineEvent } from "./basics/events.js";
import { crosses, expireDue, onPriceUpdate, triggerReached } from "./orders/execution.js";
import { idempotencyRecord } from "./orders/idempotency.js";
import { amend, cancel, type AmendOrderRequest, type CancelOrderRequest } from "./orders/manage.js";
import { closePosition, placeOrder, testOrder } from "./orders/placement.js";
import type { NewsEvent } from "./market/calendar.js";
import { utcDayStart } from "./basics/time.js";
import { payFunding, type FundingRates } from "./risk/funding.js";
import { workingOrderExposure } from "./risk/exposure.js";
import { monitor, monitorWouldAct, startDay } from "./orders/monitor.js";
import { cachedBand } from "./risk/quiet-band.js";
import type { Issue } from "../kernel/errors.js";
import {
  invalid,
  conflict,
  notFound,
  type ErrorReply,
  type OrderReply,
  type PlaceOrderReply,
  type TestOrderReply,
} from "./basics/replies.js";
import type { ClosePositionRequest, PlaceOrderRequest } from "./orders/request.js";
import type { Run } from "./basics/run.js";
import { transition, UNPLACED } from "./orders/transitions.js";
import { copyOrder, isWorking, type Order } from "./basics/order-types.js";
import { applyFill } from "./positions/ledger.js";
import { copyPosition, positionKey } from "./basics/position-types.js";
import { unreadableText } from "../kernel/text.js";
import { DAY_MS } from "../kernel/time.js";

export type { EngineEvent, EngineEventType } from "./basics/events.js";
export type { ErrorReply, OrderReply, PlaceOrderReply, PlaceOrderResponse, PlacedReply } from "./basics/replies.js";
export type { AccountState } from "./basics/account-state.js";

/** POST /v1/account: the shell picks the account id (it routes by it) and passes the key's user. */
export interface OpenAccountRequest {
  account_id: string;
  user_id: string;
  plan_id: string;
  default_venue?: string | null;
  label?: string | null;
}

export interface OpenAccount {
  type: "OpenAccount";
  request: OpenAccountRequest;
}
export interface PlaceOrder {
  type: "PlaceOrder";
  request: PlaceOrderRequest;
}
export interface CancelOrder {
  type: "CancelOrder";
  request: CancelOrderRequest;
}
export interface AmendOrder {
  type: "AmendOrder";
  request: AmendOrderRequest;
}
export interface ClosePosition {
  type: "ClosePosition";
  request: ClosePositionRequest;
}
/** Prices changed (the view in ctx already holds them): trigger, fill and expire, then monitor the limits. */
export interface MarketUpdate {
  type: "MarketUpdate";
  /** The symbols whose quotes changed; all when absent. */
  symbols?: ReadonlySet<string>;
}
/** POST /v1/order/test: every check, nothing placed. */
export interface TestOrder {
  type: "TestOrder";
  request: PlaceOrderRequest;
}
/** A funding tick: pay or charge every open position at the current marks. */
export interface Funding {
  type: "Funding";
  rates: FundingRates;
  /**
   * The funding boundary (epoch ms) this tick pays for: an account already paid for it pays nothing more, and
   * a position opened at or after it is not charged for it. Without it, every open position pays.
   */
  boundary?: number;
}

export type Command =
  OpenAccount | PlaceOrder | CancelOrder | AmendOrder | ClosePosition | MarketUpdate | TestOrder | Funding;

export type OpenAccountReply = { kind: "created"; account: AccountRecord } | ErrorReply;
export interface MarketUpdateReply {
  kind: "ok";
}
export type TestOrderResult = TestOrderReply | ErrorReply;

export interface ReplyByCommand {
  OpenAccount: OpenAccountReply;
  PlaceOrder: PlaceOrderReply;
  CancelOrder: OrderReply;
  AmendOrder: OrderReply;
  ClosePosition: PlaceOrderReply;
  MarketUpdate: MarketUpdateReply;
  TestOrder: TestOrderResult;
  Funding: MarketUpdateReply;
}
export type Reply = ReplyByCommand[keyof ReplyByCommand];

export interface DecideContext {
  /** Epoch milliseconds; never decreasing within a shard. */
  now: number;
  market: MarketView;
  /** A fresh UUID per call (the shell's randomness). Replay never calls it. */
  nextId: () => string;
  /** The plan catalogue for OpenAccount (default: the shipped plans). */
  plans?: PlanCatalogue;
  /** The news calendar in time order (default: none). */
  calendar?: readonly NewsEvent[];
  /** The most working orders an account may hold (default DEFAULT_MAX_WORKING_ORDERS). */
  maxWorkingOrders?: number;
}

const NO_EVENTS: readonly NewsEvent[] = Object.freeze([]);

export interface Decision<R extends Reply = Reply> {
  events: EngineEvent[];
  reply: R;
}

class DecisionRun implements Run {
  readonly events: EngineEvent[] = [];
  private activatedIds: string[] | undefined;
  private fills = 0;
  private draft: AccountState | undefined;
  /** Events emitted but not yet applied to the draft: applied when the state is next read. */
  private applied = 0;
  /** Steps taken by this decision from the first quote it filled on: most decisions touch one symbol. */
  private takenSymbol: string | undefined;
  private takenBuy = 0;
  private takenSell = 0;
  /** Steps taken per other quote: [buy, sell]. */
  private takenOther: Map<string, [number, number]> | undefined;

  constructor(
    private readonly base: AccountState,
    private readonly ctx: DecideContext,
  ) {}

  get now(): number {
    return this.ctx.now;
  }

  get market(): MarketView {
    return this.ctx.market;
  }

  get calendar(): readonly NewsEvent[] {
    return this.ctx.calendar ?? NO_EVENTS;
  }

  get maxWorkingOrders(): number {
    return this.ctx.maxWorkingOrders ?? DEFAULT_MAX_WORKING_ORDERS;
  }

  /** Whether the decision has filled anything (equity moved: the limits must be looked at). */
  get filled(): boolean {
    return this.fills > 0;
  }

  /** Made on first use: only a parent's first fill activates children. */
  get activated(): string[] {
    return (this.activatedIds ??= []);
  }

  get state(): AccountState {
    if (this.applied < this.events.length) this.catchUp();
    return this.draft ?? this.base;
  }

  nextId(): string {
    return this.ctx.nextId();
  }

  get emitted(): number {
    return this.events.length;
  }

  emit(event: NewEngineEvent): void {
    this.events.push(event);
    if (event.type === "OrderFilled") {
      this.fills++;
      this.addTaken(event.fill.symbol, event.fill.side, event.fill.quantity);
    }
  }

  localTaken(symbol: string, side: BookSide): number {
    if (symbol === this.takenSymbol) return side === "BUY" ? this.takenBuy : this.takenSell;
    const sides = this.takenOther?.get(symbol);
    return sides === undefined ? 0 : sides[side === "BUY" ? 0 : 1];
  }

  /**
   * Applies the pending events to the draft. Deferred until a read, so the event that ends most decisions
   * (IdempotencyRecorded, after the reply is built) is never applied twice: nothing reads it in the draft.
   */
  private catchUp(): void {
    const draft = (this.draft ??= forkState(this.base));
    const events = this.events;
    while (this.applied < events.length) apply(draft, events[this.applied++] as EngineEvent);
  }

  private addTaken(symbol: string, side: BookSide, steps: number): void {
    this.takenSymbol ??= symbol;
    if (symbol === this.takenSymbol) {
      if (side === "BUY") this.takenBuy += steps;
      else this.takenSell += steps;
      return;
    }
    const taken = (this.takenOther ??= new Map<string, [number, number]>());
    let sides = taken.get(symbol);
    if (sides === undefined) {
      sides = [0, 0];
      taken.set(symbol, sides);
    }
    sides[side === "BUY" ? 0 : 1] += steps;
  }
}

const LABEL_MAX = 100;

function openAccount(state: AccountState | undefined, request: OpenAccountRequest, ctx: DecideContext): Decision {
  if (state !== undefined) return { events: [], reply: conflict({ reason: "account_exists" }) };
  const issues: Issue[] = [];
  const plan = (ctx.plans ?? PLANS).byId(request.plan_id);
  if (plan === undefined) issues.push({ path: "plan_id", message: "unknown plan; see GET /v1/plans" });
  let venue: Venue | null = null;
  const requested = request.default_venue;
  if (requested !== null && requested !== undefined) {
    if (!(VENUES as readonly string[]).includes(requested)) {
      issues.push({ path: "default_venue", message: `must be one of ${VENUES.join(", ")}` });
    } else if (plan !== undefined && !(plan.allowed_venues as readonly string[]).includes(requested)) {
      issues.push({ path: "default_venue", message: "the plan does not allow this venue" });
    } else {
      venue = requested as Venue;
    }
  }
  const label = request.label ?? null;
  if (label !== null && (typeof label !== "string" || label.length > LABEL_MAX)) {
    issues.push({ path: "label", message: `must be a string of at most ${LABEL_MAX} characters` });
  } else if (label !== null) {
    const unreadable = unreadableText(label);
    if (unreadable !== undefined) issues.push({ path: "label", message: unreadable });
  }
  if (issues.length > 0 || plan === undefined) return { events: [], reply: invalid(issues) };
  const event: EngineEvent = {
    type: "AccountOpened",
    at: ctx.now,
    account_id: request.account_id,
    user_id: request.user_id,
    plan: JSON.parse(JSON.stringify(plan)) as typeof plan,
    label,
    default_venue: defaultVenueFor(plan, venue),
    allowed_venues: [...plan.allowed_venues],
    starting_balance: usdToUnits(plan.starting_balance),
  };
  return { events: [event], reply: { kind: "created", account: accountRecord(apply(undefined, event), ctx.market) } };
}

/** The answer of a quiet update, shared (frozen: no consumer adds to a decision's events). */
const QUIET: Decision = Object.freeze({
  events: Object.freeze([]) as unknown as EngineEvent[],
  reply: Object.freeze({ kind: "ok" }),
});

/**
 * True when a price update can change nothing for this account (see decideAny). `useBand` false skips the
 * quiet band (tests hold the band to the full check with it).
 */
export function quietUpdate(
  state: AccountState,
  symbols: ReadonlySet<string> | undefined,
  ctx: DecideContext,
  useBand = true,
): boolean {
  // A terminated account holds nothing and records nothing more (not even a new day).
  if (state.state === "TERMINATED") return true;
  if (ctx.now >= state.next_day_at) return false;
  // The quiet band: a few numbers next to the state instead of its maps (risk/quiet-band.ts).
  if (useBand) {
    const band = cachedBand(state, ctx.market);
    if (band.symbol !== null && ctx.now < band.until) {
      if (band.symbol === "" || (symbols !== undefined && !symbols.has(band.symbol))) return true;
      const mark = ctx.market.quotes.get(band.symbol)?.mark;
      if (mark !== undefined && mark >= band.low && mark <= band.high) return true;
    }
  }
  if (state.expiries.size > 0) for (const expireAt of state.expiries.values()) if (expireAt <= ctx.now) return false;
  for (const order of state.working.values()) {
    if (order.status === "HELD" || (symbols !== undefined && !symbols.has(order.symbol))) continue;
    const quote = ctx.market.quotes.get(order.symbol);
    if (quote === undefined) continue;
    if (order.kind === "LIMIT") {
      if (crosses(order, quote.mark)) return false;
    } else if (order.kind === "MARKET" || order.triggered || triggerReached(order, quote)) {
      return false;
    }
  }
  return !monitorWouldAct(state, ctx.market);
}

function decideAny(state: AccountState | undefined, command: Command, ctx: DecideContext): Decision {
  if (command.type === "OpenAccount") return openAccount(state, command.request, ctx);
  if (state === undefined) {
    return { events: [], reply: command.type === "MarketUpdate" ? { kind: "ok" } : notFound() };
  }
  // A quiet account on a price update (most of them, most of the time): nothing expires, triggers or fills,
  // and the monitor has nothing to record. Checked without building a decision.
  if (command.type === "MarketUpdate" && quietUpdate(state, command.symbols, ctx)) return QUIET;
  const run = new DecisionRun(state, ctx);
  // The first decision of a new day: the old day judged and the new one started before anything else happens.
  if (ctx.now >= state.next_day_at) startDay(run);
  expireDue(run);
  let reply: Reply;
  switch (command.type) {
    case "PlaceOrder":
      reply = placeOrder(run, command.request);
      break;
    case "ClosePosition":
      reply = closePosition(run, command.request);
      break;
    case "CancelOrder":
      reply = cancel(run, command.request);
      break;
    case "AmendOrder":
      reply = amend(run, command.request);
      break;
    case "MarketUpdate":
      onPriceUpdate(run, command.symbols);
      monitor(run);
      reply = { kind: "ok" };
      break;
    case "TestOrder":
      reply = testOrder(run, command.request);
      break;
    case "Funding":
      payFunding(run, command.rates, command.boundary);
      monitor(run);
      reply = { kind: "ok" };
      break;
  }
  // A fill moved equity: placing, closing and amending run the monitor on it before they answer, so the answer
  // shows what the fill caused (a termination among it).
  return { events: run.events, reply };
}

/**
 * Decides a command against a state (undefined before the account is opened). Never mutates `state` or
 * the market view; the caller journals `events`, applies them, then `consumeFills` on its market view.
 */
export function decide<C extends Command>(
  state: AccountState | undefined,
  command: C,
  ctx: DecideContext,
): Decision<ReplyByCommand[C["type"]]> {
  return decideAny(state, command, ctx) as Decision<ReplyByCommand[C["type"]]>;
}

/** Removes the depth a decision's fills took from the shard's book (call after journaling them). */
export function consumeFills(market: MarketView, events: readonly EngineEvent[]): void {
  changeDepth(market, events, consume);
}

/** Gives back the book depth `consumeFills` took for these events (their batch was dropped). */
export function releaseFills(market: MarketView, events: readonly EngineEvent[]): void {
  changeDepth(market, events, release);
}

/**
 * Only the accounts' own fills take depth: a fill of the risk system (a liquidation, a termination's close; it
 * carries a `reason`) is made at the mark whatever the depth (docs/risk.md, "Liquidation"), so it leaves the
 * shard's shared book to the orders of the other accounts.
 */
function changeDepth(market: MarketView, events: readonly EngineEvent[], change: typeof consume): void {
  for (const event of events) {
    if (event.type === "OrderFilled" && event.fill.reason === undefined) {
      change(market, event.fill.symbol, event.fill.side, event.fill.quantity, event.book_version);
    }
  }
}

function putOrder(state: AccountState, order: Order): void {
  const before = workingOrderExposure(state.orders.get(order.order_id));
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

/** Applies one event: mutates `state` and returns it (a fresh state for AccountOpened). */
export function apply(state: AccountState | undefined, event: EngineEvent): AccountState {
  if (event.type === "AccountOpened") {
    if (state !== undefined) throw new Error(`account ${state.account_id} is already open`);
    const opened = accountStateFrom(event);
    opened.seq = 1;
    return opened;
  }
  if (state === undefined) throw new Error(`${event.type} before AccountOpened`);
  switch (event.type) {
    case "OrderAccepted": {
      const order = event.order;
      if (transition(UNPLACED, order.status === "HELD" ? "hold" : "accept") !== order.status) {
        throw new Error(`accepted order ${order.order_id} has status ${order.status}`);
      }
      putOrder(state, order);
      noteFirstStop(state, order);
      state.reserved_margin += order.reserve;
      if (order.expire_at !== null) state.expiries.set(order.order_id, order.expire_at);
      if (order.parent_order_id !== null) {
        const parent = orderOf(state, order.parent_order_id);
        const next = copyOrder(parent);
        next.child_ids = [...parent.child_ids, order.order_id];
        putOrder(state, next);
      }
      break;
    }
    case "OrderRejected":
      if (transition(UNPLACED, "reject") !== event.order.status) {
        throw new Error(`rejected order ${event.order.order_id} has status ${event.order.status}`);
      }
      state.orders.set(event.order.order_id, event.order);
      break;
    case "OrderActivated": {
      const next = copyOrder(orderOf(state, event.order_id));
      next.status = transition(next.status, "activate");
      next.updated_at = event.at;
      putOrder(state, next);
      noteFirstStop(state, next);
      break;
    }
    case "OrderTriggered": {
      const order = orderOf(state, event.order_id);
      if (order.triggered || !isWorking(order.status) || order.trigger_price === null) {
        throw new Error(`order ${order.order_id} cannot trigger`);
      }
      const next = copyOrder(order);
      next.triggered = true;
      next.updated_at = event.at;
      putOrder(state, next);
      break;
    }
    case "OrderRearmed": {
      const order = orderOf(state, event.order_id);
      if (!order.triggered || !isWorking(order.status)) throw new Error(`order ${order.order_id} cannot rearm`);
      const next = copyOrder(order);
      next.triggered = false;
      next.updated_at = event.at;
      putOrder(state, next);
      break;
    }
    case "OrderFilled": {
      const fill = event.fill;
      const order = orderOf(state, fill.order_id);
      const filled = order.filled_quantity + fill.quantity;
      if (filled > order.quantity) throw new Error(`order ${order.order_id} overfilled`);
      const next = copyOrder(order);
      next.filled_quantity = filled;
      next.filled_notional = addSafe(order.filled_notional, event.notional);
      next.status = transition(order.status, filled === order.quantity ? "fill_rest" : "fill_part");
      next.reserve = event.reserve_after;
      next.updated_at = event.at;
      putOrder(state, next);
      state.reserved_margin += event.reserve_after - order.reserve;
      const key = positionKey(fill.symbol, fill.venue);
      const outcome = applyFill(state.positions.get(key), fill, event);
      if (outcome.position === undefined) state.positions.delete(key);
      else state.positions.set(key, outcome.position);
      if (outcome.closed !== undefined) state.closed_positions.push(outcome.closed);
      state.fills.push(fill);
      state.balance = addSafe(state.balance, fill.realized_pnl - fill.fee);
      break;
    }
    case "OrderCanceled":
    case "OrderExpired": {
      const order = orderOf(state, event.order_id);
      const next = copyOrder(order);
      next.status = transition(order.status, event.type === "OrderCanceled" ? "cancel" : "expire");
      next.reserve = 0;
      next.reason = event.reason;
      next.updated_at = event.at;
      putOrder(state, next);
      state.reserved_margin -= order.reserve;
      if (event.type === "OrderCanceled" && event.violation !== undefined) state.violations.push(event.violation);
      break;
    }
    case "OrderAmended": {
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
      putOrder(state, next);
      state.reserved_margin += event.reserve - order.reserve;
      break;
    }
    case "DayStarted":
      state.day = event.day;
      state.next_day_at = utcDayStart(event.at) + DAY_MS;
      state.day_start_equity = event.equity;
      state.daily_levels = 0;
      state.drawdown_levels = 0;
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
      if (state.working.size > 0 || state.positions.size > 0) {
        throw new Error(`account ${state.account_id} terminated with working orders or open positions`);
      }
      state.state = "TERMINATED";
      state.terminated_at = event.at;
      state.violations.push(event.violation);
      break;
    case "AccountPassed":
      if (state.state !== "ACTIVE") throw new Error(`account ${state.account_id} cannot pass from ${state.state}`);
      state.state = "PASSED";
      state.passed_at = event.at;
      break;
    case "FundingPaid": {
      const { payment } = event;
      const position = state.positions.get(payment.position_key);
      if (position === undefined) throw new Error(`funding for a closed position ${payment.position_id}`);
      const next = copyPosition(position);
      next.funding = addSafe(position.funding, payment.amount);
      state.positions.set(payment.position_key, next);
      state.balance = addSafe(state.balance, payment.amount);
      state.funding.push(payment);
      if (event.boundary !== undefined && event.boundary > state.funded_through) state.funded_through = event.boundary;
      break;
    }
    case "IdempotencyRecorded":
      state.client_ids.set(event.client_id, idempotencyRecord(state.orders.get(event.order_id), state.fills, event));
      break;
  }
  state.seq += 1;
  return state;
}

/** Rebuilds a state from its journal (the first event must be AccountOpened). */
export function replay(events: Iterable<EngineEvent>): AccountState {
  let state: AccountState | undefined;
  for (const event of events) state = apply(state, event);
  if (state === undefined) throw new Error("cannot replay an empty journal");
  return state;
}
