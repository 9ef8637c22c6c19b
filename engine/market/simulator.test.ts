import { describe, expect, it } from "vitest";
import { CATALOGUE } from "./catalogue.js";
import { mulberry32 } from "../../kernel/random.js";
import { ANNUAL_VOLATILITY, PriceSimulator } from "./simulator.js";
import { tickerUnits } from "./units.js";

const WEDNESDAY_NOON = Date.parse("2026-11-18T12:00:00Z");
const SATURDAY_NOON = Date.parse("2026-11-21T12:00:00Z");

describe("price simulator", () => {
  it("starts every symbol at its reference price", () => {
    const sim = new PriceSimulator(CATALOGUE, 1);
    for (const tick of sim.current()) {
      const spec = CATALOGUE.byKey(tick.symbol);
      if (spec === undefined) throw new Error("unknown symbol");
      expect(tick.index).toBe(tickerUnits(spec).referenceTicks);
      expect(tick.mark).toBe(tick.index);
    }
  });

  it("is deterministic for a seed and differs between seeds", () => {
    const a = new PriceSimulator(CATALOGUE, 42);
    const b = new PriceSimulator(CATALOGUE, 42);
    const c = new PriceSimulator(CATALOGUE, 43);
    const stepsA = [a.step(1000, WEDNESDAY_NOON), a.step(1000, WEDNESDAY_NOON + 1000)];
    const stepsB = [b.step(1000, WEDNESDAY_NOON), b.step(1000, WEDNESDAY_NOON + 1000)];
    expect(stepsA).toEqual(stepsB);
    expect(c.step(1000, WEDNESDAY_NOON)).not.toEqual(stepsA[0]);
  });

  it("publishes whole positive ticks with the mark within 0.05% of the index", () => {
    const sim = new PriceSimulator(CATALOGUE, 7);
    for (let i = 0; i < 500; i++) {
      for (const tick of sim.step(1000, WEDNESDAY_NOON + i * 1000)) {
        expect(Number.isSafeInteger(tick.mark) && tick.mark > 0).toBe(true);
        expect(Number.isSafeInteger(tick.index) && tick.index > 0).toBe(true);
        expect(Math.abs(tick.mark - tick.index)).toBeLessThanOrEqual(Math.ceil(tick.index * 0.0005) + 1);
      }
    }
  });

  it("moves crypto more than forex, as their volatilities say", () => {
    expect(ANNUAL_VOLATILITY.crypto).toBeGreaterThan(ANNUAL_VOLATILITY.forex);
    const sim = new PriceSimulator(CATALOGUE, 11);
    const start = new Map(sim.current().map((t) => [t.symbol, t.index]));
    let last = sim.current();
    for (let i = 0; i < 3600; i++) last = sim.step(1000, WEDNESDAY_NOON + i * 1000);
    const moved = (symbol: string) => {
      const end = last.find((t) => t.symbol === symbol)?.index ?? 0;
      return Math.abs(Math.log(end / (start.get(symbol) ?? 1)));
    };
    // One hour at 60% vs 8% a year: crypto's spread is ~7.5× larger; compare averages over several symbols.
    const crypto = ["BTC-USD", "ETH-USD", "SOL-USD"].map(moved);
    const forex = ["EUR-USD", "GBP-USD", "AUD-USD"].map(moved);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(crypto)).toBeGreaterThan(mean(forex));
  });

  it("does not move markets that are closed (forex on a Saturday) while crypto trades", () => {
    const sim = new PriceSimulator(CATALOGUE, 3);
    const symbols = sim.step(1000, SATURDAY_NOON).map((t) => t.symbol);
    expect(symbols).toContain("BTC-USD");
    expect(symbols).not.toContain("EUR-USD");
  });

  it("draws uniform numbers in [0, 1)", () => {
    const random = mulberry32(9);
    for (let i = 0; i < 10_000; i++) {
      const x = random();
      expect(x >= 0 && x < 1).toBe(true);
    }
  });

  it("continues its walk from restored prices instead of the reference prices", () => {
    const before = new PriceSimulator(CATALOGUE, 5);
    let moved: ReturnType<PriceSimulator["step"]> = [];
    for (let i = 0; i < 50; i++) moved = before.step(60_000, WEDNESDAY_NOON + i * 60_000);
    const kept = moved.map((quote) => ({ ...quote, at: WEDNESDAY_NOON + 49 * 60_000 }));
    const after = new PriceSimulator(CATALOGUE, 5);
    after.restore(kept);
    const current = new Map(after.current().map((quote) => [quote.symbol, quote]));
    for (const quote of kept) expect(current.get(quote.symbol)).toEqual(quote);
    // The next step moves from the restored index, not from the reference price.
    const btc = kept.find((quote) => quote.symbol === "BTC-USD");
    const reference = tickerUnits(CATALOGUE.byKey("BTC-USD") ?? expect.fail("BTC-USD")).referenceTicks;
    expect(btc?.index).not.toBe(reference);
    const next = after.step(1000, WEDNESDAY_NOON + 50 * 60_000).find((quote) => quote.symbol === "BTC-USD");
    expect(Math.abs((next?.index ?? 0) - (btc?.index ?? 0))).toBeLessThan(Math.abs(reference - (btc?.index ?? 0)));
    expect(next?.at).toBeUndefined();
  });
});
