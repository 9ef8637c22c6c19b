// Position arithmetic (docs/engine.md, "Positions and money"), pure and in integers. `planFill` is what the
// core decides for a fill (effect, released cost basis, realized P&L; carried by the fill event) and
// `applyFill` is what `apply` does with it, so a replay never recomputes a rounding.
import { addSafe, liquidationTicks, marginFor, mulDivRound, mulSafe, type TickerUnits } from "../market/units.js";
import { direction, type Fill, type Side } from "../basics/order-types.js";
import { copyPosition, type ClosedPosition, type Position, type PositionEffect } from "../basics/position-types.js";

export interface FillPlan {
  readonly effect: PositionEffect;
  /** Cost basis released by a reduce (units); 0 otherwise. */
  readonly released_basis: number;
  /** `(exit − entry) × qty × direction` against the released basis (units); 0 unless reducing. */
  readonly realized_pnl: number;
}

/**
 * What a fill of `steps` on `side` for `notional` units does to `position`. A reduce must not exceed the
 * position (the core splits a flip into a reduce of the whole position and an open).
 */
export function planFill(position: Position | undefined, side: Side, steps: number, notional: number): FillPlan {
  if (position === undefined) return { effect: "open", released_basis: 0, realized_pnl: 0 };
  if (position.side === side) return { effect: "increase", released_basis: 0, realized_pnl: 0 };
  if (steps > position.quantity) throw new Error(`a reduce of ${steps} exceeds the position of ${position.quantity}`);
  const released =
    steps === position.quantity ? position.cost_basis : mulDivRound(position.cost_basis, steps, position.quantity);
  const realized = direction(position.side) * (notional - released);
  return { effect: "reduce", released_basis: released, realized_pnl: realized === 0 ? 0 : realized };
}

/** The fill record fields `applyFill` reads. */
export type PositionFill = Pick<
  Fill,
  "position_id" | "symbol" | "venue" | "side" | "quantity" | "fee" | "realized_pnl"
>;

/** What the core decided for the fill (the rest of the OrderFilled event). */
export interface PositionChange {
  readonly notional: number;
  readonly effect: PositionEffect;
  readonly released_basis: number;
  readonly leverage: number;
  readonly at: number;
}

export interface FillOutcome {
  /** The position after the fill; undefined once it is closed. */
  readonly position: Position | undefined;
  /** The history row when the fill closed the position. */
  readonly closed: ClosedPosition | undefined;
}

/** The position after a planned fill. Throws when the fill does not fit the position (a core bug). */
export function applyFill(position: Position | undefined, fill: PositionFill, change: PositionChange): FillOutcome {
  switch (change.effect) {
    case "open": {
      if (position !== undefined) throw new Error(`open of ${fill.position_id} over ${position.position_id}`);
      return {
        position: {
          position_id: fill.position_id,
          symbol: fill.symbol,
          venue: fill.venue,
          side: fill.side,
          quantity: fill.quantity,
          cost_basis: change.notional,
          leverage: change.leverage,
          opened_at: change.at,
          opened_quantity: fill.quantity,
          opened_notional: BigInt(change.notional),
          closed_quantity: 0,
          closed_notional: 0n,
          realized_pnl: 0,
          fees: fill.fee,
          funding: 0,
        },
        closed: undefined,
      };
    }
    case "increase": {
      if (position?.position_id !== fill.position_id || position.side !== fill.side) {
        throw new Error(`increase of ${fill.position_id} does not match the open position`);
      }
      const next = copyPosition(position);
      next.quantity += fill.quantity;
      next.cost_basis = addSafe(next.cost_basis, change.notional);
      next.opened_quantity += fill.quantity;
      next.opened_notional += BigInt(change.notional);
      next.fees += fill.fee;
      return { position: next, closed: undefined };
    }
    case "reduce": {
      if (
        position?.position_id !== fill.position_id ||
        position.side === fill.side ||
        fill.quantity > position.quantity
      ) {
        throw new Error(`reduce of ${fill.position_id} does not match the open position`);
      }
      const next = copyPosition(position);
      next.quantity -= fill.quantity;
      next.cost_basis -= change.released_basis;
      next.closed_quantity += fill.quantity;
      next.closed_notional += BigInt(change.notional);
      next.realized_pnl += fill.realized_pnl;
      next.fees += fill.fee;
      if (next.quantity > 0) return { position: next, closed: undefined };
      return {
        position: undefined,
        closed: {
          position_id: next.position_id,
          symbol: next.symbol,
          venue: next.venue,
          side: next.side,
          quantity: next.opened_quantity,
          entry_notional: next.opened_notional,
          exit_notional: next.closed_notional,
          realized_pnl: next.realized_pnl,
          fees: next.fees,
          funding: next.funding,
          leverage: next.leverage,
          opened_at: next.opened_at,
          closed_at: change.at,
        },
      };
    }
  }
}

/** Initial margin of the open steps: cost basis / leverage. */
export function positionMargin(position: Position): number {
  return marginFor(position.cost_basis, position.leverage);
}

/** Unrealized P&L at a mark (ticks): `(mark − entry) × qty × direction` in units. */
export function unrealizedPnl(position: Position, markTicks: number, units: TickerUnits): number {
  const markNotional = mulSafe(mulSafe(markTicks, position.quantity), units.unitsPerTickStep);
  const pnl = direction(position.side) * (markNotional - position.cost_basis);
  return pnl === 0 ? 0 : pnl;
}

/**
 * The isolated liquidation price in ticks (on the grid): where the loss reaches the position's margin. The risk
 * system closes the position when the mark reaches it (orders/liquidation.ts).
 */
export function liquidationPrice(position: Position, units: Pick<TickerUnits, "unitsPerTickStep">): number {
  return liquidationTicks(
    position.cost_basis,
    position.quantity,
    units.unitsPerTickStep,
    position.leverage,
    position.side === "BUY",
  );
}
