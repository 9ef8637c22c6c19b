// What a market.v1 push may hold: known symbols, once each, positive prices rounded to the tick and at most
// PRICE_CEILING_FACTOR × the reference price; every problem with its path, and nothing of a refused push.
import { describe, expect, it } from "vitest";
import { CATALOGUE } from "./catalogue.js";
import { PRICE_CEILING_FACTOR, parsePushedPrices } from "./pushed-prices.js";

const BTC_REFERENCE = Number(CATALOGUE.byKey("BTC-USD")?.reference_price);
const price = (symbol: string, mark: number, index = mark) => ({ symbol, mark_price: mark, index_price: index });

describe("parsePushedPrices", () => {
  it("reads each price as a quote in whole ticks of its ticker (BTC-USD: 0.1), the symbol normalised, no skew", () => {
    expect(parsePushedPrices([price("btcusd", 50_000.04, 50_000.16)], CATALOGUE)).toEqual({
      ok: [{ symbol: "BTC-USD", mark: 500_000, index: 500_002, skew: 0 }],
    });
  });

  it("refuses an unknown symbol and a symbol pushed twice, naming the entry", () => {
    expect(parsePushedPrices([price("NOPE-USD", 1), price("BTC-USD", 1), price("btc-usd", 2)], CATALOGUE)).toEqual({
      issues: [
        { path: "prices.0.symbol", message: "unknown symbol" },
        { path: "prices.2.symbol", message: "appears twice: send successive prices as successive pushes" },
      ],
    });
  });

  it("refuses prices that are not positive (or round to zero) and prices above the ceiling", () => {
    const ceiling = BTC_REFERENCE * PRICE_CEILING_FACTOR;
    expect(parsePushedPrices([price("BTC-USD", Number.NaN, 0.01)], CATALOGUE)).toEqual({
      issues: [
        { path: "prices.0.mark_price", message: "must be a positive price" },
        { path: "prices.0.index_price", message: "must be a positive price" },
      ],
    });
    expect(parsePushedPrices([price("BTC-USD", ceiling + 1, 50_000)], CATALOGUE)).toEqual({
      issues: [{ path: "prices.0.mark_price", message: `must be at most ${String(ceiling)}` }],
    });
    expect(parsePushedPrices([price("BTC-USD", ceiling)], CATALOGUE)).toMatchObject({ ok: [{ mark: ceiling * 10 }] });
  });
});
