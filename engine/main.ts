// The engine process: the shard threads (one actor per account), the price feed (simulator or market.v1
// pushes), engine.v1 + market.v1 over gRPC on HOST:ENGINE_GRPC_PORT and /healthz, /readyz, /metrics on
// ENGINE_METRICS_PORT (engine/listeners.ts: bound from the start, refusing every call while the engine waits for
// its partition leases); drains on SIGINT/SIGTERM, and gives up waiting on them (exit 0). `startEngine` starts the
// same thing in-process for tests. gRPC health (kernel/grpc-standard.ts) answers SERVING once every part started
// and /readyz's check passes (database, partition leases held), and NOT_SERVING from the first step of stopping.
import type { Registry } from "prom-client";
import { openDatabase, type Database } from "../kernel/db.js";
import { bounded } from "../kernel/db-deadline.js";
import { warnInsecureListen } from "../kernel/listen-guard.js";
import type { Logger } from "../kernel/log.js";
import { createRegistry } from "../kernel/metrics.js";
import { isEntryPoint, runService } from "../kernel/process.js";
import { RpcMetrics } from "../kernel/rpc-metrics.js";
import { startParts } from "../kernel/stop-stack.js";
import { PLANS } from "./basics/plans.js";
import type { EngineTypes } from "./trading-core.js";
import { ENGINE_LISTEN_SECRETS, loadEngineSettings, type EngineSettings } from "./config.js";
import {
  startCalendar,
  startFunding,
  startPrices,
  startSimulatorFeed,
  type CalendarPart,
  type PricesPart,
} from "./feeds.js";
import { CATALOGUE } from "./market/catalogue.js";
import { expiredCounter } from "./metrics.js";
import { startLeasedShards, type LeasedShards } from "./leased-shards.js";
import { engineServices, type EngineServices } from "./server.js";
import { openListeners } from "./listeners.js";
import { OrderArchive } from "./store/order-archive.js";
import { KeptPriceStore } from "./store/kept-prices.js";
import { PriceKeeper } from "./continuity/price-keeper.js";
import type { OutboxListener, ShardRuntime } from "./shard/runtime.js";
import type { OutboxRow } from "./store/journal.js";
import { AccountWatches } from "./webhooks/watch.js";
import { AccountSlots } from "./store/account-slots.js";
import type { WebhookStore } from "./webhooks/store.js";
import { webhookParts } from "./webhook-parts.js";

export interface RunningEngine {
  grpcPort: number;
  adminPort: number;
  /** Stops the feed and listeners, drains in-flight calls and the shards. Safe to call twice. */
  stop(): Promise<void>;
}

export interface EngineOverrides {
  now?: () => number;
  /** What to do once another engine took one of this engine's partitions; default: stop and exit(1). */
  onLeaseLost?: () => void;
  /** Gives up waiting for partition leases: the start rejects (its listeners and database closed). */
  signal?: AbortSignal;
}

/**
 * Starts the engine in this process; ports of 0 pick free ones (see the returned ports). The engine is a stack
 * of parts, each pushing how it stops as it starts: a start that fails halfway and a stop both stop them
 * newest first (the feed, funding, dispatcher and listeners before the shards, the shards before their
 * partition leases, the database last).
 */
export async function startEngine(
  settings: EngineSettings,
  log: Logger,
  overrides: EngineOverrides = {},
): Promise<RunningEngine> {
  warnInsecureListen(log, settings, ENGINE_LISTEN_SECRETS);
  const now = overrides.now ?? Date.now;
  const registry = createRegistry("engine");
  // Set once the engine is up; a loss reported before that is handled then (the shards serve nothing meanwhile).
  let lostEarly = false;
  let onLost = (): void => {
    lostEarly = true;
  };
  const { started, stop } = await startParts(async (parts) => {
    // Bound first, refusing every call until the engine serves (engine/listeners.ts); stopped in its turn below.
    const listeners = await openListeners(settings, registry);
    parts.push(listeners.stop);
    const db = await openEngineDatabase(settings, log);
    parts.push(() => db.close());
    // The shards' notices of committed outbox rows reach the watches made below (they need the runtime).
    const outbox = new OutboxRelay();
    const shards = await startLeasedShards(
      settings,
      { db, registry, log, outbox, signal: overrides.signal ?? new AbortController().signal },
      () => {
        onLost();
      },
    );
    parts.push(shards.stop);
    const { runtime } = shards;
    // The index served: ENGINE_INDEX, or the dead engine's a standby took (docs/scale-out.md, "Standbys").
    const engine: EngineSettings = { ...settings, ENGINE_INDEX: shards.index };
    const calendar = await startCalendar(db.pool, runtime, log);
    const keeper = new PriceKeeper(new KeptPriceStore(db.pool, CATALOGUE), log);
    parts.push(() => keeper.stop()); // after the feed and funding: the last prices are written at a clean stop
    const feed = await startPrices(engine, runtime, keeper, now, log);
    parts.push(await startFunding(engine, { runtime, keeper, then: feed.resume }, now, log));
    const webhooks = webhookParts(engine, db, registry, log);
    parts.push(webhooks.close);
    const watches = new AccountWatches({ source: runtime, store: webhooks.store, log });
    outbox.target = watches;
    parts.push(() => {
      watches.close();
    });
    listeners.serve(
      services(engine, { db, runtime, calendar, feed, webhooks: webhooks.store, watches }, registry, now, log),
      readiness(engine, db, shards),
    );
    parts.push(listeners.stop);
    const { dispatcher } = webhooks;
    if (dispatcher !== undefined) {
      dispatcher.start();
      parts.push(() => dispatcher.stop());
    }
    if (feed.simulator !== undefined) parts.push(startSimulatorFeed(engine, feed.simulator, feed.publish, now, log));
    parts.push(shards.stop); // a stop's second step, the hand-over (docs/scale-out.md, "Hand-over")
    parts.push(listeners.unready);
    return { shards, listeners };
  });
  const { shards, listeners } = started;
  const ports = listeners.ports;
  const owner = shards.owner;
  listeners.started();
  announce(settings, shards, ports, log);
  // Another engine owns one of our partitions now: nothing here may be served again (the fence already refuses
  // every append). Crash-only: stop and exit, and a restart waits for fresh leases and reloads the journal.
  onLost =
    overrides.onLeaseLost ??
    (() => {
      log.error({ owner }, "partition leases lost; stopping the engine");
      void stop().finally(() => process.exit(1));
    });
  if (lostEarly) onLost();
  return { grpcPort: ports.grpc, adminPort: ports.admin, stop };
}

