// What a restart continues from besides the journal (engine/migrations/010_kept_prices.sql, docs/engine.md
// "Restarts"): the last prices of every symbol, the prices a funding boundary is paid at, and how far each
// partition's funding went. Prices cross this boundary as decimal text on the symbol's grid, so a row outlives
// a change of the catalogue's tick size (it is read back onto the grid of the day, rounded to the nearest tick).
import type pg from "pg";
import type { Catalogue } from "../market/catalogue.js";
import type { TickQuote } from "../market/prices.js";
import { roundToGrid, tickerUnits, toDecimalString } from "../market/units.js";

/** A quote with the time it was set (epoch ms). */
export type KeptQuote = TickQuote & { at: number };

interface PriceRow {
  symbol: string;
  mark_price: string;
  index_price: string;
  skew: string;
  set_at: string;
}

/** The columns of quotes of listed symbols (others are left out); `times` holds each quote's `at` (0 when absent). */
function priceColumns(catalogue: Catalogue, quotes: readonly TickQuote[]) {
  const columns = {
    symbols: [] as string[],
    marks: [] as string[],
    indexes: [] as string[],
    skews: [] as number[],
    times: [] as number[],
  };
  for (const quote of quotes) {
    const spec = catalogue.byKey(quote.symbol);
    if (spec === undefined) continue;
    const grid = tickerUnits(spec).tick;
    columns.symbols.push(quote.symbol);
    columns.marks.push(toDecimalString(quote.mark, grid));
    columns.indexes.push(toDecimalString(quote.index, grid));
    columns.skews.push(Math.round(quote.skew));
    columns.times.push(quote.at ?? 0);
  }
  return columns;
}

/** A stored row as a quote on the catalogue's grid; undefined for a symbol no longer listed or a bad price. */
function quoteOf(catalogue: Catalogue, row: Omit<PriceRow, "skew" | "set_at">, skew: number, at: number) {
  const spec = catalogue.byKey(row.symbol);
  if (spec === undefined) return undefined;
  const grid = tickerUnits(spec).tick;
  const mark = roundToGrid(row.mark_price, grid);
  const index = roundToGrid(row.index_price, grid);
  if (mark === undefined || index === undefined || mark <= 0 || index <= 0) return undefined;
  return { symbol: spec.symbol, mark, index, skew, at } satisfies KeptQuote;
}

export class KeptPriceStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly catalogue: Catalogue,
  ) {}

  /** The last kept prices of every listed symbol, each with the time it was set. */
  async load(): Promise<KeptQuote[]> {
    const result = await this.pool.query<PriceRow>(
      "SELECT symbol, mark_price::text, index_price::text, skew::text, set_at::text FROM engine_prices",
    );
    const quotes: KeptQuote[] = [];
    for (const row of result.rows) {
      const quote = quoteOf(this.catalogue, row, Number(row.skew), Number(row.set_at));
      if (quote !== undefined) quotes.push(quote);
    }
    return quotes;
  }

  /** Keeps the quotes (one statement); a symbol's row is replaced only by prices set at or after its own. */
  async keep(quotes: readonly KeptQuote[]): Promise<void> {
    if (quotes.length === 0) return;
    const columns = priceColumns(this.catalogue, quotes);
    await this.pool.query(
      `INSERT INTO engine_prices (symbol, mark_price, index_price, skew, set_at)
       SELECT * FROM unnest($1::text[], $2::numeric[], $3::numeric[], $4::bigint[], $5::bigint[])
       ON CONFLICT (symbol) DO UPDATE
         SET mark_price = EXCLUDED.mark_price, index_price = EXCLUDED.index_price, skew = EXCLUDED.skew,
             set_at = EXCLUDED.set_at
       WHERE engine_prices.set_at <= EXCLUDED.set_at`,
      [columns.symbols, columns.marks, columns.indexes, columns.skews, columns.times],
    );
  }

  /**
   * The prices `boundary` is paid at: those kept for it first (by this engine before a restart, or by another
   * engine), else `quotes`, kept now for it. One statement; the first write for a boundary wins.
   */
  async fundingPrices(boundary: number, quotes: readonly TickQuote[]): Promise<TickQuote[]> {
    const columns = priceColumns(this.catalogue, quotes);
    const result = await this.pool.query<Omit<PriceRow, "skew" | "set_at">>(
      `WITH written AS (
         INSERT INTO engine_funding_prices (boundary, symbol, mark_price, index_price)
         SELECT $1::bigint, s, m, i FROM unnest($2::text[], $3::numeric[], $4::numeric[]) AS x(s, m, i)
          WHERE NOT EXISTS (SELECT 1 FROM engine_funding_prices WHERE boundary = $1::bigint)
         ON CONFLICT DO NOTHING
         RETURNING symbol, mark_price, index_price)
       SELECT symbol, mark_price::text, index_price::text FROM written
       UNION ALL
       SELECT symbol, mark_price::text, index_price::text FROM engine_funding_prices WHERE boundary = $1::bigint`,
      [boundary, columns.symbols, columns.marks, columns.indexes],
    );
    const paidAt: TickQuote[] = [];
    for (const row of result.rows) {
      const quote = quoteOf(this.catalogue, row, 0, boundary);
      if (quote !== undefined) paidAt.push({ symbol: quote.symbol, mark: quote.mark, index: quote.index, skew: 0 });
    }
    return paidAt;
  }

  /**
   * The latest boundary every one of `partitions` was paid for, or undefined when none of them has a record
   * (a database that never paid funding: nothing to catch up).
   */
  async fundedThrough(partitions: readonly number[]): Promise<number | undefined> {
    const result = await this.pool.query<{ boundary: string | null }>(
      "SELECT min(boundary)::text AS boundary FROM engine_funding_ticks WHERE partition = ANY($1::int[])",
      [partitions],
    );
    const boundary = result.rows[0]?.boundary;
    return boundary === null || boundary === undefined ? undefined : Number(boundary);
  }

  /**
   * Records that `partitions` were paid for `boundary` (never moving a record back), then drops the kept prices
   * of the boundaries every recorded partition was paid for.
   */
  async recordFunded(partitions: readonly number[], boundary: number): Promise<void> {
    await this.pool.query(
      `WITH recorded AS (
         INSERT INTO engine_funding_ticks (partition, boundary)
         SELECT p, $2::bigint FROM unnest($1::int[]) AS x(p)
         ON CONFLICT (partition) DO UPDATE SET boundary = GREATEST(engine_funding_ticks.boundary, EXCLUDED.boundary)
         RETURNING 1)
       DELETE FROM engine_funding_prices
        WHERE boundary <= LEAST($2::bigint, (SELECT min(boundary) FROM engine_funding_ticks))`,
      [partitions, boundary],
    );
  }
}
