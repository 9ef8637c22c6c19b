// Where the engine's main thread reads the current mark and index price of a symbol (for ListTickers): fed by
// the same updates as the shards, from the price simulator or market.v1 PushPrices.
import type { Catalogue } from "./catalogue.js";
import { gridToNumber, tickerUnits } from "./units.js";

export interface Quote {
  mark: number;
  index: number;
}

export interface PriceSource {
  /** The latest prices, or undefined while the symbol has none (PRICE_FEED=push before the first push). */
  get(symbol: string): Quote | undefined;
}

/** One symbol's new prices in whole ticks (what the simulator publishes and pushes are rounded to). */
export interface TickQuote {
  symbol: string;
  mark: number;
  index: number;
  skew: number;
  /**
   * Epoch ms the prices were set, when older than the update that carries them: a quote restored at a start
   * (docs/engine.md, "Restarts") keeps the time it was set before the stop. Absent: the time of the update.
   */
  at?: number;
}

/** The latest prices as the main thread knows them (for ListTickers), fed by the same updates as the shards. */
export class LivePrices implements PriceSource {
  private readonly quotes = new Map<string, Quote>();
  private readonly listeners = new Set<(symbols: readonly string[]) => void>();

  constructor(private readonly catalogue: Catalogue) {}

  update(ticks: readonly TickQuote[]): void {
    const symbols: string[] = [];
    for (const tick of ticks) {
      const spec = this.catalogue.byKey(tick.symbol);
      if (spec === undefined) continue;
      const grid = tickerUnits(spec).tick;
      this.quotes.set(tick.symbol, { mark: gridToNumber(tick.mark, grid), index: gridToNumber(tick.index, grid) });
      symbols.push(tick.symbol);
    }
    if (symbols.length > 0) for (const listener of this.listeners) listener(symbols);
  }

  /** Calls `listener` with the symbols of every update from now on; returns how to stop. */
  onUpdate(listener: (symbols: readonly string[]) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  get(symbol: string): Quote | undefined {
    return this.quotes.get(symbol);
  }
}