/** The "engine listening" line (the index served, and the owner id), then a standby's take-over line. */
function announce(
  settings: EngineSettings,
  shards: LeasedShards,
  ports: { grpc: number; admin: number },
  log: Logger,
): void {
  log.info(
    {
      host: settings.HOST,
      grpcPort: ports.grpc,
      adminPort: ports.admin,
      priceFeed: settings.PRICE_FEED,
      shards: settings.ENGINE_SHARDS,
      engine: shards.index,
      engines: settings.ENGINE_COUNT,
      owner: shards.owner,
    },
    "engine listening",
  );
  shards.listening();
}

/** /readyz and gRPC health: the database answers and every partition lease is held. */
function readiness(settings: EngineSettings, db: Database, shards: Pick<LeasedShards, "serving">) {
  return async (): Promise<boolean> => {
    await db.pool.query(bounded(settings.ENGINE_DB_TIMEOUT_MS, "SELECT 1"));
    return shards.serving();
  };
}

/** The database the shards journal to. */
function openEngineDatabase(settings: EngineSettings, log: Logger): Promise<Database> {
  return openDatabase({
    url: settings.DATABASE_URL,
    dataDir: settings.DATA_DIR,
    embeddedName: "pglite-engine",
    // Readiness, lease renewals, the webhook dispatcher, the catch-up/delivery-log reads (never in a
    // transaction) and the account cap's reservations (a short transaction that awaits nothing else).
    poolSize: 4,
    // No bound on waiting for a connection here: lease renewals share this pool and must wait their turn
    // rather than fail (a lease that lapses stops the engine). The reads callers wait for bound each statement.
    log,
  });
}

/** Passes the shards' outbox notices on to `target` once it is set. */
class OutboxRelay implements OutboxListener {
  target: OutboxListener | undefined;
  committed(rows: readonly OutboxRow[]): void {
    this.target?.committed(rows);
  }
  uncertain(accounts: readonly string[]): void {
    this.target?.uncertain(accounts);
  }
}

/** The handlers of the engine's services on its parts. */
function services(
  settings: EngineSettings,
  parts: {
    db: Database;
    runtime: ShardRuntime<EngineTypes>;
    calendar: CalendarPart;
    feed: PricesPart;
    webhooks: WebhookStore;
    watches: AccountWatches;
  },
  registry: Registry,
  now: () => number,
  log: Logger,
): EngineServices {
  return engineServices({
    ...parts.calendar,
    prices: parts.feed.prices,
    publish: parts.feed.publish,
    webhooks: parts.webhooks,
    orders: new OrderArchive(parts.db.pool, settings.ENGINE_DB_TIMEOUT_MS),
    watches: parts.watches,
    catalogue: CATALOGUE,
    plans: PLANS,
    runtime: parts.runtime,
    acceptsPushes: settings.PRICE_FEED === "push",
    engine: { index: settings.ENGINE_INDEX, count: settings.ENGINE_COUNT },
    accountCap: {
      slots: new AccountSlots(parts.db.pool, settings.ENGINE_DB_TIMEOUT_MS),
      limit: settings.ENGINE_MAX_ACCOUNTS_PER_USER,
    },
    now,
    internalToken: settings.INTERNAL_TOKEN,
    metrics: settings.METRICS_ENABLED ? new RpcMetrics(registry, "server") : undefined,
    expired: settings.METRICS_ENABLED ? expiredCounter(registry) : undefined,
    log,
  });
}

// Handlers use the trace context only synchronously (up to their shard message or reply): no AsyncLocalStorage.
if (isEntryPoint(import.meta.url)) {
  runService("engine", loadEngineSettings, (settings, log, signal) => startEngine(settings, log, { signal }), {
    asyncContext: false,
  });
}
