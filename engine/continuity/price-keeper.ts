// Prices survive a restart (docs/engine.md, "Restarts"): every quote the engine publishes is noted here before
// the shards apply it, and written to the database at a bounded cost: what changed, at most once per
// `everyMs` (one statement for every symbol that moved), at once when a caller asks (the simulator's steps,
// a funding boundary) and at a clean stop. A start publishes the kept prices before anything else, each with
// the time it was set, so the books continue from the marks they stopped at.
import type { Logger } from "../../kernel/log.js";
import type { TickQuote } from "../market/prices.js";
import type { KeptPriceStore, KeptQuote } from "../store/kept-prices.js";

/** The longest a changed price waits to be written (ms): a symbol's row is written at most this often. */
export const KEEP_EVERY_MS = 1_000;

type Store = Pick<KeptPriceStore, "load" | "keep" | "fundingPrices" | "fundedThrough" | "recordFunded">;

export class PriceKeeper {
  /** The latest quote of every symbol, kept or not yet. */
  private readonly latest = new Map<string, KeptQuote>();
  /** Quotes noted since the last write. */
  private dirty = new Map<string, KeptQuote>();
  private timer: NodeJS.Timeout | undefined;
  /** The write in progress (writes run one at a time, in order). */
  private writing: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    /** Where the prices are kept (and the funding clock records how far it paid). */
    readonly store: Store,
    private readonly log: Logger,
    private readonly everyMs = KEEP_EVERY_MS,
  ) {}

  /** The kept prices (each with the time it was set), remembered as the latest. */
  async restore(): Promise<KeptQuote[]> {
    const kept = await this.store.load();
    for (const quote of kept) this.latest.set(quote.symbol, quote);
    return kept;
  }

  /** Notes quotes about to be published at `at` (a quote's own `at` wins); written within `everyMs`. */
  note(quotes: readonly TickQuote[], at: number): void {
    for (const quote of quotes) {
      const kept: KeptQuote = { ...quote, at: quote.at ?? at };
      this.latest.set(quote.symbol, kept);
      this.dirty.set(quote.symbol, kept);
    }
    this.schedule();
  }

  /** The latest quote of every symbol that has one. */
  latestQuotes(): KeptQuote[] {
    return [...this.latest.values()];
  }

  /** Writes what changed since the last write; resolves once written (rejects when the write failed). */
  flush(): Promise<void> {
    const write = this.writing.catch(() => undefined).then(() => this.writeDirty());
    this.writing = write;
    return write;
  }

  /** The prices `boundary` is paid at (docs/risk.md, "Funding"): kept for it earlier, else the latest now. */
  fundingPrices(boundary: number): Promise<TickQuote[]> {
    return this.store.fundingPrices(boundary, this.latestQuotes());
  }

  /** Writes what is left and stops writing. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush().catch((error: unknown) => {
        this.log.warn({ err: error }, "keeping the last prices failed; tried again with the next change");
      });
    }, this.everyMs);
    this.timer.unref();
  }

  private async writeDirty(): Promise<void> {
    if (this.dirty.size === 0) return;
    const rows = [...this.dirty.values()];
    this.dirty = new Map();
    try {
      await this.store.keep(rows);
    } catch (error) {
      // Written with the next flush, unless a newer quote of the symbol replaced it meanwhile.
      for (const row of rows) if (!this.dirty.has(row.symbol)) this.dirty.set(row.symbol, row);
      this.schedule();
      throw error;
    }
  }
}
