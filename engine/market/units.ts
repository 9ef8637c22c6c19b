// Fixed point for the engine (docs/engine.md, "Numbers"): prices are integer ticks of the ticker's tick_size,
// quantities integer steps of its quantity_step, money integer units of 1e-8 USD. Request decimals are read
// exactly from their text, ratios are rounded once (half away from zero), and values become JSON numbers
// only at the edge. Everything stays in safe integers; the rare product that would not uses BigInt.
import type { Catalogue, TickerSpec } from "./catalogue.js";

/** Units of money per USD: balances, fees, P&L, margin and notional are integers of 1e-8 USD. */
export const MONEY_SCALE = 100_000_000;
const MONEY_DECIMALS = 8;

/** Fee and rate denominators: a rate of 600 ppm is 0.06% (6 bps). */
export const PPM = 1_000_000;

const POW10: readonly number[] = Array.from({ length: 23 }, (_, i) => 10 ** i);

function pow10(exponent: number): number {
  const value = POW10[exponent];
  if (value === undefined) throw new RangeError(`10^${exponent} is out of range`);
  return value;
}

/** A grid of decimal values `k × mantissa × 10^-scale` (k integer): "0.25" is mantissa 25, scale 2. */
export interface Grid {
  readonly mantissa: number;
  readonly scale: number;
}

const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;
const POSITIVE_DECIMAL_TEXT = /^(\d+)(?:\.(\d+))?$/;

/** The grid of a positive decimal string such as a tick size; throws on anything else. */
export function gridOf(step: string): Grid {
  const match = POSITIVE_DECIMAL_TEXT.exec(step);
  if (match === null) throw new RangeError(`not a decimal step: ${JSON.stringify(step)}`);
  const fraction = (match[2] ?? "").replace(/0+$/, "");
  const mantissa = Number((match[1] ?? "") + fraction);
  if (!Number.isSafeInteger(mantissa) || mantissa <= 0) throw new RangeError(`not a positive step: ${step}`);
  return { mantissa, scale: fraction.length };
}

/** A request decimal: a JSON number or a decimal string such as "0.015". */
export type DecimalInput = number | string;

/**
 * The exact decimal text of a request value, or undefined when it is not one. A JSON number arrives as the
 * nearest double; its shortest round-trip string (`String(n)`) is the decimal the client wrote, so that is
 * what is parsed. Exponent forms (`1e-7`) are expanded; strings must be plain decimals.
 */
export function decimalText(input: unknown): string | undefined {
  if (typeof input === "string") return DECIMAL_TEXT.test(input) ? input : undefined;
  if (typeof input !== "number" || !Number.isFinite(input)) return undefined;
  const text = String(input);
  return text.includes("e") ? expandExponent(text) : text;
}

