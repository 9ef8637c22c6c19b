import { describe, expect, it } from "vitest";
import type { AssetClass } from "../market/types.js";
import { fee, feeRate, type FeeEffect, type FeeInput, type Liquidity } from "./fees.js";

const gmx = (side: "BUY" | "SELL", skew: number, effect: FeeEffect = "open"): FeeInput => ({
  venue: "GMX",
  assetClass: "crypto",
  liquidity: "TAKER",
  effect,
  side,
  skew,
});

describe("GMX position fee", () => {
  it.each<[string, FeeInput, number]>([
    ["a buy against a short skew reduces it", gmx("BUY", -5), 400],
    ["a buy with a long skew increases it", gmx("BUY", 5), 600],
    ["a buy with no skew increases it", gmx("BUY", 0), 600],
    ["a sell against a long skew reduces it", gmx("SELL", 5), 400],
    ["a sell with a short skew increases it", gmx("SELL", -5), 600],
    ["a sell with no skew increases it", gmx("SELL", 0), 600],
    ["a closing sell against a long skew reduces it", gmx("SELL", 5, "close"), 400],
    ["a closing buy with a long skew increases it", gmx("BUY", 5, "close"), 600],
    ["a maker fill pays the same", { ...gmx("BUY", -1), liquidity: "MAKER" }, 400],
  ])("charges %s: %i ppm", (_label, input, ppm) => {
    expect(feeRate(input)).toBe(ppm);
  });
});

describe("OSTIUM opening fee", () => {
  it.each<[AssetClass, Liquidity, number]>([
    ["crypto", "TAKER", 1000],
    ["crypto", "MAKER", 800],
    ["forex", "TAKER", 300],
    ["forex", "MAKER", 200],
    ["commodities", "TAKER", 500],
    ["commodities", "MAKER", 400],
    ["indices", "TAKER", 500],
    ["indices", "MAKER", 400],
  ])("charges %s %s fills %i ppm on open and nothing on close", (assetClass, liquidity, ppm) => {
    const input: FeeInput = { venue: "OSTIUM", assetClass, liquidity, effect: "open", side: "BUY", skew: 7 };
    expect(feeRate(input)).toBe(ppm);
    expect(feeRate({ ...input, effect: "close" })).toBe(0);
  });
});

describe("fee in money units", () => {
  it.each<[string, number, FeeInput, number]>([
    ["1,000 USD on GMX at 6 bps", 100_000_000_000, gmx("BUY", 0), 60_000_000],
    ["1,010 USD on GMX at 6 bps", 101_000_000_000, gmx("SELL", 0), 60_600_000],
    ["1,000 USD on GMX at 4 bps", 100_000_000_000, gmx("SELL", 1), 40_000_000],
    [
      "10,845.20 USD of EUR on OSTIUM as taker",
      1_084_520_000_000,
      { venue: "OSTIUM", assetClass: "forex", liquidity: "TAKER", effect: "open", side: "SELL", skew: 0 },
      325_356_000,
    ],
    ["0.0000834 USD on GMX rounds half away from zero", 8_340, gmx("BUY", 0), 5],
  ])("charges %s", (_label, notional, input, units) => {
    expect(fee(notional, input)).toBe(units);
  });
});
