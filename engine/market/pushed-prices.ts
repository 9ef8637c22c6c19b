// market.v1 PushPrices read into quotes (docs/decisions.md, "Pushed prices"): every symbol known and at most
// once per push, each price rounded to its ticker's tick, positive and at most PRICE_CEILING_FACTOR × the
// ticker's reference price. Every problem is reported with its path, and a push with any problem is refused
// whole.
import type { Issue } from "../../kernel/errors.js";
import type { Catalogue } from "./catalogue.js";
import type { TickQuote } from "./prices.js";
import { normalizeSymbol } from "./symbols.js";
import { roundToGrid, tickerUnits, type Grid } from "./units.js";

/** A pushed price may be at most this many times the ticker's reference price. */
export const PRICE_CEILING_FACTOR = 1_000;

export interface PushedPrice {
  symbol: string;
  mark_price: number;
  index_price: number;
}

/** The quotes of a push, or every problem it has. */
export type ParsedPush = { ok: TickQuote[] } | { issues: Issue[] };

export function parsePushedPrices(prices: readonly PushedPrice[], catalogue: Catalogue): ParsedPush {
  const issues: Issue[] = [];
  const quotes: TickQuote[] = [];
  const seen = new Set<string>();
  prices.forEach((price, i) => {
    const symbol = normalizeSymbol(price.symbol, catalogue);
    const spec = symbol === undefined ? undefined : catalogue.byKey(symbol);
    if (symbol === undefined || spec === undefined) {
      issues.push({ path: `prices.${i}.symbol`, message: "unknown symbol" });
      return;
    }
    // One price per symbol per push: a push is one market update, decided at its prices. Successive prices of
    // one symbol (each with its triggers and fills) are successive pushes.
    if (seen.has(symbol)) {
      issues.push({
        path: `prices.${i}.symbol`,
        message: "appears twice: send successive prices as successive pushes",
      });
      return;
    }
    seen.add(symbol);
    const tick = tickerUnits(spec).tick;
    // Far above any price the symbol could trade at: a position's notional at such a price would leave the
    // engine's exact integer range.
    const ceiling = Number(spec.reference_price) * PRICE_CEILING_FACTOR;
    const mark = pricePart(price.mark_price, tick, ceiling, `prices.${i}.mark_price`, issues);
    const index = pricePart(price.index_price, tick, ceiling, `prices.${i}.index_price`, issues);
    if (mark !== undefined && index !== undefined) quotes.push({ symbol, mark, index, skew: 0 });
  });
  return issues.length > 0 ? { issues } : { ok: quotes };
}

/** One price of a push on its tick grid; undefined (and an issue) when not positive. */
function pricePart(raw: number, tick: Grid, ceiling: number, path: string, issues: Issue[]): number | undefined {
  const price = Number.isFinite(raw) ? roundToGrid(raw, tick) : undefined;
  if (price === undefined || price <= 0) {
    issues.push({ path, message: "must be a positive price" });
    return undefined;
  }
  if (raw > ceiling) issues.push({ path, message: `must be at most ${String(ceiling)}` });
  return price;
}
