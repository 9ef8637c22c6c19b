// Decimal quantities and prices as strings, so nothing a bot sends picks up binary noise: rounding to a
// ticker's `tick_size` or `quantity_step` is done on scaled integers (BigInt), never on floats.

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i;

export type Rounding = "down" | "up" | "nearest";

interface Scaled {
  units: bigint;
  scale: number;
}

function parse(value: string | number): Scaled {
  const text = typeof value === "number" ? numberText(value) : value.trim();
  const match = DECIMAL.exec(text);
  if (match === null) throw new RangeError(`not a decimal: ${JSON.stringify(value)}`);
  const fraction = match[3] ?? "";
  let units = BigInt((match[2] ?? "0") + fraction);
  let scale = fraction.length - Number(match[4] ?? "0");
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { units: match[1] === "-" ? -units : units, scale };
}

/** A number's shortest decimal text (exponent notation is read by `parse`). */
function numberText(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  return String(value);
}

function rescale(value: Scaled, scale: number): bigint {
  return value.units * 10n ** BigInt(scale - value.scale);
}

function format(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, "0");
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction === "" ? "" : `.${fraction}`}`;
}

/** `value` rounded to a multiple of `step` (down toward zero by default), as a decimal string. */
export function roundToStep(value: string | number, step: string | number, rounding: Rounding = "down"): string {
  const v = parse(value);
  const s = parse(step);
  if (s.units <= 0n) throw new RangeError(`step must be positive: ${JSON.stringify(step)}`);
  const scale = Math.max(v.scale, s.scale);
  const units = rescale(v, scale);
  const stepUnits = rescale(s, scale);
  const magnitude = units < 0n ? -units : units;
  let count = magnitude / stepUnits;
  const rest = magnitude % stepUnits;
  if (rest !== 0n && (rounding === "up" || (rounding === "nearest" && rest * 2n >= stepUnits))) count += 1n;
  const rounded = count * stepUnits;
  return format(units < 0n ? -rounded : rounded, scale);
}

/** The decimal text of `value` (a string is checked and normalised, a number written exactly). */
export function toDecimal(value: string | number): string {
  const v = parse(value);
  return format(v.units, v.scale);
}

/** A price rounded to the ticker's `tick_size` (down for a sell's take-profit is up to the caller). */
export function roundPrice(
  ticker: { tick_size: number },
  price: string | number,
  rounding: Rounding = "nearest",
): string {
  return roundToStep(price, ticker.tick_size, rounding);
}

/** A quantity rounded down to the ticker's `quantity_step`; `null` when that is below `min_quantity`. */
export function roundQuantity(
  ticker: { quantity_step: number; min_quantity: number },
  quantity: string | number,
): string | null {
  const rounded = roundToStep(quantity, ticker.quantity_step, "down");
  const min = parse(ticker.min_quantity);
  const r = parse(rounded);
  const scale = Math.max(min.scale, r.scale);
  return rescale(r, scale) < rescale(min, scale) ? null : rounded;
}
