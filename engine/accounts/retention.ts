// What an account actor keeps in memory (docs/engine.md, "Limits"): final orders leave it once final for longer
// than the retention, or when the account holds more final orders than it keeps (oldest first); `client_id`
// records leave it after the replay window, or when the account holds more than it keeps, and their ids join
// the account's filter of forgotten client_ids (basics/key-filter.ts) while the shard keeps what a retry needs
// in the table of spent client_ids (docs/engine.md, "Idempotency"). Everything stays in the journal. The bookkeeping is folded from the applied events only (their `at`, never a clock), so a
// replay of the journal forgets exactly what the live actor forgot.
import { isWorking, type Order } from "../basics/order-types.js";
import type { EngineEvent } from "../basics/events.js";
import type { ActorLimits } from "./limits.js";
import type { AccountState, IdempotencyRecord, Retention } from "../basics/account-state.js";
import { FinalQueue } from "../basics/final-queue.js";
import { KeyFilter } from "../basics/key-filter.js";
import { isRequestIdKey } from "../basics/record-keys.js";

/** The order an event made final, if it did (as the state holds it after the event). */
function finalOrderOf(state: AccountState, event: EngineEvent): Order | undefined {
  let orderId: string;
  switch (event.type) {
    case "OrderRejected":
      orderId = event.order.order_id;
      break;
    case "OrderFilled":
      orderId = event.fill.order_id;
      break;
    case "OrderCanceled":
    case "OrderExpired":
      orderId = event.order_id;
      break;
    default:
      return undefined;
  }
  const order = state.orders.get(orderId);
  return order !== undefined && !isWorking(order.status) ? order : undefined;
}

/**
 * Queues final orders for forgetting. A bracket (a parent and the children it lists) is queued whole, once all
 * its members are final, and taken off the queue again when a new child joins its parent: execution reads a
 * bracket's members while it works. The queue is then in the order orders were queued, whatever happens later,
 * so forgetting after every decision or after several of one instant leaves the same orders.
 */
function queueFinal(state: AccountState, finals: FinalQueue, order: Order, at: number): void {
  const orderId = order.order_id;
  const root = order.parent_order_id === null ? order : state.orders.get(order.parent_order_id);
  // Alone (no bracket), or a child its parent never listed (a rejected one): queued at once.
  if (root === undefined || (root === order ? order.child_ids.length === 0 : !root.child_ids.includes(orderId))) {
    finals.push(orderId, at);
    return;
  }
  if (isWorking(root.status)) return;
  for (const childId of root.child_ids) {
    const child = state.orders.get(childId);
    if (child !== undefined && isWorking(child.status)) return;
  }
  // Nothing of a bracket is queued before all its members are final (the checks above): each is queued here once.
  finals.push(root.order_id, at);
  for (const childId of root.child_ids) finals.push(childId, at);
}

/** Notes what an event just applied to `state` made final or recorded (called after `apply`). */
export function noteApplied(state: AccountState, event: EngineEvent): void {
  const retention = state.retention;
  if (event.at > retention.lastAt) retention.lastAt = event.at;
  // A record carries its own time (`recorded_at`) and `client_ids` keeps them oldest first: nothing to note.
  if (event.type === "IdempotencyRecorded") return;
  if (event.type === "OrderAccepted" && event.order.parent_order_id !== null) {
    // A new child: its bracket works again. A bracket is queued only once its parent is final, so a working
    // parent's has nothing queued to take off.
    const parent = state.orders.get(event.order.parent_order_id);
    if (parent === undefined || isWorking(parent.status)) return;
    // The new child (listed already) was never queued.
    retention.finals.delete(parent.order_id);
    for (const childId of parent.child_ids) if (childId !== event.order.order_id) retention.finals.delete(childId);
    return;
  }
  const final = finalOrderOf(state, event);
  if (final !== undefined) queueFinal(state, retention.finals, final, event.at);
}

