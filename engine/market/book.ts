// The simulated book a shard trades against (docs/engine.md, "Execution"). On each price update every symbol
// offers, per side, BOOK_LEVELS levels of `depth` steps: buys fill at mark, mark + 1 tick, …; sells at mark,
// mark − 1 tick, …. Depth taken is gone until the symbol's next update, so a large order fills partially.
//
// Depth per level is a per-ticker number: DEPTH_USD_PER_LEVEL (250,000 USD) at the ticker's reference
// price, in whole quantity steps (at least one). So every symbol offers about 1.25M USD per side per update.
//
// Consumption: `decide` never mutates the view. Each fill event carries the symbol, side, steps and the
// quote `version` it was taken from; the shell applies them with `consume` after journaling the decision
// (a fill from an older version than the quote's current one is ignored: that depth was already renewed).
// Inside one decide, the core adds its own fills to `taken` so later fills see the rest of the book.
import { DAY_MS } from "../../kernel/time.js";
import { CATALOGUE, type Catalogue, type TickerSpec } from "./catalogue.js";
import { isMarketOpen } from "../../kernel/market-hours.js";
import { divRound, mulSafe, roundToGrid, tickerUnits, type TickerUnits } from "./units.js";

export const BOOK_LEVELS = 5;
export const DEPTH_USD_PER_LEVEL = 250_000;

/** The side of an order: BUY walks the book up from the mark, SELL down. */
export type BookSide = "BUY" | "SELL";

/** What one symbol looks like to `decide`: prices in ticks, depth in steps. Mutated only by the shell. */
export interface SymbolQuote {
  readonly spec: TickerSpec;
  readonly units: TickerUnits;
  mark: number;
  index: number;
  /** The venue's open-interest skew (long minus short notional); only its sign matters for GMX fees. */
  skew: number;
  /** False while the shell halts the symbol; market hours are checked on top (see `isQuoteOpen`). */
  open: boolean;
  /** Steps per level at this update. */
  depth: number;
  /** Bumped on every update; fills carry it so `consume` ignores depth taken from an older book. */
  version: number;
  /** Steps already taken on each side since this update. */
  takenBuy: number;
  takenSell: number;
  /** Epoch ms of this update (0 when the shell gave no time: the quote is then taken as older than any reset). */
  at: number;
  /** The mark in force at the last daily reset (00:00Z) at or before `at`; the first mark of a quote born after it. */
  resetMark: number;
  /** The first daily reset after `at`. */
  nextReset: number;
}

/** A shard's view of the market: the catalogue and the latest quote of every priced symbol. */
export interface MarketView {
  readonly catalogue: Catalogue;
  readonly quotes: Map<string, SymbolQuote>;
}

/** Depth per level for a ticker: DEPTH_USD_PER_LEVEL at its reference price, in whole steps (≥ 1). */
export function depthStepsFor(spec: TickerSpec): number {
  const units = tickerUnits(spec);
  const usd = mulSafe(DEPTH_USD_PER_LEVEL, 100_000_000);
  return Math.max(1, divRound(usd, mulSafe(units.referenceTicks, units.unitsPerTickStep)));
}

/** An empty view (no prices yet). Validates the fixed-point sizes of every ticker on the way. */
export function createMarketView(catalogue: Catalogue = CATALOGUE): MarketView {
  for (const spec of catalogue.rows) tickerUnits(spec);
  return { catalogue, quotes: new Map() };
}

export interface QuoteUpdate {
  mark: number;
  index: number;
  skew?: number;
  open?: boolean;
  /** Steps per level; defaults to `depthStepsFor(spec)`. */
  depth?: number;
  /** Epoch ms of the update (the shell's clock); without it the quote never crosses a daily reset. */
  at?: number;
}

/** The first 00:00Z after `ms`. */
function nextUtcMidnight(ms: number): number {
  return ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS) + DAY_MS;
}

/**
 * The mark that was in force at the daily reset `reset` (00:00Z, at or before the quote's update): the current
 * mark when it was set before the reset, else the mark it replaced (docs/risk.md, "Daily reset").
 */
export function markAtReset(quote: SymbolQuote, reset: number): number {
  return quote.at < reset ? quote.mark : quote.resetMark;
}

/** Applies a price update (ticks) to one symbol: new prices, fresh depth, a new version. */
export function setQuote(view: MarketView, symbol: string, update: QuoteUpdate): SymbolQuote {
  const spec = view.catalogue.byKey(symbol);
  if (spec === undefined) throw new RangeError(`unknown symbol ${symbol}`);
  if (
    !Number.isSafeInteger(update.mark) ||
    update.mark <= 0 ||
    !Number.isSafeInteger(update.index) ||
    update.index <= 0
  ) {
    throw new RangeError(`${symbol}: prices must be positive whole ticks`);
  }
  const depth = update.depth ?? depthStepsFor(spec);
  if (!Number.isSafeInteger(depth) || depth < 1) throw new RangeError(`${symbol}: depth must be ≥ 1 step`);
  const at = update.at ?? 0;
  const existing = view.quotes.get(symbol);
  if (existing !== undefined) {
    if (at >= existing.nextReset) {
      // The mark being replaced was set before the reset this update comes after: it was in force then.
      existing.resetMark = existing.mark;
      existing.nextReset = nextUtcMidnight(at);
    }
    existing.at = at;
    existing.mark = update.mark;
    existing.index = update.index;
    existing.skew = update.skew ?? 0;
    existing.open = update.open ?? true;
    existing.depth = depth;
    existing.version += 1;
    existing.takenBuy = 0;
    existing.takenSell = 0;
    return existing;
  }
  const quote: SymbolQuote = {
    spec,
    units: tickerUnits(spec),
    mark: update.mark,
    index: update.index,
    skew: update.skew ?? 0,
    open: update.open ?? true,
    depth,
    version: 1,
    takenBuy: 0,
    takenSell: 0,
    at,
    resetMark: update.mark,
    nextReset: nextUtcMidnight(at),
  };
  view.quotes.set(symbol, quote);
  return quote;
}

