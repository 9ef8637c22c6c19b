// The state of one account, owned by exactly one actor (docs/engine.md, "Account state"). `apply` mutates
// it; `decide` reads it and works on a draft (`forkState`): copy-on-write tables over the live ones, so a
// decision can see the effects of its own events without touching the state or copying it whole.
import type { Venue } from "../market/types.js";
import type { AccountOpened } from "./events.js";
import type { PlaceOrderResponse } from "./replies.js";
import type { Fill, Order } from "./order-types.js";
import type { Breach, FundingPayment, RiskHeadroom, RuleViolation, Violation } from "./risk-types.js";
import type { ClosedPosition, Position } from "./position-types.js";
import { utcDate, utcDayStart } from "./time.js";
import { DAY_MS } from "../../kernel/time.js";

import { OverlayTable, type Table } from "./overlay-table.js";
import { FinalQueue } from "./final-queue.js";
import { KeyFilter } from "./key-filter.js";
import type { CancelAfter } from "./cancel-after.js";
import type { Plan } from "./plans.js";

export const AccountStatus = { ACTIVE: "ACTIVE", PASSED: "PASSED", TERMINATED: "TERMINATED" } as const;
export type AccountStatus = (typeof AccountStatus)[keyof typeof AccountStatus];

/**
 * A used client_id: its order and what its first answer was made of. A retry rebuilds that answer with the
 * same record functions (orders/idempotency.ts), or answers the one the event carried whole.
 */
export type IdempotencyRecord = RecordedOrder | RecordedResponse;

export interface RecordedOrder {
  readonly order_id: string;
  readonly fingerprint: string;
  /** When it was recorded (the IdempotencyRecorded event's `at`): its age for the replay window. */
  readonly recorded_at: number;
  /** The order as it stood after its placing decision (orders are copy-on-write: this object never changes). */
  readonly order: Order;
  /** Its fills of that decision, oldest first. */
  readonly fills: readonly Fill[];
  readonly violations: Violation[];
  readonly risk_headroom: RiskHeadroom;
  readonly response?: never;
}

/** From an IdempotencyRecorded event that carries its `response` (docs/engine.md): the answer as it was sent. */
export interface RecordedResponse {
  readonly order_id: string;
  readonly fingerprint: string;
  readonly recorded_at: number;
  readonly response: PlaceOrderResponse;
}

/** Who the account is and what it was opened on; set once, by AccountOpened. */
interface AccountIdentity {
  readonly account_id: string;
  readonly user_id: string;
  readonly plan: Plan;
  readonly label: string | null;
  readonly default_venue: Venue;
  readonly allowed_venues: readonly Venue[];
  readonly created_at: number;
  /** Units; balance = starting + Σ realized − Σ fees + Σ funding. */
  readonly starting_balance: number;
}

/** Where the account stands: its status, money, trading day and limits, as scalars a draft copies. */
interface AccountStanding {
  state: AccountStatus;
  terminated_at: number | null;
  /** When the account reached its profit target (PASSED), else null. */
  passed_at: number | null;
  balance: number;
  high_water_mark: number;
  day_start_equity: number;
  /** UTC date of the current trading day. */
  day: string;
  /** When the next trading day starts (epoch ms, 00:00Z): a cheap check before every decision. */
  next_day_at: number;
  /** Σ reserve of the working orders (units). */
  reserved_margin: number;
  /** Breach levels reached today (0–3: 50%, 80%, 100%) of the daily loss limit and of the drawdown allowance. */
  daily_levels: number;
  drawdown_levels: number;
  /**
   * The latest funding boundary (epoch ms) the account was paid or charged for, 0 before any: a funding tick
   * retried for a boundary (its first commit failed somewhere) never pays an account twice.
   */
  funded_through: number;
  /** The armed dead-man's switch (docs/risk.md, "Cancel-after"), or null. */
  cancel_after: CancelAfter | null;
  /** Events applied so far: the journal sequence. */
  seq: number;
}

/**
 * The account's tables: Maps in a live state, copy-on-write overlays of them in a draft. Every order table
 * but `orders` is an index of the working orders, holding the same objects as `orders`.
 */
interface AccountTables {
  /** Every order ever placed (audit). */
  orders: Table<string, Order>;
  /** The working orders (NEW, PARTIALLY_FILLED, HELD), in placement order. */
  working: Table<string, Order>;
  /** order_id → expire_at of the working GTD orders. */
  expiries: Table<string, number>;
  /** client_id → its record, oldest first (the order accounts/retention.ts forgets them in). */
  client_ids: Table<string, IdempotencyRecord>;
  /** Open positions by "SYMBOL|VENUE". */
  positions: Table<string, Position>;
  /** The working reduce-only STOP orders (stop-losses) by id; a snapshot carries it (accounts/snapshot.ts). */
  stop_losses: Table<string, Order>;
  /**
   * The working reduce-only orders (stops, take-profits, every bracket child) by id, in placement order: a
   * closed position looks here for what it leaves with nothing to reduce. Rebuilt from `working` when a
   * snapshot is restored (accounts/snapshot.ts).
   */
  reduce_only: Table<string, Order>;
  /** Notional (units) of the working orders that can add exposure, per symbol and side (docs/risk.md). */
  order_exposure: Table<string, SideNotional>;
  /** position_id → trigger (ticks) of the first stop-loss placed against it: the R of its history row. */
  first_stops: Table<string, number>;
}

