import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CATALOGUE, type TickerSpec } from "./catalogue.js";
import {
  averagePrice,
  decimalText,
  divRound,
  feeAt,
  gridOf,
  gridToNumber,
  liquidationTicks,
  marginFor,
  MONEY_SCALE,
  mulDivRound,
  notionalOf,
  roundToGrid,
  tickerUnits,
  toDecimalString,
  toGridCount,
  unitsToNumber,
  usdToUnits,
  type Grid,
} from "./units.js";

const btc = CATALOGUE.byKey("BTC-USD");
if (btc === undefined) throw new Error("BTC-USD missing from the catalogue");

function bigDivRoundReference(n: bigint, d: bigint): bigint {
  const negative = n < 0n !== d < 0n;
  const absN = n < 0n ? -n : n;
  const absD = d < 0n ? -d : d;
  const q = (absN * 2n + absD) / (absD * 2n);
  return negative ? -q : q;
}

describe("the fixed-point grid", () => {
  it.each<[string, Grid]>([
    ["0.1", { mantissa: 1, scale: 1 }],
    ["0.25", { mantissa: 25, scale: 2 }],
    ["0.0005", { mantissa: 5, scale: 4 }],
    ["1", { mantissa: 1, scale: 0 }],
    ["10", { mantissa: 10, scale: 0 }],
    ["0.0100", { mantissa: 1, scale: 2 }],
  ])("reads the step %s as %j", (step, grid) => {
    expect(gridOf(step)).toEqual(grid);
  });

  it.each(["0", "-1", "1e-3", "abc", ""])("refuses %j as a step", (step) => {
    expect(() => gridOf(step)).toThrow(RangeError);
  });

  it("uses 1e8 money units per USD", () => {
    expect(MONEY_SCALE).toBe(100_000_000);
    expect(usdToUnits(10_000)).toBe(1_000_000_000_000);
  });
});

describe("decimalText", () => {
  it.each<[unknown, string | undefined]>([
    ["0.015", "0.015"],
    ["-12.50", "-12.50"],
    [0.015, "0.015"],
    [96412.3, "96412.3"],
    [1e-7, "0.0000001"],
    [1.5e-7, "0.00000015"],
    [-2e-7, "-0.0000002"],
    [1e21, "1000000000000000000000"],
    [1.25e22, "12500000000000000000000"],
    ["1e-3", undefined],
    [" 1", undefined],
    ["+1", undefined],
    ["1.", undefined],
    [".5", undefined],
    ["", undefined],
    ["0x10", undefined],
    [Number.NaN, undefined],
    [Number.POSITIVE_INFINITY, undefined],
    [true, undefined],
    [null, undefined],
    [{}, undefined],
  ])("reads %j as %j", (input, expected) => {
    expect(decimalText(input)).toBe(expected);
  });
});

