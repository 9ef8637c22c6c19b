// The trading vocabulary of the engine's API (docs/openapi.yaml): order sides, order kinds, times in force and
// venues. The engine owns the rules over them; the gateway checks a request's shape against the same lists.
// Const objects with derived union types (no enums).

export const Side = { BUY: "BUY", SELL: "SELL" } as const;
export type Side = (typeof Side)[keyof typeof Side];

export const OrderKind = { MARKET: "MARKET", LIMIT: "LIMIT", STOP: "STOP", TAKE_PROFIT: "TAKE_PROFIT" } as const;
export type OrderKind = (typeof OrderKind)[keyof typeof OrderKind];

export const TimeInForce = { GTC: "GTC", GTD: "GTD", GTX: "GTX", IOC: "IOC", FOK: "FOK" } as const;
export type TimeInForce = (typeof TimeInForce)[keyof typeof TimeInForce];

/** The simulated venues: GMX lists crypto only, OSTIUM lists all four asset classes. */
export const Venue = {
  GMX: "GMX",
  OSTIUM: "OSTIUM",
} as const;
export type Venue = (typeof Venue)[keyof typeof Venue];
export const VENUES: readonly Venue[] = Object.values(Venue);
