// The wire records (docs/openapi.yaml, `Order` and `Fill`): the order and the fill exactly as a client sees
// them (snake_case, JSON numbers made from exact decimals, ISO instants). Built only at the edge of the core.
import type { Venue } from "../market/types.js";
import { averagePrice, gridToNumber, unitsToNumber, type TickerUnits } from "../market/units.js";
import type { Liquidity } from "../venues/fees.js";
import { toIso } from "./time.js";
import type { Fill, FillReason, Order, OrderKind, OrderStatus, Side, TimeInForce } from "./order-types.js";

export interface OrderRecord {
  order_id: string;
  account_id: string;
  client_id: string | null;
  symbol: string;
  side: Side;
  kind: OrderKind;
  quantity: number;
  filled_quantity: number;
  avg_fill_price: number | null;
  limit_price: number | null;
  trigger_price: number | null;
  time_in_force: TimeInForce;
  expire_at: string | null;
  post_only: boolean;
  reduce_only: boolean;
  index_trigger: boolean;
  mark_trigger: boolean;
  venue: Venue;
  parent_order_id: string | null;
  position_id: string | null;
  status: OrderStatus;
  created_at: string;
  updated_at: string;
}

export interface FillRecord {
  fill_id: string;
  order_id: string;
  account_id: string;
  client_id: string | null;
  symbol: string;
  side: Side;
  quantity: number;
  price: number;
  fee: number;
  liquidity: Liquidity;
  venue: Venue;
  realized_pnl: number;
  executed_at: string;
  /** Only on a fill the risk system made: `liquidation` or `termination` (docs/risk.md). */
  reason?: FillReason;
}

/**
 * The record of an order: the fields a client sees as the engine keeps them pass through by name; quantities,
 * prices and instants are converted (fixed point to JSON numbers, epoch ms to ISO). The literal keeps
 * docs/openapi.yaml's field order, which the archived orders' JSON keeps too.
 */
export function toOrderRecord(order: Order, units: TickerUnits): OrderRecord {
  const { order_id, account_id, client_id, symbol, side, kind, time_in_force, venue, status } = order;
  const { post_only, reduce_only, index_trigger, mark_trigger, parent_order_id, position_id } = order;
  const { quantity, filled_quantity, filled_notional, limit_price, trigger_price, expire_at } = order;
  return {
    order_id,
    account_id,
    client_id,
    symbol,
    side,
    kind,
    quantity: gridToNumber(quantity, units.step),
    filled_quantity: gridToNumber(filled_quantity, units.step),
    avg_fill_price: filled_quantity === 0 ? null : averagePrice(filled_notional, filled_quantity, units),
    limit_price: limit_price === null ? null : gridToNumber(limit_price, units.tick),
    trigger_price: trigger_price === null ? null : gridToNumber(trigger_price, units.tick),
    time_in_force,
    expire_at: expire_at === null ? null : toIso(expire_at),
    post_only,
    reduce_only,
    index_trigger,
    mark_trigger,
    venue,
    parent_order_id,
    position_id,
    status,
    created_at: toIso(order.created_at),
    updated_at: toIso(order.updated_at),
  };
}

/** A forgotten order as the order archive keeps it (engine/store/order-archive.ts): its record, as JSON. */
export function archivedOrder(
  order: Order,
  units: TickerUnits,
): { id: string; createdAt: number; clientId: string | null; data: string } {
  return {
    id: order.order_id,
    createdAt: order.created_at,
    clientId: order.client_id,
    data: JSON.stringify(toOrderRecord(order, units)),
  };
}

export function toFillRecord(fill: Fill, accountId: string, units: TickerUnits): FillRecord {
  return {
    fill_id: fill.fill_id,
    order_id: fill.order_id,
    account_id: accountId,
    client_id: fill.client_id,
    symbol: fill.symbol,
    side: fill.side,
    quantity: gridToNumber(fill.quantity, units.step),
    price: gridToNumber(fill.price, units.tick),
    fee: unitsToNumber(fill.fee),
    liquidity: fill.liquidity,
    venue: fill.venue,
    realized_pnl: unitsToNumber(fill.realized_pnl),
    executed_at: toIso(fill.executed_at),
    ...(fill.reason === undefined ? {} : { reason: fill.reason }),
  };
}