describe("toGridCount", () => {
  const tick = (step: string): Grid => gridOf(step);
  it.each<[unknown, string, number]>([
    ["0.015", "0.001", 15],
    ["0.0150", "0.001", 15],
    [0.015, "0.001", 15],
    ["96412.3", "0.1", 964123],
    [96412.3, "0.1", 964123],
    ["0.25", "0.25", 1],
    ["5962.25", "0.25", 23849],
    ["-1.5", "0.5", -3],
    ["0", "0.1", 0],
    ["000.30", "0.1", 3],
    [1e-7, "0.0000001", 1],
    [0.006689, "0.0000001", 66890],
    ["100", "10", 10],
    ["9007199254740991", "1", 9007199254740991],
  ])("puts %j on the %s grid as %i steps", (input, step, count) => {
    expect(toGridCount(input, tick(step))).toEqual({ ok: true, count });
  });

  it.each<[unknown, string, string]>([
    [0.1 + 0.2, "0.1", "off_grid"],
    ["0.125", "0.25", "off_grid"],
    ["0.15", "0.1", "off_grid"],
    ["105", "10", "off_grid"],
    [1e21, "1", "too_large"],
    ["9007199254740993", "1", "too_large"],
    ["12345678901234567", "0.1", "too_large"],
    ["abc", "0.1", "not_a_decimal"],
    ["1e-3", "0.001", "not_a_decimal"],
    [false, "1", "not_a_decimal"],
  ])("refuses %j on the %s grid as %s", (input, step, problem) => {
    expect(toGridCount(input, tick(step))).toEqual({ ok: false, problem });
  });

  it("reads long digit runs as Number() would: exact when safe, too large otherwise", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9]{1,17}(\.[0-9]{1,8})?$/),
        fc.constantFrom("1", "0.01", "0.00000001"),
        (text, step) => {
          const grid = gridOf(step);
          const [whole = "", fraction = ""] = text.split(".");
          const digits = fraction.replace(/0+$/, "");
          const scaled =
            Number(whole) * 10 ** grid.scale +
            (digits === "" ? 0 : Number(digits) * 10 ** (grid.scale - digits.length));
          const result = toGridCount(text, grid);
          if (digits.length > grid.scale) expect(result).toEqual({ ok: false, problem: "off_grid" });
          else if (whole.replace(/^0+/, "").length + grid.scale > 16 || !Number.isSafeInteger(scaled)) {
            expect(result).toEqual({ ok: false, problem: "too_large" });
          } else expect(result).toEqual({ ok: true, count: scaled / grid.mantissa });
        },
      ),
    );
  });

  it("reads every multiple of a step back exactly, as a string or as a JSON number", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e12, max: 1e12 }),
        fc.constantFrom("0.1", "0.25", "0.0005", "0.00001", "0.0000001", "1", "10"),
        (count, step) => {
          const grid = gridOf(step);
          const text = toDecimalString(count, grid);
          expect(toGridCount(text, grid)).toEqual({ ok: true, count });
          expect(toGridCount(gridToNumber(count, grid), grid)).toEqual({ ok: true, count });
        },
      ),
    );
  });
});

describe("roundToGrid", () => {
  it.each<[unknown, string, number | undefined]>([
    [96412.34, "0.1", 964123],
    [96412.35, "0.1", 964124],
    [0.1 + 0.2, "0.1", 3],
    [-0.25, "0.5", -1],
    [0.75, "0.5", 2],
    ["5962.374", "0.25", 23849],
    ["5962.375", "0.25", 23850],
    ["x", "0.1", undefined],
    [1e30, "0.1", undefined],
  ])("rounds %j to the %s grid half away from zero: %j", (input, step, expected) => {
    expect(roundToGrid(input, gridOf(step))).toBe(expected);
  });
});

describe("conversion to JSON numbers", () => {
  it.each<[number, string, string, number]>([
    [964123, "0.1", "96412.3", 96412.3],
    [3, "0.1", "0.3", 0.3],
    [23849, "0.25", "5962.25", 5962.25],
    [-7, "0.1", "-0.7", -0.7],
    [66890, "0.0000001", "0.006689", 0.006689],
    [0, "0.01", "0", 0],
  ])("writes %i steps of %s as %s", (count, step, text, number) => {
    const grid = gridOf(step);
    expect(toDecimalString(count, grid)).toBe(text);
    expect(gridToNumber(count, grid)).toBe(number);
  });

  it("gives the same double as parsing the exact decimal string", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 1, max: 99 }),
        fc.integer({ min: 0, max: 12 }),
        (count, mantissa, scale) => {
          const grid = { mantissa, scale };
          expect(gridToNumber(count, grid)).toBe(Number(toDecimalString(count, grid)));
        },
      ),
    );
  });

  it("writes money units as USD with eight decimals at most", () => {
    expect(unitsToNumber(12_345_678)).toBe(0.12345678);
    expect(unitsToNumber(-1)).toBe(-0.00000001);
    expect(unitsToNumber(1_000_060_000_000)).toBe(10000.6);
  });
});

