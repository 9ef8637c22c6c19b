// When an order can act (docs/engine.md, "Execution"): the price it is valued at as it enters the book (whether
// the mark crosses it or reaches its trigger is basics/entry.ts), the opposite position a reduce-only order
// reduces and what is left of it, and how much of its parent's fills a bracket child may still close.
// Read-only: nothing here emits.
import type { AccountState } from "../basics/account-state.js";
import type { SymbolQuote } from "../market/book.js";
import { executesOnEntry, type EntryTerms } from "../basics/entry.js";
import { positionKey, type Position } from "../basics/position-types.js";
import type { Venue } from "../market/types.js";
import type { Issue } from "../../kernel/errors.js";
import { isWorking, type Order } from "../basics/order-types.js";

/** The order if it is still working (NEW, PARTIALLY_FILLED or HELD). */
export function working(state: AccountState, orderId: string): Order | undefined {
  const order = state.orders.get(orderId);
  return order !== undefined && isWorking(order.status) ? order : undefined;
}

/** The open position at (symbol, venue) when it is opposite to `side`: what an order on that side reduces. */
export function oppositePosition(
  state: AccountState,
  symbol: string,
  venue: Venue,
  side: Order["side"],
): Position | undefined {
  const position = state.positions.get(positionKey(symbol, venue));
  return position !== undefined && position.side !== side ? position : undefined;
}

/** Steps of an opposite position a reduce-only order may fill (none when it targets another position). */
export function reducibleOf(opposite: Position | undefined, positionId: string | null): number {
  if (opposite === undefined) return 0;
  if (positionId !== null && opposite.position_id !== positionId) return 0;
  return opposite.quantity;
}

/** Steps a reduce-only order may still fill: the open opposite position (the targeted one, if any). */
export function reducibleSteps(
  state: AccountState,
  order: Pick<Order, "symbol" | "venue" | "side" | "position_id">,
): number {
  return reducibleOf(oppositePosition(state, order.symbol, order.venue, order.side), order.position_id);
}

/** Orders whose notional would come near the safe-integer range are refused as too large (400). */
const MAX_NOTIONAL_UNITS = 2 ** 50;

/**
 * The price (ticks) the rules value an order at as it enters the book (docs/risk.md, "Valued where it
 * executes"). One that executes at once fills from the mark, so a crossed limit or a passed trigger says nothing
 * of its size: an order that cannot rest (a MARKET, IOC or FOK) is valued at the mark; one whose remainder can
 * rest (the book's depth may not take all of it) at the mark or its own price, whichever is higher, so what
 * rests is covered too. Any other order at its own price.
 */
export function entryPrice(
  order: EntryTerms & Pick<Order, "time_in_force">,
  quote: SymbolQuote | undefined,
  now: number,
): number {
  const own = reservePrice(order, quote);
  if (quote === undefined || !executesOnEntry(order, quote, now)) return own;
  const rests = order.kind !== "MARKET" && order.time_in_force !== "IOC" && order.time_in_force !== "FOK";
  return rests ? Math.max(quote.mark, own) : quote.mark;
}

/**
 * The issue of an order too large to account exactly at `price` (where it executes) or `own` (where what rests
 * is counted), or undefined when it fits. It names the order's own price when the quantity fits at the
 * market's, else the quantity (also when the symbol has no market price to tell).
 */
export function tooLarge(
  order: Pick<Order, "limit_price" | "trigger_price">,
  quantity: number,
  unitsPerTickStep: number,
  quote: SymbolQuote | undefined,
  price: number,
  own: number,
): Issue | undefined {
  const fits = (ticks: number): boolean => ticks * unitsPerTickStep * quantity <= MAX_NOTIONAL_UNITS;
  if (fits(Math.max(price, own))) return undefined;
  const priceField =
    order.limit_price !== null ? "limit_price" : order.trigger_price !== null ? "trigger_price" : undefined;
  const byPrice = priceField !== undefined && quote !== undefined && fits(quote.mark) && own !== quote.mark;
  return { path: byPrice ? priceField : "quantity", message: "is too large" };
}

/** The price (ticks) a working order's reserve is valued at: its limit, its trigger, else the mark. */
export function reservePrice(
  order: Pick<Order, "limit_price" | "trigger_price">,
  quote: SymbolQuote | undefined,
): number {
  return order.limit_price ?? order.trigger_price ?? quote?.mark ?? 0;
}

/**
 * The steps a reduce-only order could close now: what is left of the position it reduces and, for a bracket
 * child, of its parent's fills the children have not closed yet.
 */
export function closableSteps(state: AccountState, order: Order): number {
  return Math.min(reducibleSteps(state, order), bracketRoom(state, order));
}

/**
 * Steps a bracket child may still close: its parent's filled quantity less what all the parent's children
 * have filled (they protect that quantity together). Unbounded for an order without a parent, and for a child
 * whose parent is no longer in memory: a parent is forgotten only final and filled (a replay under a lower
 * retention, core/apply.ts), and its child then protects the position as any reduce-only order does.
 */
export function bracketRoom(state: AccountState, order: Pick<Order, "parent_order_id">): number {
  if (order.parent_order_id === null) return Number.POSITIVE_INFINITY;
  const parent = state.orders.get(order.parent_order_id);
  if (parent === undefined) return Number.POSITIVE_INFINITY;
  return Math.max(0, parent.filled_quantity - childrenFilled(state, parent));
}

export function childrenFilled(state: AccountState, parent: Order): number {
  let filled = 0;
  for (const childId of parent.child_ids) filled += state.orders.get(childId)?.filled_quantity ?? 0;
  return filled;
}

/** Whether the order is a bracket child whose parent still works: it waits for the parent's next fill. */
export function awaitsParent(state: AccountState, order: Pick<Order, "parent_order_id">): boolean {
  if (order.parent_order_id === null) return false;
  const parent = state.orders.get(order.parent_order_id);
  return parent !== undefined && isWorking(parent.status);
}
