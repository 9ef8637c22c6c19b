import { describe, expect, it } from "vitest";
import { figureTable, formatRatio, formatValue, spread, table } from "./bench-report.js";

describe("spread", () => {
  it("gives median, min, max and quartiles", () => {
    expect(spread([5, 1, 3, 2, 4])).toEqual({ n: 5, median: 3, min: 1, max: 5, q1: 1.5, q3: 4.5 });
    expect(spread([4, 1, 3, 2])).toEqual({ n: 4, median: 2.5, min: 1, max: 4, q1: 1.5, q3: 3.5 });
  });

  it("uses min and max as quartiles below four values", () => {
    expect(spread([2, 9, 4])).toEqual({ n: 3, median: 4, min: 2, max: 9, q1: 2, q3: 9 });
  });

  it("leaves out what is not a number, and is NaN when nothing is left", () => {
    expect(spread([NaN, 7, Infinity]).median).toBe(7);
    expect(spread([]).n).toBe(0);
    expect(spread([]).median).toBeNaN();
  });
});

describe("formatting", () => {
  it("rounds large figures with separators and keeps three significant digits of small ones", () => {
    expect(formatValue(51248.4)).toBe("51,248");
    expect(formatValue(100)).toBe("100");
    expect(formatValue(25.24)).toBe("25.2");
    expect(formatValue(0.11249)).toBe("0.112");
    expect(formatValue(0)).toBe("0");
    expect(formatValue(NaN)).toBe("-");
    expect(formatRatio(0.6612)).toBe("0.66");
    expect(formatRatio(undefined)).toBe("-");
  });

  it("pads a markdown table to its widest cells", () => {
    expect(
      table([
        ["a", "bb"],
        [123, "c"],
      ]),
    ).toBe("| a   | bb |\n| --- | -- |\n| 123 | c  |");
    expect(table([])).toBe("");
  });
});

describe("figureTable", () => {
  it("writes median, spread, ratios and whether the target is met", () => {
    const text = figureTable([
      { figure: "ceiling", unit: "req/s", values: [2600, 2700, 2800], toCeiling: 1, toBare: 0.0527 },
      { figure: "get", unit: "req/s", values: [2000], toCeiling: 0.74, toCeilingPerRound: [0.7, 0.81, 0.6] },
      { figure: "p99", unit: "ms", values: [30, 25, 40], target: { text: "≤ 20", ok: false } },
      { figure: "ratio", unit: "×", values: [1.07], target: { text: "≤ 1.3", ok: true } },
    ]);
    const lines = text.split("\n");
    expect(lines).toHaveLength(6);
    expect(lines[2]).toMatch(/^\| ceiling +\| req\/s \| 2,700 +\| 2,600–2,800 \(3\) +\| 1\.00 +\| 0\.05 +\| +\| +\|$/);
    expect(lines[3]).toContain("| 0.74 (0.60–0.81) ");
    expect(lines[4]).toContain("| 30 ");
    expect(lines[4]).toContain("25–40 (3)");
    expect(lines[4]).toContain("**missed**");
    expect(lines[5]).toContain("| met ");
  });
});