/** Whether the symbol trades now: not halted, and inside its market hours. */
export function isQuoteOpen(quote: SymbolQuote, nowMs: number): boolean {
  return quote.open && isMarketOpen(quote.spec.asset_class, nowMs);
}

/** Steps taken so far on one side of a quote. */
export function takenOn(quote: SymbolQuote, side: BookSide): number {
  return side === "BUY" ? quote.takenBuy : quote.takenSell;
}

/** The price in ticks of a level (0-based) for a side; 0 or less means the level does not exist. */
export function levelPrice(quote: SymbolQuote, side: BookSide, level: number): number {
  return side === "BUY" ? quote.mark + level : quote.mark - level;
}

/** Steps left at one level, given `taken` steps already consumed on that side. */
export function levelRemaining(quote: SymbolQuote, level: number, taken: number): number {
  if (level < 0 || level >= BOOK_LEVELS) return 0;
  return Math.min(quote.depth, Math.max(0, quote.depth * (level + 1) - taken));
}

/** Steps left on a side over all levels. */
export function sideRemaining(quote: SymbolQuote, taken: number): number {
  return Math.max(0, quote.depth * BOOK_LEVELS - taken);
}

function withinCap(side: BookSide, price: number, cap: number | null): boolean {
  if (price <= 0) return false;
  if (cap === null) return true;
  return side === "BUY" ? price <= cap : price >= cap;
}

/** Steps a taker could fill now, never at a price worse than `cap` (null: no cap). */
export function fillableSteps(quote: SymbolQuote, side: BookSide, cap: number | null, taken: number): number {
  let total = 0;
  for (let level = Math.floor(taken / quote.depth); level < BOOK_LEVELS; level++) {
    if (!withinCap(side, levelPrice(quote, side, level), cap)) break;
    total += levelRemaining(quote, level, taken);
  }
  return total;
}

/** One level's share of a taker fill. */
export interface BookFill {
  readonly price: number;
  readonly steps: number;
}

/** The taker fills of `want` steps walking the levels (best first), capped at `cap`; mutates nothing. */
export function takerFills(
  quote: SymbolQuote,
  side: BookSide,
  want: number,
  cap: number | null,
  taken: number,
): BookFill[] {
  const fills: BookFill[] = [];
  let left = want;
  let consumed = taken;
  for (let level = Math.floor(consumed / quote.depth); left > 0 && level < BOOK_LEVELS; level++) {
    const price = levelPrice(quote, side, level);
    if (!withinCap(side, price, cap)) break;
    const steps = Math.min(left, levelRemaining(quote, level, consumed));
    if (steps <= 0) continue;
    fills.push({ price, steps });
    left -= steps;
    consumed += steps;
  }
  return fills;
}

/**
 * Removes depth taken by a journaled fill. Ignored when the fill was taken from an older version of the
 * quote (the book has been renewed since) or the symbol is unknown.
 */
export function consume(view: MarketView, symbol: string, side: BookSide, steps: number, version: number): void {
  const quote = view.quotes.get(symbol);
  if (quote?.version !== version) return;
  if (side === "BUY") quote.takenBuy += steps;
  else quote.takenSell += steps;
}

/** Gives back steps `consume` took from the quote of this version (a dropped batch); never below zero. */
export function release(view: MarketView, symbol: string, side: BookSide, steps: number, version: number): void {
  const quote = view.quotes.get(symbol);
  if (quote?.version !== version) return;
  if (side === "BUY") quote.takenBuy = Math.max(0, quote.takenBuy - steps);
  else quote.takenSell = Math.max(0, quote.takenSell - steps);
}

/**
 * Applies pushed JSON-number prices (market.v1 PushPrices): each is rounded to the nearest tick, half away
 * from zero. Returns undefined (and changes nothing) when a price is not positive after rounding.
 */
export function setPrices(
  view: MarketView,
  symbol: string,
  prices: { mark_price: number; index_price: number; skew?: number },
): SymbolQuote | undefined {
  const spec = view.catalogue.byKey(symbol);
  if (spec === undefined) return undefined;
  const tick = tickerUnits(spec).tick;
  const mark = roundToGrid(prices.mark_price, tick);
  const index = roundToGrid(prices.index_price, tick);
  if (mark === undefined || index === undefined || mark <= 0 || index <= 0) return undefined;
  return setQuote(view, symbol, { mark, index, skew: prices.skew ?? 0 });
}