function expandExponent(text: string): string {
  const [mantissaText = "", exponentText = "0"] = text.split("e");
  const negative = mantissaText.startsWith("-");
  const [whole = "", fraction = ""] = (negative ? mantissaText.slice(1) : mantissaText).split(".");
  const digits = whole + fraction;
  const point = whole.length + Number(exponentText);
  let plain: string;
  if (point <= 0) plain = `0.${"0".repeat(-point)}${digits}`;
  else if (point >= digits.length) plain = digits + "0".repeat(point - digits.length);
  else plain = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${plain}` : plain;
}

/** Why a decimal could not be put on a grid. */
export type GridProblem = "not_a_decimal" | "off_grid" | "too_large";

/** A whole number of grid steps, or the problem (values may be zero or negative; callers check the sign). */
export type GridCount =
  { readonly ok: true; readonly count: number } | { readonly ok: false; readonly problem: GridProblem };

/** The exact number of `grid` steps in `input`; off-grid values are refused, never rounded. */
export function toGridCount(input: unknown, grid: Grid): GridCount {
  const text = decimalText(input);
  if (text === undefined) return { ok: false, problem: "not_a_decimal" };
  const negative = text.charCodeAt(0) === 45; // "-"
  const start = negative ? 1 : 0;
  const dot = text.indexOf(".");
  const wholeEnd = dot < 0 ? text.length : dot;
  let fractionEnd = text.length;
  if (dot >= 0) while (fractionEnd > dot + 1 && text.charCodeAt(fractionEnd - 1) === 48) fractionEnd--;
  const fractionLength = dot < 0 ? 0 : fractionEnd - dot - 1;
  if (fractionLength > grid.scale) return { ok: false, problem: "off_grid" };
  let wholeStart = start;
  while (wholeStart < wholeEnd && text.charCodeAt(wholeStart) === 48) wholeStart++;
  if (wholeEnd - wholeStart + grid.scale > 16) return { ok: false, problem: "too_large" };
  const whole = digitsValue(text, wholeStart, wholeEnd);
  const fraction = fractionLength > 0 ? digitsValue(text, dot + 1, fractionEnd) : 0;
  const scaled = whole * pow10(grid.scale) + fraction * pow10(grid.scale - fractionLength);
  if (!Number.isSafeInteger(scaled)) return { ok: false, problem: "too_large" };
  if (scaled % grid.mantissa !== 0) return { ok: false, problem: "off_grid" };
  const count = scaled / grid.mantissa;
  return { ok: true, count: negative && count !== 0 ? -count : count };
}

/**
 * The value of the decimal digits `text[start, end)` (at most 16 of them: callers bound it), read in place
 * instead of `Number(text.slice(...))`: no substring per amount. Exact below 2^53; a longer run of digits
 * lands at or above 2^53 either way, which the caller's safe-integer check refuses.
 */
function digitsValue(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) value = value * 10 + (text.charCodeAt(i) - 48);
  return value;
}

/**
 * The nearest number of grid steps to `input` (half away from zero), for pushed prices that may carry
 * float noise; undefined when the input is not a decimal or the result is not a safe integer.
 */
export function roundToGrid(input: unknown, grid: Grid): number | undefined {
  const text = decimalText(input);
  if (text === undefined) return undefined;
  const negative = text.startsWith("-");
  const body = negative ? text.slice(1) : text;
  const [whole = "", fraction = ""] = body.split(".");
  const scale = Math.max(fraction.length, grid.scale);
  const value = BigInt(whole + fraction.padEnd(scale, "0"));
  const step = BigInt(grid.mantissa) * 10n ** BigInt(scale - grid.scale);
  const rounded = bigDivRound(negative ? -value : value, step);
  if (rounded > BigInt(Number.MAX_SAFE_INTEGER) || rounded < -BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return Number(rounded);
}

/**
 * `count × grid` as a JSON number. `count × mantissa` is an exact integer and `10^scale` an exact double,
 * so the one IEEE division is correctly rounded: the same double as `Number(toDecimalString(...))`, without
 * building the string (units.test.ts holds the two equal).
 */
export function gridToNumber(count: number, grid: Grid): number {
  const scaled = count * grid.mantissa;
  if (!Number.isSafeInteger(scaled)) return Number(toDecimalString(count, grid));
  return grid.scale === 0 ? scaled : scaled / pow10(grid.scale);
}

/** `count × grid` as an exact decimal string ("964123" ticks of 0.1 → "96412.3"). */
export function toDecimalString(count: number, grid: Grid): string {
  return scaledToString(BigInt(count) * BigInt(grid.mantissa), grid.scale);
}

function scaledToString(value: bigint, scale: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString();
  if (scale === 0) return negative ? `-${digits}` : digits;
  const padded = digits.padStart(scale + 1, "0");
  const whole = padded.slice(0, padded.length - scale);
  const fraction = padded.slice(padded.length - scale).replace(/0+$/, "");
  const text = fraction === "" ? whole : `${whole}.${fraction}`;
  return negative && text !== "0" ? `-${text}` : text;
}

const MONEY_GRID: Grid = { mantissa: 1, scale: MONEY_DECIMALS };

/** Money units as a JSON number (12_345_678 → 0.12345678). */
export function unitsToNumber(units: number): number {
  return gridToNumber(units, MONEY_GRID);
}

/** Money units as an exact decimal string. */
export function unitsToDecimalString(units: number): string {
  return toDecimalString(units, MONEY_GRID);
}

/** Whole USD (plan amounts) as money units. */
export function usdToUnits(usd: number): number {
  return mulSafe(usd, MONEY_SCALE);
}

/** The product of two safe integers; throws when it leaves the safe range (an engine fault, never rounded). */
export function mulSafe(a: number, b: number): number {
  const product = a * b;
  if (!Number.isSafeInteger(product)) throw new RangeError(`${a} × ${b} is outside the safe integer range`);
  return product;
}

/** The sum of safe integers; throws when it leaves the safe range. */
export function addSafe(a: number, b: number): number {
  const sum = a + b;
  if (!Number.isSafeInteger(sum)) throw new RangeError(`${a} + ${b} is outside the safe integer range`);
  return sum;
}

/** `numerator / denominator` rounded half away from zero, in BigInt (denominator ≠ 0). */
export function bigDivRound(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  let quotient = n / d;
  if ((n % d) * 2n >= d) quotient += 1n;
  return negative ? -quotient : quotient;
}

/** `numerator / denominator` rounded half away from zero (both safe integers, denominator ≠ 0). */
export function divRound(numerator: number, denominator: number): number {
  if (denominator === 0) throw new RangeError("division by zero");
  const remainder = numerator % denominator;
  let quotient = (numerator - remainder) / denominator;
  if (2 * Math.abs(remainder) >= Math.abs(denominator)) {
    quotient += numerator < 0 !== denominator < 0 ? -1 : 1;
  }
  return quotient === 0 ? 0 : quotient;
}

/** `a × b / denominator` rounded half away from zero; BigInt for the one product when it is not safe. */
export function mulDivRound(a: number, b: number, denominator: number): number {
  const product = a * b;
  if (Number.isSafeInteger(product)) return divRound(product, denominator);
  const result = bigDivRound(BigInt(a) * BigInt(b), BigInt(denominator));
  if (result > BigInt(Number.MAX_SAFE_INTEGER) || result < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`${a} × ${b} / ${denominator} is outside the safe integer range`);
  }
  return Number(result);
}

/** The fee on a notional at a rate in parts per million, rounded half away from zero. */
export function feeAt(notional: number, ratePpm: number): number {
  return mulDivRound(notional, ratePpm, PPM);
}

/** Leverage as an integer ratio: 2 → 2/1, 2.5 → 5/2 (plans may one day hold fractional leverage). */
function leverageRatio(leverage: number): readonly [number, number] {
  if (Number.isInteger(leverage)) return [leverage, 1];
  return [Math.round(leverage * PPM), PPM];
}

/** Initial margin of a notional at a leverage: `notional / leverage`, rounded half away from zero. */
export function marginFor(notional: number, leverage: number): number {
  if (!(leverage > 0)) throw new RangeError(`leverage must be positive, got ${leverage}`);
  // The ratio of `leverageRatio` without its tuple: margin is computed for every order and fill.
  if (Number.isInteger(leverage)) return mulDivRound(notional, 1, leverage);
  return mulDivRound(notional, PPM, Math.round(leverage * PPM));
}

/**
 * Liquidation price in ticks, on the grid: long `entry × (1 − 1/L)`, short `entry × (1 + 1/L)`, where entry
 * is `costBasis / (steps × unitsPerTickStep)` ticks. Computed as one BigInt ratio so nothing rounds twice.
 */
export function liquidationTicks(
  costBasis: number,
  steps: number,
  unitsPerTickStep: number,
  leverage: number,
  long: boolean,
): number {
  const [num, den] = leverageRatio(leverage);
  const factor = long ? BigInt(num - den) : BigInt(num + den);
  const result = bigDivRound(BigInt(costBasis) * factor, BigInt(steps) * BigInt(unitsPerTickStep) * BigInt(num));
  return Number(result);
}

/** The notional in money units of `ticks` × `steps`: exact, or a RangeError (never a rounded float). */
export function notionalOf(ticks: number, steps: number, unitsPerTickStep: number): number {
  return mulSafe(mulSafe(ticks, steps), unitsPerTickStep);
}

/** A ticker's grids and the units one tick × one step is worth (validated: an integer ≥ 1). */
export interface TickerUnits {
  readonly symbol: string;
  readonly tick: Grid;
  readonly step: Grid;
  /** `tick_size × quantity_step × MONEY_SCALE`: the money units of one tick on one step. */
  readonly unitsPerTickStep: number;
  readonly minSteps: number;
  readonly referenceTicks: number;
}

const UNITS_CACHE = new WeakMap<TickerSpec, TickerUnits>();

/** The fixed-point view of a ticker; throws when its sizes do not give whole money units per tick-step. */
export function tickerUnits(spec: TickerSpec): TickerUnits {
  const cached = UNITS_CACHE.get(spec);
  if (cached !== undefined) return cached;
  const tick = gridOf(spec.tick_size);
  const step = gridOf(spec.quantity_step);
  const exponent = MONEY_DECIMALS - tick.scale - step.scale;
  const product = BigInt(tick.mantissa) * BigInt(step.mantissa);
  const scaledUp = exponent >= 0 ? product * 10n ** BigInt(exponent) : product;
  const divisor = exponent >= 0 ? 1n : 10n ** BigInt(-exponent);
  if (scaledUp % divisor !== 0n || scaledUp / divisor < 1n || scaledUp / divisor > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`${spec.symbol}: tick_size × quantity_step × ${MONEY_SCALE} is not a whole number ≥ 1`);
  }
  const minimum = toGridCount(spec.min_quantity, step);
  const reference = toGridCount(spec.reference_price, tick);
  if (!minimum.ok || !reference.ok) throw new RangeError(`${spec.symbol}: sizes off their grid`);
  const units: TickerUnits = Object.freeze({
    symbol: spec.symbol,
    tick,
    step,
    unitsPerTickStep: Number(scaledUp / divisor),
    minSteps: minimum.count,
    referenceTicks: reference.count,
  });
  UNITS_CACHE.set(spec, units);
  return units;
}

/**
 * An average price in ticks of a notional over a quantity, as a JSON number with four more decimals than
 * the tick grid (averages fall between ticks).
 */
export function averagePrice(notional: number, steps: number, units: TickerUnits): number {
  const averageTicks = mulDivRound(notional, pow10(AVERAGE_EXTRA_DIGITS), mulSafe(steps, units.unitsPerTickStep));
  return averageToNumber(averageTicks, units);
}

/** Average prices carry this many digits past the tick. */
const AVERAGE_EXTRA_DIGITS = 4;

/** An average price counted in ticks × 10^AVERAGE_EXTRA_DIGITS, as a JSON number. */
function averageToNumber(averageTicks: number, units: TickerUnits): number {
  return gridToNumber(averageTicks, {
    mantissa: units.tick.mantissa,
    scale: units.tick.scale + AVERAGE_EXTRA_DIGITS,
  });
}

/**
 * `averagePrice` of a lifetime total (a history row's Σ entry or exit notional), which may be past the safe
 * integer range: the same rounding, in BigInt, back to a number (an average price always fits).
 */
export function averagePriceOfTotal(notional: bigint, steps: number, units: TickerUnits): number {
  const averageTicks = bigDivRound(
    notional * BigInt(pow10(AVERAGE_EXTRA_DIGITS)),
    BigInt(steps) * BigInt(units.unitsPerTickStep),
  );
  return averageToNumber(Number(averageTicks), units);
}

/** The fixed-point view of a listed symbol; throws for a symbol the catalogue does not list (a core bug). */
export function unitsFor(catalogue: Catalogue, symbol: string): TickerUnits {
  const spec = catalogue.byKey(symbol);
  if (spec === undefined) throw new RangeError(`unknown symbol ${symbol}`);
  return tickerUnits(spec);
}
