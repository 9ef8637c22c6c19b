// The order vocabulary and the engine's internal order and fill records. Internally prices are ticks,
// quantities steps, money units and times epoch milliseconds; basics/order-records.ts turns them into the wire
// records of docs/openapi.yaml. Records are replaced, never mutated, so a decide-time draft can share them.
import type { Venue } from "../market/types.js";
import { EXPOSURE_RULES } from "./risk-types.js";
import type { Liquidity } from "../venues/fees.js";
import { OrderKind, Side, TimeInForce } from "../../kernel/vocabulary.js";

// Sides, kinds and times in force are the API's vocabulary, shared with the gateway (kernel/vocabulary.ts).
export { OrderKind, Side, TimeInForce };

/** A const object whose keys name themselves (`{ HELD: "HELD", … }`), in the order given. */
function selfNamed<const T extends string>(...names: T[]): { readonly [K in T]: K } {
  return Object.fromEntries(names.map((name) => [name, name])) as { readonly [K in T]: K };
}

export const OrderStatus = selfNamed("HELD", "NEW", "PARTIALLY_FILLED", "FILLED", "CANCELED", "REJECTED", "EXPIRED");
export type OrderStatus = (typeof OrderStatus)[keyof typeof OrderStatus];

export const CancelReason = selfNamed(
  "user",
  "risk",
  "parent_canceled",
  "oco",
  "ioc_remainder",
  "reduce_only_no_position",
  // The account's dead-man's switch fired (docs/risk.md, "Cancel-after").
  "cancel_after",
  // An exposure rule refused the adding part of a fill (docs/risk.md, "Orders after placement").
  ...EXPOSURE_RULES,
);
export type CancelReason = (typeof CancelReason)[keyof typeof CancelReason];

export const ExpireReason = selfNamed("gtd", "fok");
export type ExpireReason = (typeof ExpireReason)[keyof typeof ExpireReason];

export const WORKING_STATUSES: ReadonlySet<OrderStatus> = new Set(["HELD", "NEW", "PARTIALLY_FILLED"]);

export function isWorking(status: OrderStatus): boolean {
  return status === "NEW" || status === "PARTIALLY_FILLED" || status === "HELD";
}

export function opposite(side: Side): Side {
  return side === "BUY" ? "SELL" : "BUY";
}

/** +1 for BUY (long), −1 for SELL (short). */
export function direction(side: Side): 1 | -1 {
  return side === "BUY" ? 1 : -1;
}

/**
 * What a client chooses of an order, on the ticker's grid: the part an order and a normalised place-order
 * request (orders/request.ts) have in common.
 */
export interface OrderTerms {
  readonly client_id: string | null;
  readonly symbol: string;
  readonly side: Side;
  readonly kind: OrderKind;
  /** Steps. */
  readonly quantity: number;
  /** Ticks. */
  readonly limit_price: number | null;
  readonly trigger_price: number | null;
  readonly time_in_force: TimeInForce;
  /** Epoch ms. */
  readonly expire_at: number | null;
  readonly post_only: boolean;
  readonly reduce_only: boolean;
  readonly index_trigger: boolean;
  readonly mark_trigger: boolean;
  readonly parent_order_id: string | null;
  readonly position_id: string | null;
}

/** An order as the engine keeps it. Every field is JSON-safe (journal events carry whole orders). */
export interface Order extends OrderTerms {
  readonly order_id: string;
  readonly account_id: string;
  /** Steps. */
  readonly filled_quantity: number;
  /** Σ notional of the fills (units), for the average fill price. */
  readonly filled_notional: number;
  readonly venue: Venue;
  readonly status: OrderStatus;
  readonly created_at: number;
  readonly updated_at: number;
  /** A STOP/TAKE_PROFIT that reached its trigger and now executes as a market order. */
  readonly triggered: boolean;
  /** Margin (units) this working order reserves for the exposure it may add; 0 for reduce-only. */
  readonly reserve: number;
  /** Children placed with this order as parent (TP/SL legs), in placement order. */
  readonly child_ids: readonly string[];
  /** Why the order ended as CANCELED or EXPIRED (audit). */
  readonly reason: CancelReason | ExpireReason | null;
}

/**
 * Why the risk system made a fill (docs/risk.md): `liquidation` closed a position whose mark reached its
 * liquidation price, `termination` closed the positions of a terminated account. Absent on the trader's fills.
 */
export const FillReason = selfNamed("liquidation", "termination");
export type FillReason = (typeof FillReason)[keyof typeof FillReason];

/** One fill, as kept in the account's trade list. */
export interface Fill {
  readonly fill_id: string;
  readonly order_id: string;
  readonly client_id: string | null;
  readonly symbol: string;
  readonly side: Side;
  /** Steps. */
  readonly quantity: number;
  /** Ticks. */
  readonly price: number;
  /** Units. */
  readonly fee: number;
  readonly liquidity: Liquidity;
  readonly venue: Venue;
  /** Units; zero unless the fill reduced a position. */
  readonly realized_pnl: number;
  readonly executed_at: number;
  readonly position_id: string;
  /** Set only on a fill the risk system made (a liquidation, a termination's close). */
  readonly reason?: FillReason;
}

export function remainingOf(order: Order): number {
  return order.quantity - order.filled_quantity;
}

/** A record under construction (a fresh copy, before it is stored): its fields writable. */
export type Draft<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A field-by-field copy: one fixed-shape literal is much cheaper than an object spread on the hot path
 * (every fill replaces its order). Keep in step with `Order`; the compiler checks every field is copied.
 */
export function copyOrder(order: Order): Draft<Order> {
  return {
    order_id: order.order_id,
    account_id: order.account_id,
    client_id: order.client_id,
    symbol: order.symbol,
    side: order.side,
    kind: order.kind,
    quantity: order.quantity,
    filled_quantity: order.filled_quantity,
    filled_notional: order.filled_notional,
    limit_price: order.limit_price,
    trigger_price: order.trigger_price,
    time_in_force: order.time_in_force,
    expire_at: order.expire_at,
    post_only: order.post_only,
    reduce_only: order.reduce_only,
    index_trigger: order.index_trigger,
    mark_trigger: order.mark_trigger,
    venue: order.venue,
    parent_order_id: order.parent_order_id,
    position_id: order.position_id,
    status: order.status,
    created_at: order.created_at,
    updated_at: order.updated_at,
    triggered: order.triggered,
    reserve: order.reserve,
    child_ids: order.child_ids,
    reason: order.reason,
  };
}
