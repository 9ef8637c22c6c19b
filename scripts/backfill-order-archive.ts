// Archives the orders engines forgot before the order archive existed (engine migration 009; docs/runbook.md,
// "Upgrade to the order archive"). Replays every account's whole journal (no snapshots) through the trading core
// with the engine's limits, one account in memory at a time, forgetting where each decision ends as a shard's
// rebuild does, and inserts every order the replay forgets; rows already there stay as they are. Safe to run
// while engines serve a PostgreSQL database (it only inserts rows no engine writes differently), and again. Run it
// with the limits the engines had when they forgot those orders (ENGINE_FINAL_ORDERS_KEPT,
// ENGINE_FINAL_ORDER_RETENTION_MS in the environment): larger ones forget, and so archive, fewer.
//
//   DATABASE_URL=postgres://… node --import tsx scripts/backfill-order-archive.ts
//
// With the embedded database (no DATABASE_URL) the engine must be stopped: it opens DATA_DIR itself.
import { pathToFileURL } from "node:url";
import type pg from "pg";
import { openDatabase } from "../kernel/db.js";
import { createLogger, type Logger } from "../kernel/log.js";
import { PARTITIONS } from "../kernel/partition.js";
import type { ActorLimits } from "../engine/accounts/limits.js";
import { loadEngineSettings } from "../engine/config.js";
import type { AccountState, EngineEvent } from "../engine/core.js";
import { Journal } from "../engine/store/journal.js";
import type { ArchivedRow } from "../engine/store/order-archive.js";
import { migrateEngine } from "../engine/store/schema.js";
import { createCore } from "../engine/trading-core.js";

/** Rows collected before they are written. */
const FLUSH_AT = 2_000;

export interface BackfillCounts {
  accounts: number;
  events: number;
  /** Orders the replay forgot (each written, or already there). */
  forgotten: number;
  /**
   * Accounts whose replay the core refused (an event for an order these limits forgot earlier: limits lower than
   * the engines had); what their replay forgot before that is archived, the rest of them is not.
   */
  failed: string[];
}

/** Replays every account of the database and makes sure the archive holds every order its replay forgets. */
export async function backfillOrderArchive(pool: pg.Pool, limits: ActorLimits): Promise<BackfillCounts> {
  const core = createCore();
  core.configure?.(limits);
  const journal = new Journal(pool);
  const counts: BackfillCounts = { accounts: 0, events: 0, forgotten: 0, failed: [] };
  let rows: ArchivedRow[] = [];
  let account: string | undefined;
  let state: AccountState | undefined;
  let at: number | undefined;
  const forget = (): void => {
    if (state === undefined || account === undefined) return;
    const accountId = account;
    core.forget?.(state, (record) => rows.push({ accountId, ...record }));
  };
  const flush = async (): Promise<void> => {
    const written = rows;
    rows = [];
    counts.forgotten += written.length;
    await journal.archive(written);
  };
  // One partition at a time: its events are read (in account, seq order) before the next is.
  for (let partition = 0; partition < PARTITIONS; partition++) {
    await journal.readPartitions([partition], (stored) => {
      if (stored.accountId !== account) {
        forget();
        account = stored.accountId;
        state = undefined;
        at = undefined;
        counts.accounts++;
      }
      if (counts.failed.at(-1) === account) return;
      const event = stored.event as EngineEvent;
      // Where one decision ends (the next event has another time), as the live actor and a rebuild forget.
      if (state !== undefined && event.at !== at) forget();
      try {
        state = core.apply(state, event);
      } catch {
        counts.failed.push(stored.accountId);
        state = undefined;
        return;
      }
      at = event.at;
      counts.events++;
    });
    forget();
    account = undefined;
    state = undefined;
    if (rows.length >= FLUSH_AT || partition === PARTITIONS - 1) await flush();
  }
  return counts;
}

async function main(log: Logger): Promise<void> {
  const settings = loadEngineSettings(process.env);
  const db = await openDatabase({
    url: settings.DATABASE_URL,
    dataDir: settings.DATA_DIR,
    embeddedName: "pglite-engine",
    poolSize: 1,
    log,
  });
  try {
    await migrateEngine(db.pool);
    const counts = await backfillOrderArchive(db.pool, {
      maxWorkingOrders: settings.ENGINE_MAX_WORKING_ORDERS,
      finalOrderRetentionMs: settings.ENGINE_FINAL_ORDER_RETENTION_MS,
      finalOrdersKept: settings.ENGINE_FINAL_ORDERS_KEPT,
      clientIdWindowMs: settings.ENGINE_CLIENT_ID_WINDOW_MS,
      clientIdsKept: settings.ENGINE_CLIENT_IDS_KEPT,
    });
    if (counts.failed.length === 0) log.info(counts, "order archive backfilled");
    else log.warn(counts, "order archive backfilled, except the failed accounts: run again with the engines' limits");
  } finally {
    await db.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const log = createLogger("backfill", process.env.LOG_LEVEL ?? "info");
  main(log).catch((error: unknown) => {
    log.error({ err: error }, "order archive backfill failed");
    process.exit(1);
  });
}
