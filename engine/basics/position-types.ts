// Positions as the engine keeps them: netted per (symbol, venue), cost basis in money units, quantities in
// steps. Replaced, never mutated, like orders. The wire rows are built in positions/record.ts.
import type { Venue } from "../market/types.js";
import type { Draft, Side } from "./order-types.js";

export interface Position {
  readonly position_id: string;
  readonly symbol: string;
  readonly venue: Venue;
  /** BUY is long, SELL is short. */
  readonly side: Side;
  /** Open steps (> 0). */
  readonly quantity: number;
  /** Entry notional (units) of the open steps. */
  readonly cost_basis: number;
  readonly leverage: number;
  readonly opened_at: number;
  /**
   * Lifetime totals, for the history row. The notionals are BigInt: a position traded in and out for its whole
   * life (never closed completely) can turn over more than 2^53 units (≈ 90M USD), and that must never stop
   * it from being traded or closed.
   */
  readonly opened_quantity: number;
  readonly opened_notional: bigint;
  readonly closed_quantity: number;
  readonly closed_notional: bigint;
  readonly realized_pnl: number;
  readonly fees: number;
  readonly funding: number;
}

/** A field-by-field copy (cheaper than a spread on the hot path; the compiler checks every field). */
export function copyPosition(position: Position): Draft<Position> {
  return {
    position_id: position.position_id,
    symbol: position.symbol,
    venue: position.venue,
    side: position.side,
    quantity: position.quantity,
    cost_basis: position.cost_basis,
    leverage: position.leverage,
    opened_at: position.opened_at,
    opened_quantity: position.opened_quantity,
    opened_notional: position.opened_notional,
    closed_quantity: position.closed_quantity,
    closed_notional: position.closed_notional,
    realized_pnl: position.realized_pnl,
    fees: position.fees,
    funding: position.funding,
  };
}

/** A fully closed position (history row, oldest first). */
export interface ClosedPosition {
  readonly position_id: string;
  readonly symbol: string;
  readonly venue: Venue;
  readonly side: Side;
  /** Steps opened over the position's life (all of them closed). */
  readonly quantity: number;
  /** Σ entry notional and Σ exit notional (units): the average prices of the row (BigInt: see Position). */
  readonly entry_notional: bigint;
  readonly exit_notional: bigint;
  readonly realized_pnl: number;
  readonly fees: number;
  readonly funding: number;
  readonly leverage: number;
  readonly opened_at: number;
  readonly closed_at: number;
}

/** What a fill does to the position it touches; a flip is split by the core into a reduce and an open. */
export type PositionEffect = "open" | "increase" | "reduce";

const KEYS = new Map<string, Map<Venue, string>>();

/** "SYMBOL|VENUE", the same string instance every time (a hot Map key: no concatenation, hash cached). */
export function positionKey(symbol: string, venue: Venue): string {
  let byVenue = KEYS.get(symbol);
  if (byVenue === undefined) {
    byVenue = new Map();
    KEYS.set(symbol, byVenue);
  }
  let key = byVenue.get(venue);
  if (key === undefined) {
    key = `${symbol}|${venue}`;
    byVenue.set(venue, key);
  }
  return key;
}
