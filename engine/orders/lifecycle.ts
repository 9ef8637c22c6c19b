// How working orders end and wake (docs/engine.md, "Execution"): cancel and expire (a parent without fills
// takes its children along), GTD expiry, a bracket's end (OCO), the activation of HELD children by their
// parent's first fill, the re-arming of a triggered child, and the reduce-only orders a closed position orphans.
import type { RuleViolation } from "../basics/risk-types.js";
import type { Run } from "../basics/run.js";
import { isWorking, type CancelReason, type ExpireReason, type Order } from "../basics/order-types.js";
import { awaitsParent, childrenFilled, closableSteps, reducibleSteps, working } from "./conditions.js";

/**
 * Cancels a working order (with the violation row a refused fill records); a parent without fills takes its
 * working children with it.
 */
export function cancelOrder(run: Run, orderId: string, reason: CancelReason, violation?: RuleViolation): void {
  const order = working(run.state, orderId);
  if (order === undefined) return;
  run.emit(
    violation === undefined
      ? { type: "OrderCanceled", at: run.now, order_id: orderId, reason }
      : { type: "OrderCanceled", at: run.now, order_id: orderId, reason, violation },
  );
  if (order.filled_quantity === 0) cancelChildren(run, order);
  else if (order.child_ids.length > 0) endBracket(run, orderId);
}

/** Expires a working order; a parent without fills cancels its working children. */
export function expireOrder(run: Run, orderId: string, reason: ExpireReason): void {
  const order = working(run.state, orderId);
  if (order === undefined) return;
  run.emit({ type: "OrderExpired", at: run.now, order_id: orderId, reason });
  if (order.filled_quantity === 0) cancelChildren(run, order);
  else if (order.child_ids.length > 0) endBracket(run, orderId);
}

function cancelChildren(run: Run, parent: Order): void {
  for (const childId of parent.child_ids) {
    if (working(run.state, childId) !== undefined) {
      run.emit({ type: "OrderCanceled", at: run.now, order_id: childId, reason: "parent_canceled" });
    }
  }
}

/** Expires every working GTD order whose `expire_at` has passed (run before every command). */
export function expireDue(run: Run): void {
  if (run.state.expiries.size === 0) return;
  let due: string[] | undefined;
  for (const [orderId, expireAt] of run.state.expiries) if (expireAt <= run.now) (due ??= []).push(orderId);
  if (due !== undefined) for (const orderId of due) expireOrder(run, orderId, "gtd");
}

/**
 * A bracket ends when its parent is final and the children have closed everything it filled: until then they
 * protect the rest of the position it opened, and its later fills. Its working children are canceled then:
 * the siblings of the child whose fill ended it as `oco`, that child's own rest as having nothing to reduce.
 */
export function endBracket(run: Run, parentId: string, lastFilled?: string): void {
  const parent = run.state.orders.get(parentId);
  if (parent === undefined || isWorking(parent.status)) return;
  if (childrenFilled(run.state, parent) < parent.filled_quantity) return;
  for (const childId of parent.child_ids) {
    cancelOrder(run, childId, childId === lastFilled ? "reduce_only_no_position" : "oco");
  }
}

export function activateChildren(run: Run, parentId: string): void {
  const parent = run.state.orders.get(parentId);
  if (parent === undefined) return;
  for (const childId of parent.child_ids) {
    if (run.state.orders.get(childId)?.status === "HELD") {
      run.emit({ type: "OrderActivated", at: run.now, order_id: childId });
      run.activated.push(childId);
    }
  }
}

/**
 * A triggered bracket child that has closed all its parent filled while the parent still works waits for its
 * trigger again (docs/risk.md, "Brackets protect every fill"): the parent's next fill is protected at the
 * trigger, not closed at once at whatever the market is then.
 */
export function rearmIfClosedAll(run: Run, orderId: string): void {
  const order = working(run.state, orderId);
  if (order?.triggered !== true || !awaitsParent(run.state, order)) return;
  if (closableSteps(run.state, order) > 0) return;
  run.emit({ type: "OrderRearmed", at: run.now, order_id: orderId });
}

/**
 * The position of (symbol, venue) just closed: the other working reduce-only orders there (stop-losses,
 * take-profits, reduce-only limits) have nothing left to reduce and are canceled now, not when they would
 * trigger (a stale stop must not hold risk budget, nor wait to act on a later position). Children of a parent
 * that still works (HELD or not) are left alone: they belong to the position its next fills open; a triggered
 * one of them is re-armed, so the parent's next fill waits for its trigger instead of being closed at once at
 * whatever the market is then. The order that closed it is `afterFills`' business.
 */
export function cancelOrphanedReduceOnly(run: Run, symbol: string, venue: Order["venue"], closingId: string): void {
  const orphans: string[] = [];
  const triggered: string[] = [];
  // A bracket's children are reduce-only, so the triggered ones awaiting their parent are among these too.
  for (const order of run.state.reduce_only.values()) {
    if (order.order_id === closingId || order.symbol !== symbol || order.venue !== venue) continue;
    if (order.triggered && awaitsParent(run.state, order)) triggered.push(order.order_id);
    if (order.status !== "HELD" && reducibleSteps(run.state, order) === 0 && !awaitsParent(run.state, order)) {
      orphans.push(order.order_id);
    }
  }
  for (const orderId of orphans) cancelOrder(run, orderId, "reduce_only_no_position");
  for (const orderId of triggered) rearmIfClosedAll(run, orderId);
}
