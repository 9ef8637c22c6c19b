// Closes by the risk system (docs/risk.md, "Liquidation"): a position closed at once at the mark, whatever the
// book's depth, for a termination or a liquidation.
import type { SymbolQuote } from "../market/book.js";
import { tickerUnits } from "../market/units.js";
import type { Position } from "../basics/position-types.js";
import type { Run } from "../basics/run.js";
import type { FillReason, Order } from "../basics/order-types.js";
import { emitFill } from "./fills.js";
import { cancelOrphanedReduceOnly } from "./lifecycle.js";

/**
 * The risk system closes a position at once (termination, liquidation: docs/risk.md): a reduce-only MARKET order
 * for the whole quantity, filled as a taker at the mark whatever the book's depth (the venue's closing fee
 * charged), the fill carrying `reason`. Without a price for the symbol it closes at the position's average entry
 * (no P&L). Returns the closing order's id.
 */
export function closeAtMark(run: Run, position: Position, reason: FillReason): string {
  const quote = run.market.quotes.get(position.symbol) ?? entryQuote(run, position);
  const order: Order = {
    order_id: run.nextId(),
    account_id: run.state.account_id,
    client_id: null,
    symbol: position.symbol,
    side: position.side === "BUY" ? "SELL" : "BUY",
    kind: "MARKET",
    quantity: position.quantity,
    filled_quantity: 0,
    filled_notional: 0,
    limit_price: null,
    trigger_price: null,
    time_in_force: "IOC",
    expire_at: null,
    post_only: false,
    reduce_only: true,
    index_trigger: false,
    mark_trigger: false,
    venue: position.venue,
    parent_order_id: null,
    position_id: position.position_id,
    status: "NEW",
    created_at: run.now,
    updated_at: run.now,
    triggered: false,
    reserve: 0,
    child_ids: [],
    reason: null,
  };
  run.emit({ type: "OrderAccepted", at: run.now, order });
  emitFill(run, order, quote, quote.mark, position.quantity, "TAKER", position, reason);
  return order.order_id;
}

/**
 * Liquidates a position (docs/risk.md, "Liquidation"): closed at the mark like any close by the risk system,
 * then the working reduce-only orders left with nothing to reduce on it are canceled, as after any close
 * (`reduce_only_no_position`; children of a parent that still works stay, for its next fills).
 */
export function liquidatePosition(run: Run, position: Position): void {
  const closingId = closeAtMark(run, position, "liquidation");
  cancelOrphanedReduceOnly(run, position.symbol, position.venue, closingId);
}

/** A stand-in quote at the position's average entry, for a symbol the shard has no price for. */
function entryQuote(run: Run, position: Position): SymbolQuote {
  const spec = run.market.catalogue.byKey(position.symbol);
  if (spec === undefined) throw new RangeError(`unknown symbol ${position.symbol}`);
  const units = tickerUnits(spec);
  const entry = Math.max(1, Math.round(position.cost_basis / (position.quantity * units.unitsPerTickStep)));
  return {
    spec,
    units,
    mark: entry,
    index: entry,
    skew: 0,
    open: true,
    depth: position.quantity,
    version: -1,
    takenBuy: 0,
    takenSell: 0,
    at: 0,
    resetMark: entry,
    nextReset: 0,
  };
}
