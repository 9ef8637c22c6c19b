// What a restart continues from (docs/engine.md, "Restarts"), on PostgreSQL and on the embedded database: the last
// prices with the time each was set (never replaced by older ones), the prices a funding boundary is paid at (the
// first write wins) and the latest boundary each partition was paid for.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../kernel/db.js";
import { createLogger } from "../../kernel/log.js";
import { CATALOGUE } from "../market/catalogue.js";
import { tickerUnits } from "../market/units.js";
import { migratedEngineDatabase } from "./database.testing.js";
import { KeptPriceStore, type KeptQuote } from "./kept-prices.js";
import { migrateEngine } from "./schema.js";

const T = Date.UTC(2026, 10, 25, 12, 0, 0);
const HOUR = 3_600_000;

const btc = (mark: number, at: number): KeptQuote => ({ symbol: "BTC-USD", mark, index: mark - 10, skew: -1234, at });
const eth = (mark: number, at: number): KeptQuote => ({ symbol: "ETH-USD", mark, index: mark + 3, skew: 0, at });

function keptPriceContract(pool: () => pg.Pool): void {
  const store = (): KeptPriceStore => new KeptPriceStore(pool(), CATALOGUE);

  it("keeps the last prices of each symbol with the time they were set", async () => {
    await store().keep([btc(964_123, T), eth(30_100, T)]);
    await store().keep([btc(964_200, T + 1_000)]);
    const kept = await store().load();
    expect(kept.sort((a, b) => a.symbol.localeCompare(b.symbol))).toEqual([btc(964_200, T + 1_000), eth(30_100, T)]);
  });

  it("never replaces prices with older ones (a write that arrives late)", async () => {
    await store().keep([btc(964_200, T + 1_000)]);
    await store().keep([btc(964_123, T)]);
    expect(await store().load()).toEqual([btc(964_200, T + 1_000)]);
  });

  it("reads prices back onto the grid of the catalogue, and leaves out symbols no longer listed", async () => {
    await pool().query(
      `INSERT INTO engine_prices (symbol, mark_price, index_price, skew, set_at)
       VALUES ('BTC-USD', 96412.34, 96412.25, 0, $1), ('GONE-USD', 1, 1, 0, $1)`,
      [T],
    );
    const tick = tickerUnits(CATALOGUE.byKey("BTC-USD") ?? expect.fail("BTC-USD")).tick;
    expect(tick.scale).toBe(1);
    expect(await store().load()).toEqual([{ symbol: "BTC-USD", mark: 964_123, index: 964_123, skew: 0, at: T }]);
  });

  it("pays a boundary at the prices first kept for it, whatever the prices of a later try", async () => {
    const first = await store().fundingPrices(T, [btc(964_123, T), eth(30_100, T)]);
    const retry = await store().fundingPrices(T, [btc(900_000, T + HOUR)]);
    const plain = (quotes: { symbol: string; mark: number; index: number }[]) =>
      quotes
        .map(({ symbol, mark, index }) => ({ symbol, mark, index }))
        .sort((a, b) => a.symbol.localeCompare(b.symbol));
    expect(plain(first)).toEqual([
      { symbol: "BTC-USD", mark: 964_123, index: 964_113 },
      { symbol: "ETH-USD", mark: 30_100, index: 30_103 },
    ]);
    expect(plain(retry)).toEqual(plain(first));
  });

  it("records the latest boundary every partition was paid for, and drops the prices of boundaries all paid", async () => {
    expect(await store().fundedThrough([0, 1, 2])).toBeUndefined();
    await store().fundingPrices(T, [btc(964_123, T)]);
    await store().fundingPrices(T + 8 * HOUR, [btc(964_000, T + 8 * HOUR)]);
    await store().recordFunded([0, 1, 2], T);
    expect(await store().fundedThrough([0, 1, 2])).toBe(T);
    await store().recordFunded([0, 1], T + 8 * HOUR);
    // Partition 2 was paid only for T: the engine holding it continues after T.
    expect(await store().fundedThrough([0, 1, 2])).toBe(T);
    expect(await store().fundedThrough([0, 1])).toBe(T + 8 * HOUR);
    // A record never moves back.
    await store().recordFunded([0], T - 8 * HOUR);
    expect(await store().fundedThrough([0])).toBe(T + 8 * HOUR);
    await store().recordFunded([2], T + 8 * HOUR);
    await store().recordFunded([0, 1, 2], T + 8 * HOUR);
    const left = await pool().query<{ n: string }>("SELECT count(*)::text AS n FROM engine_funding_prices");
    expect(left.rows[0]?.n).toBe("0");
  });
}

describe("kept prices on PostgreSQL", () => {
  const db = migratedEngineDatabase(2);
  keptPriceContract(() => db.pool);
});

describe("kept prices on the embedded database", () => {
  let dir = "";
  let database: Database | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "kept-"));
    database = await openDatabase({
      url: undefined,
      dataDir: dir,
      embeddedName: "pglite-kept",
      poolSize: 2,
      log: createLogger("test", "silent"),
    });
    await migrateEngine(database.pool);
  });
  afterAll(async () => {
    await database?.close();
    await rm(dir, { recursive: true, force: true });
  });
  // One database for the file: each test starts from empty tables.
  beforeEach(async () => {
    await database?.pool.query("TRUNCATE engine_prices, engine_funding_prices, engine_funding_ticks");
  });
  keptPriceContract(() => database?.pool ?? expect.fail("no embedded database"));
});
