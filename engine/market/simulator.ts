// The built-in price feed (PRICE_FEED=simulator): a seeded random walk per symbol, deterministic for a seed,
// with a volatility per asset class, a mark price near the index (a small basis that mean-reverts) and a
// venue open-interest skew that wanders. Prices are whole ticks; closed markets do not move.
import type { Catalogue, TickerSpec } from "./catalogue.js";
import { isMarketOpen } from "../../kernel/market-hours.js";
import type { TickQuote } from "./prices.js";
import type { AssetClass } from "./types.js";
import { tickerUnits } from "./units.js";
import { mulberry32 } from "../../kernel/random.js";

/** One symbol's new prices, in ticks of its tick size; skew in USD (long minus short open interest). */
export type PriceTick = TickQuote;

/** Annualised volatility by asset class (a realistic order of magnitude, not a forecast). */
export const ANNUAL_VOLATILITY: Readonly<Record<AssetClass, number>> = {
  crypto: 0.6,
  forex: 0.08,
  commodities: 0.25,
  indices: 0.18,
};

const YEAR_MS = 365 * 24 * 3600 * 1000;
/** Largest basis between mark and index, as a fraction of the index. */
const MAX_BASIS = 0.0005;

/** A standard normal draw (Box–Muller) from a uniform source. */
function gaussian(random: () => number): number {
  const u = Math.max(random(), Number.EPSILON);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

interface Walk {
  spec: TickerSpec;
  /** The index as a real number of ticks (rounded when published). */
  index: number;
  basis: number;
  skew: number;
  /** The quote the walk was restored to, published as it was kept until the walk's next step. */
  restored: TickQuote | undefined;
}

export class PriceSimulator {
  private readonly random: () => number;
  private readonly walks: Walk[];

  constructor(catalogue: Catalogue, seed: number) {
    this.random = mulberry32(seed);
    this.walks = catalogue.rows.map((spec) => ({
      spec,
      index: tickerUnits(spec).referenceTicks,
      basis: 0,
      skew: 0,
      restored: undefined,
    }));
  }

  /**
   * Continues the walks from kept prices (a restart, docs/engine.md "Restarts"): each listed symbol's index,
   * basis and skew are those of its kept quote, and `current` answers that quote exactly (with its time) until
   * the walk's next step. Symbols not listed stay where they are.
   */
  restore(kept: readonly TickQuote[]): void {
    const bySymbol = new Map(kept.map((quote) => [quote.symbol, quote]));
    for (const walk of this.walks) {
      const quote = bySymbol.get(walk.spec.symbol);
      if (quote === undefined) continue;
      walk.index = quote.index;
      walk.basis = Math.max(-MAX_BASIS, Math.min(MAX_BASIS, quote.mark / quote.index - 1));
      walk.skew = quote.skew;
      walk.restored = { ...quote };
    }
  }

  /** The prices before any step: every symbol at its reference price, or at its restored quote. */
  current(): PriceTick[] {
    return this.walks.map((walk) => (walk.restored === undefined ? this.publish(walk) : { ...walk.restored }));
  }

  /** Advances every open market by `elapsedMs` and returns the new prices of the symbols that moved. */
  step(elapsedMs: number, nowMs: number): PriceTick[] {
    const out: PriceTick[] = [];
    for (const walk of this.walks) {
      if (!isMarketOpen(walk.spec.asset_class, nowMs)) continue;
      const sigma = ANNUAL_VOLATILITY[walk.spec.asset_class] * Math.sqrt(elapsedMs / YEAR_MS);
      walk.index = Math.max(1, walk.index * Math.exp(sigma * gaussian(this.random) - (sigma * sigma) / 2));
      walk.basis = Math.max(
        -MAX_BASIS,
        Math.min(MAX_BASIS, walk.basis * 0.9 + MAX_BASIS * 0.3 * gaussian(this.random)),
      );
      walk.skew = walk.skew * 0.98 + 50_000 * gaussian(this.random);
      walk.restored = undefined;
      out.push(this.publish(walk));
    }
    return out;
  }

  private publish(walk: Walk): PriceTick {
    const index = Math.max(1, Math.round(walk.index));
    const mark = Math.max(1, Math.round(walk.index * (1 + walk.basis)));
    return { symbol: walk.spec.symbol, mark, index, skew: Math.round(walk.skew) };
  }
}
