// Execution against the simulated venues (docs/engine.md, "Execution"): market and crossing limit orders
// take depth level by level, resting limits fill as maker through the book when the mark crosses them, stops
// and take-profits trigger on the mark or the index and then take like market orders. Reduce-only fills are
// clamped to the opposite position, a fill that flips a position is split into a close and an open, the
// first fill of a parent activates its HELD children and a child's fill cancels its siblings (OCO).
// The parts: orders/conditions.ts (when an order can act), orders/fills.ts (filling it), orders/lifecycle.ts
// (how orders end and wake) and orders/forced-close.ts (closes by the risk system).
import { isQuoteOpen } from "../market/book.js";
import type { Run } from "../basics/run.js";
import type { Order } from "../basics/order-types.js";
import { crosses, triggerReached } from "../basics/entry.js";
import { awaitsParent, closableSteps, working } from "./conditions.js";
import { make, take } from "./fills.js";
import { cancelOrder, expireOrder, rearmIfClosedAll } from "./lifecycle.js";

/** `placement`: the order was just placed or amended (a crossing limit takes); `update`: a price update. */
export type Phase = "placement" | "update";

/**
 * Executes one working order against the current quote, then the HELD children its first fill activated.
 * IOC/FOK apply when the order can execute now: a MARKET or LIMIT at placement, a STOP/TAKE_PROFIT once
 * triggered. A child's activation is its placement: it executes at once with its time in force honoured.
 * `gated`: the part of its fills that adds exposure is checked again (see `fillLevels` in orders/fills.ts); always on an update,
 * and at an amend the checks did not judge (one that only lowers the quantity).
 */
export function executeOrder(
  run: Run,
  orderId: string,
  phase: Phase,
  current?: Order,
  gated: boolean = phase === "update",
): void {
  // `current`: the caller's object is the order as it stands (it was just accepted and nothing since touched
  // it), so a resting order is looked at without building the decision's draft state.
  const order = current ?? working(run.state, orderId);
  if (order === undefined || order.status === "HELD") return;
  if (order.filled_quantity > 0 || order.child_ids.length === 0) {
    executeOne(run, order, phase, gated);
    return;
  }
  const from = run.activated.length;
  executeOne(run, order, phase, gated);
  for (let i = from; i < run.activated.length; i++) {
    const childId = run.activated[i];
    if (childId !== undefined) executeOne(run, working(run.state, childId), "placement", false);
  }
}

function executeOne(run: Run, current: Order | undefined, phase: Phase, gated: boolean): void {
  let order = current;
  if (order === undefined || order.status === "HELD") return;
  const orderId = order.order_id;
  const quote = run.market.quotes.get(order.symbol);
  const open = quote !== undefined && isQuoteOpen(quote, run.now);
  let immediate = true;
  switch (order.kind) {
    case "MARKET":
      if (open) take(run, order, quote, null, false);
      break;
    case "LIMIT":
      immediate = phase === "placement";
      if (open && crosses(order, quote.mark)) {
        if (phase === "placement") take(run, order, quote, order.limit_price, gated);
        else make(run, order, quote);
      }
      break;
    case "STOP":
    case "TAKE_PROFIT":
      if (!order.triggered) {
        if (!open || !triggerReached(order, quote)) return;
        // A bracket child with nothing of its parent's fills left to close stays armed until there is some.
        if (awaitsParent(run.state, order) && closableSteps(run.state, order) === 0) return;
        const reference = order.index_trigger ? quote.index : quote.mark;
        run.emit({ type: "OrderTriggered", at: run.now, order_id: orderId, reference_price: reference });
        order = working(run.state, orderId);
        if (order === undefined) return;
      }
      // Checked at placement when it triggers then; on an update the rules are checked again at its fills.
      if (open) take(run, order, quote, null, gated);
      rearmIfClosedAll(run, orderId);
      break;
  }
  // Only IOC and FOK do anything with a remainder (the time in force never changes within a decision).
  if (!immediate || (order.time_in_force !== "IOC" && order.time_in_force !== "FOK")) return;
  const rest = working(run.state, orderId);
  if (rest === undefined) return;
  if (rest.time_in_force === "IOC") cancelOrder(run, orderId, "ioc_remainder");
  else if (rest.time_in_force === "FOK") expireOrder(run, orderId, "fok");
}

/** A price update: every working order on the updated symbols, in placement order (parents before children). */
export function onPriceUpdate(run: Run, symbols: ReadonlySet<string> | undefined): void {
  const ids: string[] = [];
  for (const order of run.state.working.values()) {
    if (symbols !== undefined && !symbols.has(order.symbol)) continue;
    // A HELD child executes when its parent's fill activates it (`executeOrder`), as if placed then.
    if (order.status === "HELD" || restsThrough(run, order)) continue;
    ids.push(order.order_id);
  }
  for (const orderId of ids) executeOrder(run, orderId, "update");
}

/**
 * A LIMIT the mark does not cross does nothing on an update (`executeOrder` neither takes nor makes, and
 * IOC/FOK apply only at placement), and nothing in an update changes its side or price: it is skipped
 * before the lookup by id. Most working orders of a busy account are such resting limits.
 */
function restsThrough(run: Run, order: Order): boolean {
  if (order.kind !== "LIMIT") return false;
  const quote = run.market.quotes.get(order.symbol);
  return quote === undefined || !crosses(order, quote.mark);
}
