// The orders an account actor still holds in memory, for the order lookups and the order history (docs/openapi.yaml,
// `GET /v1/order/{order_id}`, `GET /v1/account/{id}/orders/history`, `?client_id=`): its working orders and the
// final ones it has not forgotten. What it forgot is in the order archive (engine/store/order-archive.ts); the
// engine's handlers (engine/server-order-lookups.ts) merge the two.
import type { MarketView } from "../market/book.js";
import { unitsFor } from "../market/units.js";
import { toOrderRecord, type OrderRecord } from "../basics/order-records.js";
import type { Order } from "../basics/order-types.js";
import type { AccountState } from "../basics/account-state.js";
import type { ListQuery } from "./queries.js";

/** (created_at, order_id) order: the order history's. */
function byCreation(a: Order, b: Order): number {
  return a.created_at - b.created_at || (a.order_id < b.order_id ? -1 : a.order_id > b.order_id ? 1 : 0);
}

/**
 * The account's orders in memory within the list's bounds, in (created_at, order_id) order, after the cursor
 * (`from`, `after_id`) when there is one: at most `limit + 1` of them, so a merge can tell whether more follow.
 */
export function ordersInMemory(state: AccountState, market: MarketView, query: ListQuery): OrderRecord[] {
  const afterId = query.from === null ? null : (query.after_id ?? null);
  const picked: Order[] = [];
  for (const order of state.orders.values()) {
    const time = order.created_at;
    if (query.from !== null && time < query.from) continue;
    if (query.to !== null && time > query.to) continue;
    if (afterId !== null && time === query.from && order.order_id <= afterId) continue;
    picked.push(order);
  }
  picked.sort(byCreation);
  return picked
    .slice(0, query.limit + 1)
    .map((order) => toOrderRecord(order, unitsFor(market.catalogue, order.symbol)));
}

/**
 * The newest order in memory placed with this `client_id` (by created_at, then order_id), or null. A `client_id`
 * names one order within its replay window; after it the same id may name a newer order (docs/engine.md).
 */
export function orderByClientId(state: AccountState, market: MarketView, clientId: string): OrderRecord | null {
  let newest: Order | undefined;
  for (const order of state.orders.values()) {
    if (order.client_id !== clientId) continue;
    if (newest === undefined || byCreation(newest, order) < 0) newest = order;
  }
  return newest === undefined ? null : toOrderRecord(newest, unitsFor(market.catalogue, newest.symbol));
}
