// Where the engine reads the current mark and index price of a symbol. The static source answers the
// catalogue's reference prices; the price simulator and market.v1 PushPrices replace it later.
import type { Catalogue } from "./catalogue.js";

export interface Quote {
  mark: number;
  index: number;
}

export interface PriceSource {
  /** The latest prices, or undefined while the symbol has none (PRICE_FEED=push before the first push). */
  get(symbol: string): Quote | undefined;
}

/** Every catalogue symbol priced at its reference price, index equal to mark. */
export function staticPriceSource(catalogue: Catalogue): PriceSource {
  const quotes = new Map<string, Quote>(
    catalogue.tickers.map((ticker) => {
      const price = Number(ticker.reference_price);
      return [ticker.symbol, Object.freeze({ mark: price, index: price })];
    }),
  );
  return { get: (symbol) => quotes.get(symbol) };
}
