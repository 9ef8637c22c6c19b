// What an account actor keeps in memory (docs/engine.md, "Limits"): final orders leave it once final for longer
// than the retention, or when the account holds more final orders than it keeps (oldest first); `client_id`
// records leave it after the replay window, or when the account holds more than it keeps. Everything stays
// in the journal. The bookkeeping is folded from the applied events only (their `at`, never a clock), so a
// replay of the journal forgets exactly what the live actor forgot.
import { isWorking, type Order } from "../orders/types.js";
import type { EngineEvent } from "../orders/events.js";
import type { ActorLimits } from "./limits.js";
import type { AccountState } from "./state.js";

interface Retention {
  /** order_id → when it became final (epoch ms), oldest first. */
  readonly finals: Map<string, number>;
  /** client_id → when it was recorded, oldest first. */
  readonly clientIds: Map<string, number>;
  /** The latest event time applied to the account. */
  lastAt: number;
}

const RETENTION = new WeakMap<AccountState, Retention>();

function retentionOf(state: AccountState): Retention {
  let retention = RETENTION.get(state);
  if (retention === undefined) {
    retention = { finals: new Map(), clientIds: new Map(), lastAt: 0 };
    RETENTION.set(state, retention);
  }
  return retention;
}

/** The order an event made final, if it did. */
function finalOrderOf(state: AccountState, event: EngineEvent): string | undefined {
  switch (event.type) {
    case "OrderRejected":
      return event.order.order_id;
    case "OrderFilled": {
      const order = state.orders.get(event.fill.order_id);
      return order !== undefined && !isWorking(order.status) ? order.order_id : undefined;
    }
    case "OrderCanceled":
    case "OrderExpired":
      return event.order_id;
    default:
      return undefined;
  }
}

/** Notes what an event just applied to `state` made final or recorded (called after `apply`). */
export function noteApplied(state: AccountState, event: EngineEvent): void {
  const retention = retentionOf(state);
  if (event.at > retention.lastAt) retention.lastAt = event.at;
  const final = finalOrderOf(state, event);
  if (final !== undefined) retention.finals.set(final, event.at);
  else if (event.type === "IdempotencyRecorded") retention.clientIds.set(event.client_id, event.at);
}

/** A bracket member is kept while any order of its bracket works (execution reads its siblings' fills). */
function bracketWorks(state: AccountState, order: Order): boolean {
  const parentId = order.parent_order_id;
  const parent = parentId === null ? order : state.orders.get(parentId);
  if (parent === undefined) return false;
  if (isWorking(parent.status)) return true;
  for (const childId of parent.child_ids) {
    const child = state.orders.get(childId);
    if (child !== undefined && isWorking(child.status)) return true;
  }
  return false;
}

/**
 * Drops from `state` the final orders and `client_id` records it no longer keeps, as of the latest event
 * applied; returns the ids of the orders dropped (no longer addressable). Cheap when nothing is due: a look at
 * the oldest entry of each table.
 */
export function forgetExpired(state: AccountState, limits: ActorLimits): string[] {
  const retention = RETENTION.get(state);
  if (retention === undefined) return [];
  const now = retention.lastAt;
  const forgotten: string[] = [];
  const finals = retention.finals;
  // Each entry is looked at once per call: a bracket member that must stay goes to the back, as of now.
  let budget = finals.size;
  for (const [orderId, at] of finals) {
    if (budget-- <= 0) break;
    if (at > now - limits.finalOrderRetentionMs && finals.size <= limits.finalOrdersKept) break;
    finals.delete(orderId);
    const order = state.orders.get(orderId);
    if (order === undefined || isWorking(order.status)) continue;
    if ((order.parent_order_id !== null || order.child_ids.length > 0) && bracketWorks(state, order)) {
      finals.set(orderId, now);
      continue;
    }
    state.orders.delete(orderId);
    forgotten.push(orderId);
  }
  const clientIds = retention.clientIds;
  for (const [clientId, at] of clientIds) {
    if (at > now - limits.clientIdWindowMs && clientIds.size <= limits.clientIdsKept) break;
    clientIds.delete(clientId);
    state.client_ids.delete(clientId);
  }
  return forgotten;
}

/** What the account holds in its retention tables (tests and the memory benchmark). */
export function retainedCounts(state: AccountState): { finals: number; clientIds: number } {
  const retention = RETENTION.get(state);
  return { finals: retention?.finals.size ?? 0, clientIds: retention?.clientIds.size ?? 0 };
}
