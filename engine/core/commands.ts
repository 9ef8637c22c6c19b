// What the core is asked and what it answers (docs/engine.md, "Commands and events"): one command type per
// engine request, the reply each gets, and the context a decision runs in (the shell's clock, prices, ids).
import type { PlanCatalogue } from "../basics/plans.js";
import type { IdempotencyRecord } from "../basics/account-state.js";
import type { AccountRecord } from "../accounts/queries.js";
import type { MarketView } from "../market/book.js";
import type { NewsEvent } from "../market/calendar.js";
import type { EngineEvent } from "../basics/events.js";
import type { AmendOrderRequest, CancelOrderRequest } from "../orders/manage.js";
import type { ErrorReply, OrderReply, PlaceOrderReply, TestOrderReply } from "../basics/replies.js";
import type { ClosePositionRequest, PlaceOrderRequest } from "../orders/request.js";
import type { FundingPrice, FundingRates } from "../risk/funding.js";
import type { CancelAfterReply, SetCancelAfterRequest } from "../orders/cancel-after.js";
import type { CancelAllReply, CancelAllRequest, FlattenReply, FlattenRequest } from "./bulk-types.js";

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
/** DELETE /v1/account/:id/orders: every working order (of one symbol) canceled in one decision. */
export interface CancelAll {
  type: "CancelAll";
  request: CancelAllRequest;
}
/** POST /v1/account/:id/flatten: every working order canceled, then every position closed, in one decision. */
export interface Flatten {
  type: "Flatten";
  request: FlattenRequest;
}
/** A funding tick: pay or charge every open position at the boundary's prices (else the current marks). */
export interface Funding {
  type: "Funding";
  rates: FundingRates;
  /**
   * The funding boundary (epoch ms) this tick pays for: an account already paid for it pays nothing more, and
   * a position opened at or after it is not charged for it. Without it, every open position pays.
   */
  boundary?: number;
  /**
   * The mark and index (ticks) the boundary is paid at, by symbol: the prices kept when the boundary came
   * (docs/risk.md, "Funding"). A symbol not listed pays at the shard's current quote.
   */
  prices?: ReadonlyMap<string, FundingPrice>;
}

/** POST /v1/account/{id}/cancel-after: arm, re-arm or disarm the dead-man's switch. */
export interface SetCancelAfter {
  type: "SetCancelAfter";
  request: SetCancelAfterRequest;
}

export type Command =
  | OpenAccount
  | PlaceOrder
  | CancelOrder
  | AmendOrder
  | ClosePosition
  | MarketUpdate
  | TestOrder
  | Funding
  | SetCancelAfter
  | CancelAll
  | Flatten;

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
  SetCancelAfter: CancelAfterReply;
  CancelAll: CancelAllReply;
  Flatten: FlattenReply;
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
  /**
   * A client_id the account forgot, looked up by the shell in the table of spent client_ids before this command
   * (docs/engine.md, "Idempotency"): its record, or undefined when the table does not hold it.
   */
  recalled?: RecalledClientId;
}

export interface RecalledClientId {
  clientId: string;
  record: IdempotencyRecord | undefined;
}

export interface Decision<R extends Reply = Reply> {
  events: EngineEvent[];
  reply: R;
}
