import { describe, expect, it } from "vitest";
import { roundPrice, roundQuantity, roundToStep, toDecimal } from "./decimal.js";

describe("decimal helpers", () => {
  it.each([
    ["0.30000000000000004", "0.01", "down", "0.3"],
    [0.1 + 0.2, "0.1", "nearest", "0.3"],
    ["95000.37", 0.5, "down", "95000"],
    ["95000.37", 0.5, "up", "95000.5"],
    ["95000.25", 0.5, "nearest", "95000.5"],
    ["-1.27", "0.1", "down", "-1.2"],
    ["1e-7", "0.0001", "up", "0.0001"],
    ["0.015", "0.001", "down", "0.015"],
  ] as const)("rounds %s to a multiple of %s (%s) as %s", (value, step, rounding, expected) => {
    expect(roundToStep(value, step, rounding)).toBe(expected);
  });

  it("writes numbers as exact decimal strings and refuses what is not a decimal", () => {
    expect(toDecimal(1e-7)).toBe("0.0000001");
    expect(toDecimal("007.500")).toBe("7.5");
    expect(() => toDecimal("1,5")).toThrow(RangeError);
    expect(() => roundToStep("1", "0")).toThrow(RangeError);
  });

  it("rounds to a ticker's grid and refuses a quantity below its minimum", () => {
    const ticker = { tick_size: 0.1, quantity_step: 0.001, min_quantity: 0.001 };
    expect(roundPrice(ticker, 50_000.06)).toBe("50000.1");
    expect(roundQuantity(ticker, "0.0159")).toBe("0.015");
    expect(roundQuantity(ticker, "0.0009")).toBeNull();
  });
});
