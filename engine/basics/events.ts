// The journal's vocabulary (docs/engine.md, "Commands and events"). Each event carries everything `apply`
// needs, so a replay never recomputes a decision, a price or a rounding. Every event is plain JSON.
// It lives beneath core.ts so the execution modules can emit events without importing the core.
import type { Plan } from "./plans.js";
import type { Venue } from "../market/types.js";
import type { PositionEffect } from "./position-types.js";
import type { Breach, FundingPayment, RiskHeadroom, RuleViolation, Violation } from "./risk-types.js";
import type { PlaceOrderResponse } from "./replies.js";
import type { CancelReason, ExpireReason, Fill, Order } from "./order-types.js";

export interface AccountOpened {
  type: "AccountOpened";
  at: number;
  account_id: string;
  user_id: string;
  /** A frozen copy of the plan (with its rules_version): later catalogue changes do not touch the account. */
  plan: Plan;
  label: string | null;
  default_venue: Venue;
  allowed_venues: Venue[];
  /** Units. */
  starting_balance: number;
}

/** The order passed the checks: status NEW, or HELD for a child of a parent without fills. */
export interface OrderAccepted {
  type: "OrderAccepted";
  at: number;
  order: Order;
}

/** The order failed a check: status REJECTED, kept for audit, never works. */
export interface OrderRejected {
  type: "OrderRejected";
  at: number;
  order: Order;
  violations: Violation[];
}

/** HELD → NEW: the parent got its first fill. */
export interface OrderActivated {
  type: "OrderActivated";
  at: number;
  order_id: string;
}

/** A STOP/TAKE_PROFIT reached its trigger and executes as a market order from now on. */
export interface OrderTriggered {
  type: "OrderTriggered";
  at: number;
  order_id: string;
  /** The reference price (ticks) that crossed the trigger. */
  reference_price: number;
}

/**
 * A triggered bracket child that has closed everything its parent filled, while the parent still works, waits
 * for its trigger again: the parent's later fills are protected at the trigger, not closed at once at market.
 */
export interface OrderRearmed {
  type: "OrderRearmed";
  at: number;
  order_id: string;
}

/** One fill: the order's progress, the position change and the balance change. */
export interface OrderFilled {
  type: "OrderFilled";
  at: number;
  fill: Fill;
  /** Units: price × quantity. */
  notional: number;
  effect: PositionEffect;
  released_basis: number;
  /** Leverage of the position (used when the fill opens it). */
  leverage: number;
  /** The order's margin reserve after this fill (units). */
  reserve_after: number;
  /** The quote version the depth was taken from (for `consume` in the shell). */
  book_version: number;
}

export interface OrderCanceled {
  type: "OrderCanceled";
  at: number;
  order_id: string;
  reason: CancelReason;
  /** When an exposure rule refused the adding part of its fill: the violation row it records. */
  violation?: RuleViolation;
}

export interface OrderExpired {
  type: "OrderExpired";
  at: number;
  order_id: string;
  reason: ExpireReason;
}

/** New trigger/limit price or quantity (the full new values) and the reserve that goes with them. */
export interface OrderAmended {
  type: "OrderAmended";
  at: number;
  order_id: string;
  quantity: number;
  limit_price: number | null;
  trigger_price: number | null;
  reserve: number;
}

/**
 * `client_id` (or, without one, the gateway's `request_id`) → its order and what a retry is answered with. Only
 * what the state cannot give back: the order and its fills are the ones in the state when the event is applied
 * (docs/engine.md, "Idempotency", "Request ids"). Exactly one of the two keys is set.
 */
export interface IdempotencyRecorded {
  type: "IdempotencyRecorded";
  at: number;
  client_id?: string;
  request_id?: string;
  order_id: string;
  fingerprint: string;
  violations: Violation[];
  risk_headroom: RiskHeadroom;
  /**
   * The whole answer as it was sent, when the journal holds it (the event's first shape, which the journal
   * reader gives this shape: store/journal.ts): a retry answers exactly it. Decisions never write it.
   */
  response?: PlaceOrderResponse;
}

/** The first event of a new trading day (docs/risk.md, "Daily reset"): the day's start equity, levels cleared. */
export interface DayStarted {
  type: "DayStarted";
  at: number;
  /** UTC date, YYYY-MM-DD. */
  day: string;
  /** Units. */
  equity: number;
}

/** Equity reached a new high: the high-water mark (units) the trailing drawdown floor follows. */
export interface HighWaterMarkRaised {
  type: "HighWaterMarkRaised";
  at: number;
  value: number;
}

/** One breach level reached (50/80/100% of the daily loss limit or of the drawdown allowance). */
export interface BreachRecorded {
  type: "BreachRecorded";
  at: number;
  breach: Breach;
}

/** A hard rule failed: the account is TERMINATED (its orders were canceled and positions closed before). */
export interface AccountTerminated {
  type: "AccountTerminated";
  at: number;
  violation: RuleViolation;
}

/** Equity reached the profit target while ACTIVE. */
export interface AccountPassed {
  type: "AccountPassed";
  at: number;
}

/** One funding payment on an open position (amount > 0 received). */
export interface FundingPaid {
  type: "FundingPaid";
  at: number;
  payment: FundingPayment;
  /** The funding boundary (epoch ms) paid for; a journal may hold FundingPaid events without one. */
  boundary?: number;
}

/** The dead-man's switch armed or re-armed (docs/risk.md, "Cancel-after"): it fires at `deadline`. */
export interface CancelAfterArmed {
  type: "CancelAfterArmed";
  at: number;
  timeout_ms: number;
  /** Epoch ms: `at` + `timeout_ms`. */
  deadline: number;
}

/** The dead-man's switch disarmed by the trader (`timeout_ms` 0). */
export interface CancelAfterDisarmed {
  type: "CancelAfterDisarmed";
  at: number;
}

/**
 * The dead-man's switch fired (its deadline came): the orders it canceled (their OrderCanceled events come
 * before this one, in the same decision) and the working orders it kept. It is disarmed.
 */
export interface CancelAfterFired {
  type: "CancelAfterFired";
  at: number;
  timeout_ms: number;
  deadline: number;
  canceled: { order_id: string; reason: CancelReason }[];
  kept: string[];
}

export type EngineEvent =
  | AccountOpened
  | DayStarted
  | HighWaterMarkRaised
  | BreachRecorded
  | AccountTerminated
  | AccountPassed
  | FundingPaid
  | OrderAccepted
  | OrderRejected
  | OrderActivated
  | OrderTriggered
  | OrderRearmed
  | OrderFilled
  | OrderCanceled
  | OrderExpired
  | OrderAmended
  | IdempotencyRecorded
  | CancelAfterArmed
  | CancelAfterDisarmed
  | CancelAfterFired;

export type EngineEventType = EngineEvent["type"];