describe("rounding of ratios", () => {
  it.each<[number, number, number]>([
    [5, 2, 3],
    [-5, 2, -3],
    [4, 3, 1],
    [-4, 3, -1],
    [7, -2, -4],
    [1, 3, 0],
    [-1, 3, 0],
    [0, 5, 0],
  ])("rounds %i / %i half away from zero to %i", (n, d, q) => {
    expect(divRound(n, d)).toBe(q);
  });

  it("agrees with an exact BigInt reference, also where the product needs BigInt", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
        fc.integer({ min: 1, max: 2 ** 30 }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        (a, b, d) => {
          const exact = bigDivRoundReference(BigInt(a) * BigInt(b), BigInt(d));
          if (exact > BigInt(Number.MAX_SAFE_INTEGER) || exact < -BigInt(Number.MAX_SAFE_INTEGER)) {
            expect(() => mulDivRound(a, b, d)).toThrow(RangeError);
          } else {
            expect(mulDivRound(a, b, d)).toBe(Number(exact));
          }
        },
      ),
    );
  });

  it.each<[number, number, number]>([
    [100_000_000_000, 600, 60_000_000],
    [834, 600, 1],
    [833, 600, 0],
    [2_500, 200, 1],
    [2_499, 200, 0],
  ])("charges a fee on %i units at %i ppm of %i units", (notional, ppm, fee) => {
    expect(feeAt(notional, ppm)).toBe(fee);
  });

  it.each<[number, number, number]>([
    [1_001, 2, 501],
    [1_000, 3, 333],
    [1_000, 2.5, 400],
    [5, 2, 3],
  ])("locks margin of %i units at leverage %d as %i units", (notional, leverage, margin) => {
    expect(marginFor(notional, leverage)).toBe(margin);
  });

  it("refuses a leverage that is not positive", () => {
    expect(() => marginFor(100, 0)).toThrow(RangeError);
  });

  it.each<[string, boolean, number, number]>([
    ["a long at 2x", true, 2, 500_000],
    ["a short at 2x", false, 2, 1_500_000],
    ["a long at 3x", true, 3, 666_667],
    ["a short at 3x", false, 3, 1_333_333],
    ["a long at 100x", true, 100, 990_000],
  ])("puts the liquidation price of %s on the tick grid", (_label, long, leverage, ticks) => {
    // 1 BTC (10,000 steps) entered at 100000.0 (1,000,000 ticks): cost basis 1e13 units.
    expect(liquidationTicks(10_000_000_000_000, 10_000, 1_000, leverage, long)).toBe(ticks);
  });

  it("computes notional exactly and refuses a product outside the safe range", () => {
    expect(notionalOf(964_123, 100, 1_000)).toBe(96_412_300_000);
    expect(() => notionalOf(2 ** 40, 2 ** 20, 1_000)).toThrow(RangeError);
  });
});

describe("tickerUnits", () => {
  it.each(CATALOGUE.rows.map((t) => [t.symbol, t] as const))(
    "gives %s a whole number ≥ 1 of money units per tick-step",
    (_symbol, spec) => {
      const units = tickerUnits(spec);
      expect(Number.isSafeInteger(units.unitsPerTickStep)).toBe(true);
      expect(units.unitsPerTickStep).toBeGreaterThanOrEqual(1);
      expect(units.minSteps).toBeGreaterThanOrEqual(1);
      expect(gridToNumber(units.referenceTicks, units.tick)).toBe(Number(spec.reference_price));
      expect(gridToNumber(units.minSteps, units.step)).toBe(Number(spec.min_quantity));
    },
  );

  it.each<[string, number]>([
    ["BTC-USD", 1_000],
    ["JPY-USD", 10],
    ["HG-USD", 50_000],
    ["SPX-USD", 250_000],
    ["NG-USD", 1_000_000],
  ])("values one tick on one step of %s at %i units", (symbol, expected) => {
    const spec = CATALOGUE.byKey(symbol);
    expect(spec && tickerUnits(spec).unitsPerTickStep).toBe(expected);
  });

  it("refuses a ticker whose tick on one step is worth less than one unit", () => {
    const tiny: TickerSpec = { ...btc, tick_size: "0.0000001", quantity_step: "0.0001", reference_price: "1" };
    expect(() => tickerUnits(tiny)).toThrow(/not a whole number/);
  });

  it("writes an average price with four decimals beyond the tick", () => {
    const units = tickerUnits(btc);
    // 1 step at 100000.0 and 2 steps at 100000.1: 300000.2 / 3 = 100000.0666…
    const notional = notionalOf(1_000_000, 1, 1_000) + notionalOf(1_000_001, 2, 1_000);
    expect(averagePrice(notional, 3, units)).toBe(100000.06667);
  });
});
