// The dead-man's switch (docs/risk.md, "Cancel-after"): arming, re-arming and disarming it, and what it does
// when its deadline comes: it cancels every working order that could add exposure and keeps the reduce-only
// orders that protect an open position (stop-losses, take-profits, the children of a filled parent).
import { cancelAfterIssues } from "../../kernel/cancel-after.js";
import { cancelAfterRecord, type CancelAfterRecord } from "../basics/cancel-after.js";
import type { AccountState } from "../basics/account-state.js";
import type { ErrorReply } from "../basics/replies.js";
import { conflict, invalid } from "../basics/replies.js";
import type { Run } from "../basics/run.js";
import type { CancelReason, Order } from "../basics/order-types.js";
import { reducibleSteps, working } from "./conditions.js";
import { cancelOrder } from "./lifecycle.js";

export interface SetCancelAfterRequest {
  account_id: string;
  /** 0 disarms; otherwise CANCEL_AFTER_MIN_MS..CANCEL_AFTER_MAX_MS. */
  timeout_ms: number;
}

export type CancelAfterReply = { kind: "cancel_after"; cancel_after: CancelAfterRecord } | ErrorReply;

/**
 * SetCancelAfter: arms the switch at `now + timeout_ms` (re-arming moves the deadline), or disarms it with 0.
 * A deadline that came before this decision has already fired (`fireCancelAfter` runs first). Answers the
 * switch as the decision leaves it.
 */
export function setCancelAfter(run: Run, request: SetCancelAfterRequest): CancelAfterReply {
  const issues = cancelAfterIssues(request.timeout_ms);
  if (issues.length > 0) return invalid(issues);
  const state = run.state;
  if (request.timeout_ms === 0) {
    if (state.cancel_after !== null) run.emit({ type: "CancelAfterDisarmed", at: run.now });
  } else if (state.state === "TERMINATED") {
    return conflict({ reason: "account_terminated" });
  } else {
    run.emit({
      type: "CancelAfterArmed",
      at: run.now,
      timeout_ms: request.timeout_ms,
      deadline: run.now + request.timeout_ms,
    });
  }
  return { kind: "cancel_after", cancel_after: cancelAfterRecord(state.account_id, run.state.cancel_after) };
}

/**
 * Whether the switch keeps a working order: a reduce-only order (a stop-loss, a take-profit, a reduce-only
 * limit, a bracket child) that has an open position to reduce. A HELD child waits for a parent without fills,
 * which the switch cancels (and the child with it); a reduce-only order with no position to reduce protects
 * nothing.
 */
export function protects(state: AccountState, order: Order): boolean {
  return order.reduce_only && order.status !== "HELD" && reducibleSteps(state, order) > 0;
}

/** Whether the account's switch is armed and its deadline has come at `now`. */
export function cancelAfterDue(state: AccountState, now: number): boolean {
  return state.cancel_after !== null && state.cancel_after.deadline <= now;
}

/**
 * Fires the switch when its deadline has come (run before every command, like GTD expiry): cancels the
 * working orders it does not keep, in placement order (a parent without fills takes its children along,
 * `parent_canceled`; a parent with fills ends its bracket as a user cancel would), then records what it
 * canceled and kept and disarms.
 */
export function fireCancelAfter(run: Run): void {
  const armed = run.state.cancel_after;
  if (armed === null || armed.deadline > run.now) return;
  const before = [...run.state.working.keys()];
  for (const orderId of before) {
    const order = working(run.state, orderId);
    if (order !== undefined && !protects(run.state, order)) cancelOrder(run, orderId, "cancel_after");
  }
  const canceled: { order_id: string; reason: CancelReason }[] = [];
  const kept: string[] = [];
  for (const orderId of before) {
    const order = run.state.orders.get(orderId);
    if (order === undefined) continue;
    if (working(run.state, orderId) !== undefined) kept.push(orderId);
    else if (order.status === "CANCELED") canceled.push({ order_id: orderId, reason: order.reason as CancelReason });
  }
  run.emit({
    type: "CancelAfterFired",
    at: run.now,
    timeout_ms: armed.timeout_ms,
    deadline: armed.deadline,
    canceled,
    kept,
  });
}
