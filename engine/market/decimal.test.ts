import { describe, expect, it } from "vitest";
import { isDecimalString, isMultipleOf, isPositiveDecimal } from "./decimal.js";

describe("decimal strings", () => {
  it.each([
    ["0", true],
    ["12", true],
    ["0.015", true],
    ["-1", false],
    ["1e3", false],
    [".5", false],
    ["01", false],
    [" 1", false],
    ["1.", false],
  ])("treats %j as a decimal string: %s", (value, expected) => {
    expect(isDecimalString(value)).toBe(expected);
  });

  it.each([
    ["0", false],
    ["0.000", false],
    ["0.001", true],
  ])("treats %j as positive: %s", (value, expected) => {
    expect(isPositiveDecimal(value)).toBe(expected);
  });

  it.each([
    ["0.3", "0.1", true],
    ["96412.3", "0.1", true],
    ["96412.35", "0.1", false],
    ["5962.25", "0.25", true],
    ["5962.20", "0.25", false],
    ["4.1235", "0.0005", true],
    ["100", "10", true],
    ["105", "10", false],
  ])("says %s is a multiple of %s: %s", (value, step, expected) => {
    expect(isMultipleOf(value, step)).toBe(expected);
  });
});
