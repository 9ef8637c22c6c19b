import { describe, expect, it } from "vitest";
import { CATALOGUE, parseCatalogue, type TickerSpec } from "./catalogue.js";
import { isMultipleOf } from "./decimal.js";
import { ASSET_CLASSES, Venue } from "./types.js";

const btc: TickerSpec = {
  symbol: "BTC-USD",
  base: "BTC",
  quote: "USD",
  asset_class: "crypto",
  venues: ["GMX", "OSTIUM"],
  max_leverage: 100,
  tick_size: "0.1",
  quantity_step: "0.0001",
  min_quantity: "0.0001",
  reference_price: "96412.3",
};

describe("the shipped ticker catalogue", () => {
  const tickers = CATALOGUE.rows;

  it("lists at least 20 symbols", () => {
    expect(tickers.length).toBeGreaterThanOrEqual(20);
  });

  it("covers all four asset classes", () => {
    expect(new Set(tickers.map((t) => t.asset_class))).toEqual(new Set(ASSET_CLASSES));
  });

  it("lists at least eight crypto symbols", () => {
    expect(tickers.filter((t) => t.asset_class === "crypto").length).toBeGreaterThanOrEqual(8);
  });

  it("names every symbol <BASE>-USD with quote USD", () => {
    for (const t of tickers) {
      expect(t.symbol).toBe(`${t.base}-USD`);
      expect(t.quote).toBe("USD");
    }
  });

  it("offers GMX on crypto symbols only", () => {
    const onGmx = tickers.filter((t) => t.venues.includes(Venue.GMX));
    expect(onGmx.length).toBeGreaterThan(0);
    expect(onGmx.every((t) => t.asset_class === "crypto")).toBe(true);
  });

  it("offers OSTIUM on every symbol", () => {
    expect(tickers.every((t) => t.venues.includes(Venue.OSTIUM))).toBe(true);
  });

  it("puts every reference price on its tick grid", () => {
    for (const t of tickers) expect(isMultipleOf(t.reference_price, t.tick_size), t.symbol).toBe(true);
  });

  it("makes every minimum quantity a whole number of quantity steps", () => {
    for (const t of tickers) expect(isMultipleOf(t.min_quantity, t.quantity_step), t.symbol).toBe(true);
  });

  it("finds a row by its exact symbol and nothing else", () => {
    expect(CATALOGUE.byKey("BTC-USD")?.base).toBe("BTC");
    expect(CATALOGUE.byKey("btc-usd")).toBeUndefined();
  });
});

describe("catalogue validation", () => {
  it("accepts a valid row", () => {
    expect(parseCatalogue([btc]).rows).toEqual([btc]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["a price off the tick grid", { reference_price: "96412.35" }, "reference_price: must be on the tick grid"],
    ["a zero tick size", { tick_size: "0" }, "tick_size: must be greater than zero"],
    ["a numeric tick size", { tick_size: 0.1 }, "tick_size"],
    ["a negative quantity step", { quantity_step: "-1" }, "quantity_step"],
    ["a minimum quantity off the step grid", { min_quantity: "0.00015" }, "min_quantity"],
    ["GMX on a forex symbol", { asset_class: "forex" }, "GMX does not list forex"],
    ["a symbol that does not match its base", { symbol: "ETH-USD" }, "symbol: must be BTC-USD"],
    ["a quote other than USD", { quote: "EUR" }, "quote"],
    ["an unknown asset class", { asset_class: "bonds" }, "asset_class"],
    ["an unknown venue", { venues: ["HYPERLIQUID"] }, "venues"],
    ["a venue named twice", { venues: ["GMX", "GMX"] }, "venues: must not repeat a venue"],
    ["an unknown field", { name: "Bitcoin" }, "name"],
  ])("rejects %s", (_label, patch, message) => {
    expect(() => parseCatalogue([{ ...btc, ...patch }])).toThrow(message);
  });

  it("rejects a duplicate symbol", () => {
    expect(() => parseCatalogue([btc, btc])).toThrow("duplicate symbol BTC-USD");
  });

  it("lists every problem at once", () => {
    expect(() => parseCatalogue([{ ...btc, tick_size: "0", quantity_step: "x" }])).toThrow(
      /tick_size[\s\S]*quantity_step/,
    );
  });
});