/** The account's history lists, oldest first. In a draft: only the rows added by the decision. */
interface AccountLogs {
  closed_positions: ClosedPosition[];
  fills: Fill[];
  breaches: Breach[];
  violations: RuleViolation[];
  funding: FundingPayment[];
}

/**
 * The state, its fields grouped by kind. The groups are the interface's only: at run time the state is one
 * flat object, its fields in the order `accountStateFrom` and `forkState` write them.
 */
export interface AccountState extends AccountIdentity, AccountStanding, AccountTables, AccountLogs {
  /** What the actor may forget and when (accounts/retention.ts); shared by a draft, which never writes it. */
  readonly retention: Retention;
}

/** The memory bookkeeping of one account, folded from its applied events (accounts/retention.ts). */
export interface Retention {
  /** The final orders awaiting forgetting, oldest first. `client_ids` keeps its own order and times. */
  readonly finals: FinalQueue;
  /** The latest event time applied to the account. */
  lastAt: number;
  /** The client_ids whose records the account forgot (docs/engine.md, "Idempotency"). */
  readonly forgotten: KeyFilter;
}

/** Working-order notional of one symbol (units); replaced, never mutated (drafts share the base's values). */
export interface SideNotional {
  readonly buy: number;
  readonly sell: number;
}

/** The default venue of a new account: the requested one, else the plan's first allowed venue. */
export function defaultVenueFor(plan: Plan, requested: Venue | null): Venue {
  const first = plan.allowed_venues[0];
  if (requested !== null) return requested;
  if (first === undefined) throw new Error(`plan ${plan.plan_id} allows no venue`);
  return first;
}

/**
 * One shared, frozen object per distinct plan (rule set): every account opened on a plan carries an equal
 * copy in its journal, and thousands of copies in memory only cost cache on every price update.
 */
const PLAN_OBJECTS = new Map<string, Plan>();
export function internPlan(plan: Plan): Plan {
  const key = JSON.stringify(plan);
  let shared = PLAN_OBJECTS.get(key);
  if (shared === undefined) {
    shared = Object.freeze(JSON.parse(key) as Plan);
    PLAN_OBJECTS.set(key, shared);
  }
  return shared;
}

/** A fresh state from its opening event (balance = starting balance). */
export function accountStateFrom(event: AccountOpened): AccountState {
  // The order of the fields here is the state's at run time (its hidden class); forkState writes the same.
  return {
    account_id: event.account_id,
    user_id: event.user_id,
    plan: internPlan(event.plan),
    label: event.label,
    state: AccountStatus.ACTIVE,
    default_venue: event.default_venue,
    allowed_venues: event.allowed_venues,
    created_at: event.at,
    terminated_at: null,
    starting_balance: event.starting_balance,
    balance: event.starting_balance,
    high_water_mark: event.starting_balance,
    day_start_equity: event.starting_balance,
    day: utcDate(event.at),
    next_day_at: utcDayStart(event.at) + DAY_MS,
    reserved_margin: 0,
    orders: new Map(),
    working: new Map(),
    expiries: new Map(),
    client_ids: new Map(),
    positions: new Map(),
    closed_positions: [],
    fills: [],
    passed_at: null,
    daily_levels: 0,
    drawdown_levels: 0,
    stop_losses: new Map(),
    reduce_only: new Map(),
    order_exposure: new Map(),
    first_stops: new Map(),
    breaches: [],
    violations: [],
    funding: [],
    funded_through: 0,
    cancel_after: null,
    seq: 0,
    retention: { finals: new FinalQueue(), lastAt: 0, forgotten: new KeyFilter() },
  };
}

/**
 * A draft of `state` for one decision: scalars copied, tables overlaid, logs empty (a decision never reads
 * the fills or closed positions it did not add). Applying events to the draft leaves `state` untouched.
 */
export function forkState(state: AccountState): AccountState {
  // Field by field rather than a spread with overrides: one fixed-shape literal per decision, its fields in
  // accountStateFrom's order, and the compiler checks every field is named.
  return {
    account_id: state.account_id,
    user_id: state.user_id,
    plan: state.plan,
    label: state.label,
    state: state.state,
    default_venue: state.default_venue,
    allowed_venues: state.allowed_venues,
    created_at: state.created_at,
    terminated_at: state.terminated_at,
    starting_balance: state.starting_balance,
    balance: state.balance,
    high_water_mark: state.high_water_mark,
    day_start_equity: state.day_start_equity,
    day: state.day,
    next_day_at: state.next_day_at,
    reserved_margin: state.reserved_margin,
    orders: new OverlayTable(state.orders),
    working: new OverlayTable(state.working),
    expiries: new OverlayTable(state.expiries),
    client_ids: new OverlayTable(state.client_ids),
    positions: new OverlayTable(state.positions),
    closed_positions: [],
    fills: [],
    passed_at: state.passed_at,
    daily_levels: state.daily_levels,
    drawdown_levels: state.drawdown_levels,
    stop_losses: new OverlayTable(state.stop_losses),
    reduce_only: new OverlayTable(state.reduce_only),
    order_exposure: new OverlayTable(state.order_exposure),
    first_stops: new OverlayTable(state.first_stops),
    breaches: [],
    violations: [],
    funding: [],
    funded_through: state.funded_through,
    cancel_after: state.cancel_after,
    seq: state.seq,
    retention: state.retention,
  };
}
