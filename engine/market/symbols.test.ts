import { describe, expect, it } from "vitest";
import { normalizeSymbol } from "./symbols.js";

describe("normalizeSymbol", () => {
  it.each([
    ["BTC-USD", "BTC-USD"],
    ["btcusd", "BTC-USD"],
    ["BTC/USD", "BTC-USD"],
    ["btc-usd", "BTC-USD"],
    ["BTC_USD", "BTC-USD"],
    [" BTC-USD ", "BTC-USD"],
    ["eur/usd", "EUR-USD"],
    ["XAUUSD", "XAU-USD"],
    ["Brent_Usd", "BRENT-USD"],
    ["spx-usd", "SPX-USD"],
    ["\tngusd\n", "NG-USD"],
  ])("turns %j into %s", (input, expected) => {
    expect(normalizeSymbol(input)).toBe(expected);
  });

  it.each([
    ["", "an empty string"],
    ["USD", "the quote alone"],
    ["-USD", "a missing base"],
    ["BTC", "a missing quote"],
    ["BTC-EUR", "another quote"],
    ["BTCUSDT", "a stablecoin quote"],
    ["BTC--USD", "a doubled separator"],
    ["BTC USD", "an inner space"],
    ["FOO-USD", "a symbol the catalogue does not list"],
    ["BTC-USD-PERP", "a suffix"],
  ])("refuses %j (%s)", (input) => {
    expect(normalizeSymbol(input)).toBeUndefined();
  });
});
