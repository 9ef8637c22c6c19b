import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BOOK_LEVELS,
  consume,
  createMarketView,
  DEPTH_USD_PER_LEVEL,
  depthStepsFor,
  fillableSteps,
  isQuoteOpen,
  levelRemaining,
  markAtReset,
  setPrices,
  setQuote,
  sideRemaining,
  takerFills,
} from "./book.js";
import { CATALOGUE } from "./catalogue.js";
import { notionalOf, tickerUnits, usdToUnits } from "./units.js";

const WEDNESDAY = Date.parse("2026-11-25T12:00:00.000Z");
const SATURDAY = Date.parse("2026-11-28T12:00:00.000Z");

function btcQuote(depth = 10) {
  const view = createMarketView();
  return { view, quote: setQuote(view, "BTC-USD", { mark: 1_000_000, index: 999_990, depth }) };
}

describe("depth per level", () => {
  it("offers five levels per side", () => {
    expect(BOOK_LEVELS).toBe(5);
  });

  it.each<[string, number]>([
    ["BTC-USD", 25_930],
    ["EUR-USD", 230_517],
    ["SPX-USD", 4_193],
  ])("gives %s %i steps per level", (symbol, steps) => {
    const spec = CATALOGUE.byKey(symbol);
    expect(spec && depthStepsFor(spec)).toBe(steps);
  });

  it.each(CATALOGUE.rows.map((t) => [t.symbol, t] as const))(
    "sizes a level of %s at about 250,000 USD of its reference price",
    (_symbol, spec) => {
      const units = tickerUnits(spec);
      const steps = depthStepsFor(spec);
      const perStep = notionalOf(units.referenceTicks, 1, units.unitsPerTickStep);
      const target = usdToUnits(DEPTH_USD_PER_LEVEL);
      expect(steps).toBeGreaterThanOrEqual(1);
      expect(Math.abs(steps * perStep - target)).toBeLessThanOrEqual(perStep / 2);
    },
  );
});

describe("taker fills", () => {
  it("walks up from the mark for a buy, one tick per level", () => {
    const { quote } = btcQuote();
    expect(takerFills(quote, "BUY", 25, null, 0)).toEqual([
      { price: 1_000_000, steps: 10 },
      { price: 1_000_001, steps: 10 },
      { price: 1_000_002, steps: 5 },
    ]);
  });

  it("walks down from the mark for a sell", () => {
    const { quote } = btcQuote();
    expect(takerFills(quote, "SELL", 12, null, 0)).toEqual([
      { price: 1_000_000, steps: 10 },
      { price: 999_999, steps: 2 },
    ]);
  });

  it("starts where earlier takers stopped", () => {
    const { quote } = btcQuote();
    expect(takerFills(quote, "BUY", 10, null, 15)).toEqual([
      { price: 1_000_001, steps: 5 },
      { price: 1_000_002, steps: 5 },
    ]);
  });

  it("never fills at a price worse than the cap", () => {
    const { quote } = btcQuote();
    expect(takerFills(quote, "BUY", 100, 1_000_001, 0)).toEqual([
      { price: 1_000_000, steps: 10 },
      { price: 1_000_001, steps: 10 },
    ]);
    expect(takerFills(quote, "SELL", 100, 1_000_001, 0)).toEqual([]);
  });

  it("fills only the book's depth, so a large order fills partially", () => {
    const { quote } = btcQuote();
    const fills = takerFills(quote, "SELL", 1_000, null, 0);
    expect(fills).toHaveLength(BOOK_LEVELS);
    expect(fills.reduce((sum, f) => sum + f.steps, 0)).toBe(50);
    expect(fills.at(-1)?.price).toBe(999_996);
  });

  it("does not mutate the quote", () => {
    const { quote } = btcQuote();
    const before = { ...quote };
    takerFills(quote, "BUY", 30, null, 0);
    expect(quote).toEqual(before);
  });

  it("agrees with fillableSteps for any taken depth, cap and size", () => {
    const { quote } = btcQuote(7);
    fc.assert(
      fc.property(
        fc.constantFrom("BUY" as const, "SELL" as const),
        fc.integer({ min: 1, max: 60 }),
        fc.option(fc.integer({ min: 999_994, max: 1_000_006 }), { nil: null }),
        fc.integer({ min: 0, max: 40 }),
        (side, want, cap, taken) => {
          const filled = takerFills(quote, side, want, cap, taken).reduce((sum, f) => sum + f.steps, 0);
          expect(filled).toBe(Math.min(want, fillableSteps(quote, side, cap, taken)));
          expect(filled).toBeLessThanOrEqual(sideRemaining(quote, taken));
        },
      ),
    );
  });

  it("reports what is left per level", () => {
    const { quote } = btcQuote();
    expect([0, 1, 2, 5].map((level) => levelRemaining(quote, level, 15))).toEqual([0, 5, 10, 0]);
  });
});

