// Exact checks on decimal strings (tick sizes, steps, prices) so catalogue validation never meets float
// error: "0.3" is a multiple of "0.1" here, although 0.3 % 0.1 !== 0 in floating point.

const DECIMAL = /^(0|[1-9]\d*)(\.\d+)?$/;

/** True for a non-negative plain decimal string such as "0", "12" or "0.015" (no sign, exponent or spaces). */
export function isDecimalString(value: string): boolean {
  return DECIMAL.test(value);
}

interface Scaled {
  units: bigint;
  scale: number;
}

function scaled(value: string): Scaled {
  if (!isDecimalString(value)) throw new RangeError(`not a decimal string: ${JSON.stringify(value)}`);
  const [whole = "0", fraction = ""] = value.split(".");
  return { units: BigInt(whole + fraction), scale: fraction.length };
}

function atScale(value: Scaled, scale: number): bigint {
  return value.units * 10n ** BigInt(scale - value.scale);
}

/** True when the decimal string is greater than zero. */
export function isPositiveDecimal(value: string): boolean {
  return isDecimalString(value) && scaled(value).units > 0n;
}

/** True when `value` is an exact integer multiple of `step` (both decimal strings, step > 0). */
export function isMultipleOf(value: string, step: string): boolean {
  const v = scaled(value);
  const s = scaled(step);
  if (s.units === 0n) throw new RangeError("step must be positive");
  const scale = Math.max(v.scale, s.scale);
  return atScale(v, scale) % atScale(s, scale) === 0n;
}
