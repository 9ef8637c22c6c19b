// The reference model's own copy of the rules' data (docs/risk.md, docs/engine.md): the few tickers and
// plans the model trades, the fee schedules, the book depth and the market hours. Written from the docs,
// never imported from engine/ (the driver checks these numbers against the engine's shipped data once).

export type Side = "BUY" | "SELL";
export type Venue = "GMX" | "OSTIUM";
export type AssetClass = "crypto" | "forex" | "indices";

export const MONEY = 100_000_000n;
export const PPM = 1_000_000n;
export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** A decimal grid: values `k × mantissa × 10^-scale`. */
export interface DecimalGrid {
  readonly mantissa: bigint;
  readonly scale: number;
}

export function decimalGrid(text: string): DecimalGrid {
  const [whole = "", fraction = ""] = text.split(".");
  const trimmed = fraction.replace(/0+$/, "");
  return { mantissa: BigInt(whole + trimmed), scale: trimmed.length };
}

/** The exact count of grid steps in a decimal text (throws when off the grid). */
export function countOf(text: string, grid: DecimalGrid): bigint {
  const [whole = "", fraction = ""] = text.split(".");
  if (fraction.replace(/0+$/, "").length > grid.scale) throw new Error(`${text} is off the grid`);
  const scaled = BigInt(whole + fraction.padEnd(grid.scale, "0").slice(0, grid.scale));
  if (scaled % grid.mantissa !== 0n) throw new Error(`${text} is off the grid`);
  return scaled / grid.mantissa;
}

/** `count × grid` as a plain decimal text ("964123" ticks of 0.1 → "96412.3"). */
export function decimalText(count: bigint, grid: DecimalGrid): string {
  return scaledText(count * grid.mantissa, grid.scale);
}

/** A scaled integer as decimal text (12_345_678n, 8 → "0.12345678"). */
export function scaledText(value: bigint, scale: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, "0");
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, "");
  const text = fraction === "" ? whole : `${whole}.${fraction}`;
  return negative ? `-${text}` : text;
}

/** Money units (1e-8 USD) as USD text. */
export function usdText(units: bigint): string {
  return scaledText(units, 8);
}

/** `numerator / denominator` rounded half away from zero. */
export function divRound(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  let q = n / d;
  if ((n % d) * 2n >= d) q += 1n;
  return negative ? -q : q;
}

export interface Ticker {
  readonly symbol: string;
  readonly assetClass: AssetClass;
  readonly venues: readonly Venue[];
  readonly tick: DecimalGrid;
  readonly step: DecimalGrid;
  readonly minSteps: bigint;
  readonly maxLeverage: number;
  readonly referenceTicks: bigint;
  /** Money units of one tick on one step (tick_size × quantity_step × 1e8, a whole number). */
  readonly unitsPerTickStep: bigint;
  /** Steps per book level: 250,000 USD at the reference price, at least one step. */
  readonly depthSteps: bigint;
}

export const BOOK_LEVELS = 5n;
const DEPTH_USD_PER_LEVEL = 250_000n;

function ticker(
  symbol: string,
  assetClass: AssetClass,
  venues: readonly Venue[],
  tickSize: string,
  quantityStep: string,
  minQuantity: string,
  maxLeverage: number,
  referencePrice: string,
): Ticker {
  const tick = decimalGrid(tickSize);
  const step = decimalGrid(quantityStep);
  const exponent = 8 - tick.scale - step.scale;
  const product = tick.mantissa * step.mantissa;
  const unitsPerTickStep = exponent >= 0 ? product * 10n ** BigInt(exponent) : product / 10n ** BigInt(-exponent);
  if (unitsPerTickStep < 1n) throw new Error(`${symbol}: less than one unit per tick-step`);
  const referenceTicks = countOf(referencePrice, tick);
  const depth = divRound(DEPTH_USD_PER_LEVEL * MONEY, referenceTicks * unitsPerTickStep);
  return {
    symbol,
    assetClass,
    venues,
    tick,
    step,
    minSteps: countOf(minQuantity, step),
    maxLeverage,
    referenceTicks,
    unitsPerTickStep,
    depthSteps: depth < 1n ? 1n : depth,
  };
}

/** The symbols the model trades (engine/market/tickers.json as documented). */
export const TICKERS: Readonly<Record<string, Ticker>> = {
  "BTC-USD": ticker("BTC-USD", "crypto", ["GMX", "OSTIUM"], "0.1", "0.0001", "0.0001", 100, "96412.3"),
  "ETH-USD": ticker("ETH-USD", "crypto", ["GMX", "OSTIUM"], "0.01", "0.001", "0.001", 100, "3412.56"),
  "EUR-USD": ticker("EUR-USD", "forex", ["OSTIUM"], "0.00001", "1", "1000", 100, "1.08452"),
  "SPX-USD": ticker("SPX-USD", "indices", ["OSTIUM"], "0.25", "0.01", "0.01", 50, "5962.25"),
};
export const SYMBOLS = Object.keys(TICKERS);

export function tickerOf(symbol: string): Ticker {
  const spec = TICKERS[symbol];
  if (spec === undefined) throw new Error(`the model does not trade ${symbol}`);
  return spec;
}

