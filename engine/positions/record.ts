// The position rows (`Position` and `ClosedPosition` in docs/openapi.yaml): an open position (with its
// position_id, opened_at, margin and liquidation_price) and a closed one (history). JSON numbers made from
// exact decimals.
import type { SymbolQuote } from "../market/book.js";
import type { Venue } from "../market/types.js";
import { averagePrice, averagePriceOfTotal, gridToNumber, unitsToNumber, type TickerUnits } from "../market/units.js";
import { toIso } from "../basics/time.js";
import type { Side } from "../basics/order-types.js";
import { liquidationPrice, positionMargin, unrealizedPnl } from "./ledger.js";
import type { ClosedPosition, Position } from "../basics/position-types.js";

export interface OpenPositionRow {
  position_id: string;
  symbol: string;
  side: Side;
  quantity: number;
  entry_price: number;
  mark_price: number;
  unrealized_pnl: number;
  leverage: number;
  venue: Venue;
  opened_at: string;
  margin: number;
  liquidation_price: number;
}

export interface ClosedPositionRow {
  position_id: string;
  symbol: string;
  side: Side;
  quantity: number;
  entry_price: number;
  exit_price: number;
  realized_pnl: number;
  fees: number;
  funding: number;
  leverage: number;
  venue: Venue;
  opened_at: string;
  closed_at: string;
  /** R = net P&L / initial risk (docs/risk.md, "Analytics"); set by the history query, null in this bare row. */
  r_multiple: number | null;
}

/** An open position at the quote's mark (at its entry while the symbol has no price). */
export function toOpenPositionRow(
  position: Position,
  units: TickerUnits,
  quote: SymbolQuote | undefined,
): OpenPositionRow {
  const markTicks = quote?.mark;
  return {
    position_id: position.position_id,
    symbol: position.symbol,
    side: position.side,
    quantity: gridToNumber(position.quantity, units.step),
    entry_price: averagePrice(position.cost_basis, position.quantity, units),
    mark_price:
      markTicks === undefined
        ? averagePrice(position.cost_basis, position.quantity, units)
        : gridToNumber(markTicks, units.tick),
    unrealized_pnl: markTicks === undefined ? 0 : unitsToNumber(unrealizedPnl(position, markTicks, units)),
    leverage: position.leverage,
    venue: position.venue,
    opened_at: toIso(position.opened_at),
    margin: unitsToNumber(positionMargin(position)),
    liquidation_price: gridToNumber(liquidationPrice(position, units), units.tick),
  };
}

export function toClosedPositionRow(closed: ClosedPosition, units: TickerUnits): ClosedPositionRow {
  return {
    position_id: closed.position_id,
    symbol: closed.symbol,
    side: closed.side,
    quantity: gridToNumber(closed.quantity, units.step),
    entry_price: averagePriceOfTotal(closed.entry_notional, closed.quantity, units),
    exit_price: averagePriceOfTotal(closed.exit_notional, closed.quantity, units),
    realized_pnl: unitsToNumber(closed.realized_pnl),
    fees: unitsToNumber(closed.fees),
    funding: unitsToNumber(closed.funding),
    leverage: closed.leverage,
    venue: closed.venue,
    opened_at: toIso(closed.opened_at),
    closed_at: toIso(closed.closed_at),
    r_multiple: null,
  };
}
