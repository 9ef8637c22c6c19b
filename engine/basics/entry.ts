// When an order acts on the market's price (docs/engine.md, "Execution"): whether the mark crosses a limit, whether
// a trigger is reached, and whether an order executes as it enters the book. Read by the execution, the placement
// and amend decisions, and the risk checks, which value an order by where it executes.
import { isQuoteOpen, type SymbolQuote } from "../market/book.js";
import type { Order } from "./order-types.js";

/** Whether a LIMIT's price is crossed by the mark (buy: mark ≤ limit; sell: mark ≥ limit). */
export function crosses(order: Pick<Order, "side" | "limit_price">, mark: number): boolean {
  if (order.limit_price === null) return false;
  return order.side === "BUY" ? mark <= order.limit_price : mark >= order.limit_price;
}

/** Whether a STOP/TAKE_PROFIT's reference (mark or index) has reached its trigger. */
export function triggerReached(
  order: Pick<Order, "kind" | "side" | "trigger_price" | "index_trigger">,
  quote: SymbolQuote,
): boolean {
  if (order.trigger_price === null) return false;
  const reference = order.index_trigger ? quote.index : quote.mark;
  const rising = (order.kind === "STOP") === (order.side === "BUY");
  return rising ? reference >= order.trigger_price : reference <= order.trigger_price;
}

/** What decides whether an order executes as it enters the book. */
export type EntryTerms = Pick<Order, "kind" | "side" | "limit_price" | "trigger_price" | "index_trigger">;

/**
 * Whether an order executes as it enters the book, on an open market: a MARKET, a LIMIT the mark crosses, or a
 * STOP/TAKE_PROFIT whose trigger is reached already. Each fills from the mark through the book (a LIMIT never
 * past its price), not at its limit or trigger.
 */
export function executesOnEntry(order: EntryTerms, quote: SymbolQuote | undefined, now: number): boolean {
  if (quote === undefined || !isQuoteOpen(quote, now)) return false;
  switch (order.kind) {
    case "MARKET":
      return true;
    case "LIMIT":
      return crosses(order, quote.mark);
    case "STOP":
    case "TAKE_PROFIT":
      return triggerReached(order, quote);
  }
}