describe("consumption by the shell", () => {
  it("removes depth a journaled fill took", () => {
    const { view, quote } = btcQuote();
    consume(view, "BTC-USD", "BUY", 12, quote.version);
    expect(quote.takenBuy).toBe(12);
    expect(quote.takenSell).toBe(0);
    expect(takerFills(quote, "BUY", 3, null, quote.takenBuy)).toEqual([{ price: 1_000_001, steps: 3 }]);
  });

  it("ignores a fill taken from an older book", () => {
    const { view, quote } = btcQuote();
    const old = quote.version;
    setQuote(view, "BTC-USD", { mark: 1_000_100, index: 1_000_100, depth: 10 });
    consume(view, "BTC-USD", "SELL", 5, old);
    expect(quote.takenSell).toBe(0);
  });

  it("renews the depth and the version on every update", () => {
    const { view, quote } = btcQuote();
    consume(view, "BTC-USD", "SELL", 5, quote.version);
    const version = quote.version;
    setQuote(view, "BTC-USD", { mark: 1_000_100, index: 1_000_050 });
    expect(quote.version).toBe(version + 1);
    expect(quote.takenSell).toBe(0);
    expect(quote.depth).toBe(25_930);
  });
});

describe("pushed prices", () => {
  it("round JSON numbers to the nearest tick, half away from zero", () => {
    const view = createMarketView();
    const quote = setPrices(view, "BTC-USD", { mark_price: 96412.35, index_price: 96412.34 });
    expect(quote?.mark).toBe(964_124);
    expect(quote?.index).toBe(964_123);
  });

  it("refuse a price that rounds to zero or an unknown symbol", () => {
    const view = createMarketView();
    expect(setPrices(view, "BTC-USD", { mark_price: 0.04, index_price: 1 })).toBeUndefined();
    expect(setPrices(view, "FOO-USD", { mark_price: 1, index_price: 1 })).toBeUndefined();
    expect(view.quotes.size).toBe(0);
  });
});

describe("market hours on a quote", () => {
  it("keeps crypto open on a Saturday and closes forex", () => {
    const view = createMarketView();
    const btc = setQuote(view, "BTC-USD", { mark: 1, index: 1 });
    const eur = setQuote(view, "EUR-USD", { mark: 108_452, index: 108_452 });
    expect(isQuoteOpen(btc, SATURDAY)).toBe(true);
    expect(isQuoteOpen(eur, SATURDAY)).toBe(false);
    expect(isQuoteOpen(eur, WEDNESDAY)).toBe(true);
  });

  it("honours a halt set by the shell", () => {
    const view = createMarketView();
    expect(isQuoteOpen(setQuote(view, "BTC-USD", { mark: 1, index: 1, open: false }), WEDNESDAY)).toBe(false);
  });
});

describe("the marks in force at the daily reset", () => {
  const MIDNIGHT = Date.parse("2026-11-26T00:00:00.000Z");

  it("keeps the mark an update after midnight replaced, through later updates of that day", () => {
    const view = createMarketView();
    setQuote(view, "BTC-USD", { mark: 1_000_000, index: 1_000_000, at: MIDNIGHT - 1_000 });
    const quote = setQuote(view, "BTC-USD", { mark: 1_000_100, index: 1_000_100, at: MIDNIGHT - 500 });
    expect(markAtReset(quote, MIDNIGHT)).toBe(1_000_100);
    setQuote(view, "BTC-USD", { mark: 940_000, index: 940_000, at: MIDNIGHT + 1_000 });
    setQuote(view, "BTC-USD", { mark: 930_000, index: 930_000, at: MIDNIGHT + 2_000 });
    expect(markAtReset(quote, MIDNIGHT)).toBe(1_000_100);
    // An update at the reset instant is the new day's.
    setQuote(view, "BTC-USD", { mark: 920_000, index: 920_000, at: MIDNIGHT + 86_400_000 });
    expect(markAtReset(quote, MIDNIGHT + 86_400_000)).toBe(930_000);
  });

  it("takes a quote without a time as older than any reset", () => {
    const { quote } = btcQuote();
    expect(markAtReset(quote, MIDNIGHT)).toBe(1_000_000);
  });
});
