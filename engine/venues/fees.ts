// Each simulated venue keeps its own fee schedule (docs/engine.md, "Fees"). The schedules are data, in parts
// per million of notional; `feeRate` picks the rate for one fill and `fee` turns it into money units.
//
// - GMX charges a position fee on open and on close: 4 bps when the trade moves the symbol's open-interest
//   skew (long minus short) towards zero, 6 bps when it moves it away or the skew is zero. A BUY always adds
//   to the skew (it opens a long or closes a short), a SELL always takes from it.
// - OSTIUM charges an opening fee by asset class, taker or maker, and nothing on close.
import { AssetClass, Venue } from "../market/types.js";
import { feeAt } from "../market/units.js";

export const Liquidity = { MAKER: "MAKER", TAKER: "TAKER" } as const;
export type Liquidity = (typeof Liquidity)[keyof typeof Liquidity];

/** Whether a fill opens (or adds to) a position, or reduces (or closes) one. */
export type FeeEffect = "open" | "close";

export const GMX_POSITION_FEE_PPM = {
  reducesSkew: 400,
  increasesSkew: 600,
} as const;

export const OSTIUM_OPENING_FEE_PPM: Readonly<Record<AssetClass, Readonly<Record<Liquidity, number>>>> = {
  [AssetClass.crypto]: { TAKER: 1000, MAKER: 800 },
  [AssetClass.forex]: { TAKER: 300, MAKER: 200 },
  [AssetClass.commodities]: { TAKER: 500, MAKER: 400 },
  [AssetClass.indices]: { TAKER: 500, MAKER: 400 },
};

export interface FeeInput {
  venue: Venue;
  assetClass: AssetClass;
  liquidity: Liquidity;
  effect: FeeEffect;
  side: "BUY" | "SELL";
  /** The symbol's open-interest skew on the venue at the fill; only its sign is used. */
  skew: number;
}

/** The fee rate of one fill, in parts per million of its notional. */
export function feeRate(input: FeeInput): number {
  if (input.venue === Venue.GMX) {
    const reduces = input.side === "BUY" ? input.skew < 0 : input.skew > 0;
    return reduces ? GMX_POSITION_FEE_PPM.reducesSkew : GMX_POSITION_FEE_PPM.increasesSkew;
  }
  return input.effect === "open" ? OSTIUM_OPENING_FEE_PPM[input.assetClass][input.liquidity] : 0;
}

/** The fee of one fill in money units (rounded half away from zero). */
export function fee(notional: number, input: FeeInput): number {
  return feeAt(notional, feeRate(input));
}