/**
 * Drops from `state` the final orders and `client_id` records it no longer keeps, as of the latest event
 * applied; returns the ids of the orders dropped (no longer addressable). `onForget` sees each order just before
 * it leaves (the order archive keeps it), `onForgetRecord` each `client_id` record (the table of spent client_ids
 * keeps it); a forgotten client_id joins the filter. Cheap when nothing is due: a look at the oldest entry of
 * each table.
 */
export function forgetExpired(
  state: AccountState,
  limits: ActorLimits,
  onForget?: (order: Order) => void,
  onForgetRecord?: (clientId: string, record: IdempotencyRecord) => void,
): string[] {
  const retention = state.retention;
  const now = retention.lastAt;
  const forgotten: string[] = [];
  const finals = retention.finals;
  for (let at = finals.oldestAt(); at !== undefined; at = finals.oldestAt()) {
    if (at > now - limits.finalOrderRetentionMs && finals.size <= limits.finalOrdersKept) break;
    const orderId = finals.shift() as string;
    const order = state.orders.get(orderId);
    if (order === undefined) continue;
    onForget?.(order);
    state.orders.delete(orderId);
    forgotten.push(orderId);
  }
  const clientIds = state.client_ids;
  for (const [clientId, record] of clientIds) {
    if (record.recorded_at > now - limits.clientIdWindowMs && clientIds.size <= limits.clientIdsKept) break;
    // A request id is dropped whole (basics/record-keys.ts): only a client_id stays spent.
    if (!isRequestIdKey(clientId)) {
      onForgetRecord?.(clientId, record);
      retention.forgotten.add(clientId);
    }
    clientIds.delete(clientId);
  }
  return forgotten;
}

/** What the account holds in its retention tables (tests and the memory benchmark). */
export function retainedCounts(state: AccountState): { finals: number; clientIds: number } {
  return { finals: state.retention.finals.size, clientIds: state.client_ids.size };
}

/** The bookkeeping as it goes into a snapshot (accounts/snapshot.ts). */
export interface RetentionSnapshot {
  finals: [string, number][];
  /**
   * client_id → recorded time, oldest first: what an engine whose records carry no `recorded_at` forgets
   * `client_id` records by, written so that such an engine (a rollback) restores a snapshot of this one and still
   * forgets them. A snapshot whose records lack their time is dated from here on restore (`restoreState`).
   */
  clientIds?: [string, number][];
  lastAt: number;
  /**
   * The filter of forgotten client_ids: its 32-bit hashes, little-endian, in base64. Absent from a snapshot of an
   * engine without it, which restores with an empty filter (docs/engine.md, "Idempotency").
   */
  forgotten?: string;
}

export function exportRetention(state: AccountState): RetentionSnapshot {
  const clientIds: [string, number][] = [];
  for (const [clientId, record] of state.client_ids) clientIds.push([clientId, record.recorded_at]);
  const retention = state.retention;
  const snapshot: RetentionSnapshot = { finals: retention.finals.entries(), clientIds, lastAt: retention.lastAt };
  if (retention.forgotten.size > 0) snapshot.forgotten = hashesText(retention.forgotten.hashes());
  return snapshot;
}

export function importRetention(snapshot: RetentionSnapshot): Retention {
  const forgotten =
    snapshot.forgotten === undefined ? new KeyFilter() : KeyFilter.fromHashes(hashesOf(snapshot.forgotten));
  return { finals: FinalQueue.from(snapshot.finals), lastAt: snapshot.lastAt, forgotten };
}

/** 32-bit hashes as base64 of their little-endian bytes: about 5.3 characters a hash. */
function hashesText(hashes: readonly number[]): string {
  const bytes = Buffer.alloc(hashes.length * 4);
  hashes.forEach((hash, i) => bytes.writeUInt32LE(hash, i * 4));
  return bytes.toString("base64");
}

function hashesOf(text: string): number[] {
  const bytes = Buffer.from(text, "base64");
  if (bytes.length % 4 !== 0) throw new Error("snapshot: the forgotten client_id filter is not a list of hashes");
  const hashes: number[] = [];
  for (let at = 0; at < bytes.length; at += 4) hashes.push(bytes.readUInt32LE(at));
  return hashes;
}
