import { describe, expect, it } from "vitest";
import { canonicalSymbol, spelledSymbol } from "./symbols.js";

describe("spelledSymbol", () => {
  it.each([
    ["BTC-USD", "BTC-USD"],
    ["btcusd", "BTC-USD"],
    ["BTC/USD", "BTC-USD"],
    ["btc-usd", "BTC-USD"],
    ["btc_usd", "BTC-USD"],
    [" Eth/Usd\n", "ETH-USD"],
    ["FOO-USD", "FOO-USD"],
  ])("spells %j as %s", (input, expected) => {
    expect(spelledSymbol(input)).toBe(expected);
  });

  it.each([
    ["", "an empty string"],
    ["btc", "a bare base"],
    ["USD", "the quote alone"],
    ["-USD", "a missing base"],
    ["BTC-EUR", "another quote"],
    ["BTCUSDT", "a stablecoin quote"],
    ["BTC--USD", "a doubled separator"],
    ["BTC USD", "an inner space"],
    ["BTC-USD-PERP", "a suffix"],
  ])("refuses %j (%s)", (input) => {
    expect(spelledSymbol(input)).toBeUndefined();
  });
});

describe("canonicalSymbol", () => {
  const listed = new Set(["BTC-USD", "ETH-USD"]);
  const isListed = (symbol: string): boolean => listed.has(symbol);

  it("answers the listed symbol every spelling names", () => {
    for (const input of ["BTC-USD", "btcusd", "BTC/USD", "btc-usd", "btc_usd"]) {
      expect(canonicalSymbol(input, isListed), input).toBe("BTC-USD");
    }
  });

  it("refuses a well-spelled symbol that is not listed, and a bare base that is", () => {
    expect(canonicalSymbol("sol-usd", isListed)).toBeUndefined();
    expect(canonicalSymbol("btc", isListed)).toBeUndefined();
  });

  it("asks the predicate only about the canonical form", () => {
    const asked: string[] = [];
    canonicalSymbol("eth/usd", (symbol) => {
      asked.push(symbol);
      return true;
    });
    canonicalSymbol("eth", (symbol) => {
      asked.push(symbol);
      return true;
    });
    expect(asked).toEqual(["ETH-USD"]);
  });
});