export interface PlanSpec {
  readonly planId: string;
  readonly startingBalance: number;
  readonly profitTargetPct: number;
  readonly maxDrawdownPct: number;
  readonly drawdownMode: "static" | "trailing";
  readonly dailyLossPct: number;
  readonly maxLeverage: Readonly<Record<AssetClass, number>>;
  readonly maxSymbolNotional: number;
  readonly maxTotalNotional: number;
  readonly newsFreeze: { readonly minutesBefore: number; readonly minutesAfter: number };
  readonly allowedVenues: readonly Venue[];
}

/** The plans the model runs (engine/basics/plans.json as documented). */
export const PLANS = {
  c10k: {
    planId: "48a184ce-7d26-4b3f-82e3-cbf4f08383ba",
    startingBalance: 10_000,
    profitTargetPct: 10,
    maxDrawdownPct: 10,
    drawdownMode: "static",
    dailyLossPct: 5,
    maxLeverage: { crypto: 2, forex: 30, indices: 20 },
    maxSymbolNotional: 25_000,
    maxTotalNotional: 50_000,
    newsFreeze: { minutesBefore: 2, minutesAfter: 2 },
    allowedVenues: ["GMX", "OSTIUM"],
  },
  c50kTrailing: {
    planId: "33aa1931-7dae-48e8-a43d-6edd7cc47131",
    startingBalance: 50_000,
    profitTargetPct: 8,
    maxDrawdownPct: 6,
    drawdownMode: "trailing",
    dailyLossPct: 4,
    maxLeverage: { crypto: 3, forex: 50, indices: 20 },
    maxSymbolNotional: 150_000,
    maxTotalNotional: 300_000,
    newsFreeze: { minutesBefore: 5, minutesAfter: 5 },
    allowedVenues: ["GMX", "OSTIUM"],
  },
  c100kOstium: {
    planId: "c671cd31-b56a-41fe-8d80-41fda892fbca",
    startingBalance: 100_000,
    profitTargetPct: 8,
    maxDrawdownPct: 10,
    drawdownMode: "static",
    dailyLossPct: 5,
    maxLeverage: { crypto: 2, forex: 30, indices: 15 },
    maxSymbolNotional: 250_000,
    maxTotalNotional: 500_000,
    newsFreeze: { minutesBefore: 2, minutesAfter: 2 },
    allowedVenues: ["OSTIUM"],
  },
  c200kTrailing: {
    planId: "15ef9280-770d-4664-9de7-93fcd7677a98",
    startingBalance: 200_000,
    profitTargetPct: 6,
    maxDrawdownPct: 5,
    drawdownMode: "trailing",
    dailyLossPct: 3,
    maxLeverage: { crypto: 2, forex: 20, indices: 10 },
    maxSymbolNotional: 400_000,
    maxTotalNotional: 1_000_000,
    newsFreeze: { minutesBefore: 5, minutesAfter: 5 },
    allowedVenues: ["GMX", "OSTIUM"],
  },
} as const satisfies Record<string, PlanSpec>;

export type Liquidity = "MAKER" | "TAKER";

/** Fee in units for one fill (docs/engine.md, "Fees"): GMX 4/6 bps by skew, OSTIUM opening fee by class. */
export function feeOf(
  notional: bigint,
  venue: Venue,
  assetClass: AssetClass,
  liquidity: Liquidity,
  effect: "open" | "close",
  side: Side,
  skew: number,
): bigint {
  let ppm: bigint;
  if (venue === "GMX") {
    // A BUY moves the skew (long − short) up, a SELL down: towards zero when the skew is on the other side.
    const reduces = side === "BUY" ? skew < 0 : skew > 0;
    ppm = reduces ? 400n : 600n;
  } else if (effect === "close") {
    ppm = 0n;
  } else if (assetClass === "crypto") {
    ppm = liquidity === "TAKER" ? 1000n : 800n;
  } else if (assetClass === "forex") {
    ppm = liquidity === "TAKER" ? 300n : 200n;
  } else {
    ppm = liquidity === "TAKER" ? 500n : 400n;
  }
  return divRound(notional * ppm, PPM);
}

/**
 * Market hours (UTC, the same all year; start inclusive, end exclusive): crypto always; forex Sunday 22:00 to
 * Friday 22:00; indices Sunday 23:00 to Friday 22:00 with a break from 22:00 to 23:00 Monday to Thursday.
 */
export function marketOpen(assetClass: AssetClass, nowMs: number): boolean {
  if (assetClass === "crypto") return true;
  const sinceMidnight = ((nowMs % DAY_MS) + DAY_MS) % DAY_MS;
  const weekday = new Date(nowMs).getUTCDay();
  const offset = weekday * DAY_MS + sinceMidnight;
  if (offset < 22 * HOUR_MS || offset >= 5 * DAY_MS + 22 * HOUR_MS) return false;
  if (assetClass === "forex") return true;
  if (weekday === 0) return sinceMidnight >= 23 * HOUR_MS;
  return sinceMidnight < 22 * HOUR_MS || sinceMidnight >= 23 * HOUR_MS;
}
