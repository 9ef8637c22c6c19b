// The engine process: the shard threads (one actor per account), the price feed (simulator or market.v1
// pushes), engine.v1 + market.v1 over gRPC on HOST:ENGINE_GRPC_PORT and /healthz, /readyz, /metrics on
// ENGINE_METRICS_PORT; drains on SIGINT/SIGTERM. `startEngine` starts the same thing in-process for tests.
import { randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { joinHostPort } from "../kernel/address.js";
import { openDatabase } from "../kernel/db.js";
import { bounded } from "../kernel/db-deadline.js";
import { bindServer, channelCredentials, serverCredentials, shutdownServer } from "../kernel/grpc.js";
import type { Logger } from "../kernel/log.js";
import { isEntryPoint, runService } from "../kernel/process.js";
import { createRegistry, startAdminServer } from "../kernel/metrics.js";
import { RpcMetrics } from "../kernel/rpc-metrics.js";
import { engineMetrics } from "./metrics.js";
import { PLANS } from "./basics/plans.js";
import type { EngineTypes } from "./actor.js";
import { ENGINE_LISTEN_SECRETS, loadEngineSettings, type EngineSettings } from "./config.js";
import { warnInsecureListen } from "../kernel/listen-guard.js";
import { NewsCalendar, parseCalendar, shippedCalendar, type NewsEvent } from "./market/calendar.js";
import { loadStoredCalendar, storeCalendar } from "./store/calendar.js";
import { CATALOGUE } from "./market/catalogue.js";
import { LivePrices, type TickQuote } from "./market/prices.js";
import { PriceSimulator } from "./market/simulator.js";
import { ServiceError } from "../kernel/errors.js";
import { DAY_MS } from "../kernel/time.js";
import { startFundingClock } from "./funding-clock.js";
import type { ActorLimits } from "./accounts/limits.js";
import { createEngineServer } from "./server.js";
import { AccountSlots } from "./store/account-slots.js";
import { partitionsOfEngine } from "../kernel/partition.js";
import { startShards } from "./shard/runtime.js";
import { holdPartitions } from "./store/lease-keeper.js";
import { PartitionLeases } from "./store/leases.js";
import { migrateEngine } from "./store/schema.js";
import { KeyCache } from "../kernel/key-cache.js";
import { KEY_LEASE_MS, KEY_LEASE_PING_MS } from "../kernel/key-lease.js";
import { WebhookDispatcher } from "./webhooks/dispatcher.js";
import { webhookMetrics } from "./webhooks/metrics.js";
import { WebhookStore } from "./webhooks/store.js";
import { RevokedKeys } from "./webhooks/revoked-keys.js";
import { httpsTransport } from "./webhooks/transport.js";
import { walletDirectory } from "./webhooks/wallet-directory.js";

/** How long in-flight calls may run after a stop request before they are cut. */
const SHUTDOWN_GRACE_MS = 10_000;
const ACTOR_MODULE = path.join(path.dirname(fileURLToPath(import.meta.url)), "actor.ts");

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
}

/** Starts the engine in this process; ports of 0 pick free ones (see the returned ports). */
export async function startEngine(
  settings: EngineSettings,
  log: Logger,
  overrides: EngineOverrides = {},
): Promise<RunningEngine> {
  warnInsecureListen(log, settings, ENGINE_LISTEN_SECRETS);
  const now = overrides.now ?? Date.now;
  const registry = createRegistry("engine");
  // The database the shards journal to.
  const db = await openDatabase({
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
  // Scale-out (docs/scale-out.md): lease every owned partition before loading it; a live lease of another
  // engine is waited out, never taken. The shards' appends are fenced by these leases.
  const owner = `engine-${settings.ENGINE_INDEX}-${randomUUID()}`;
  // Set once the engine is up; a loss reported before that is handled then (the shards serve nothing meanwhile).
  let lostEarly = false;
  let onLost = (): void => {
    lostEarly = true;
  };
  const held = await (async () => {
    await migrateEngine(db.pool);
    return holdPartitions(
      {
        leases: new PartitionLeases(db.pool, owner, settings.ENGINE_LEASE_TTL_MS),
        partitions: partitionsOfEngine(settings.ENGINE_INDEX, settings.ENGINE_COUNT),
        ttlMs: settings.ENGINE_LEASE_TTL_MS,
        renewMs: settings.ENGINE_LEASE_RENEW_MS,
        log,
        now: () => performance.now(),
        onLost: () => {
          onLost();
        },
      },
      // A SIGTERM while waiting ends the process (runService installs its handlers once the engine started).
      new AbortController().signal,
    );
  })().catch(async (error: unknown) => {
    await db.close();
    throw error;
  });
  const runtime = await startShards<EngineTypes>({
    shards: settings.ENGINE_SHARDS,
    databaseUrl: db.url,
    coreModule: ACTOR_MODULE,
    log,
    ...(settings.METRICS_ENABLED
      ? { metrics: engineMetrics(registry, settings.ENGINE_SHARDS), statsIntervalMs: settings.ENGINE_STATS_INTERVAL_MS }
      : {}),
    migrate: false,
    engine: settings.ENGINE_INDEX,
    engines: settings.ENGINE_COUNT,
    fence: held.fence,
    serving: held.serving,
    dbTimeoutMs: settings.ENGINE_DB_TIMEOUT_MS,
    coreSettings: {
      maxWorkingOrders: settings.ENGINE_MAX_WORKING_ORDERS,
      finalOrderRetentionMs: settings.ENGINE_FINAL_ORDER_RETENTION_MS,
      finalOrdersKept: settings.ENGINE_FINAL_ORDERS_KEPT,
      clientIdWindowMs: settings.ENGINE_CLIENT_ID_WINDOW_MS,
      clientIdsKept: settings.ENGINE_CLIENT_IDS_KEPT,
    } satisfies ActorLimits,
    snapshotEvery: settings.ENGINE_SNAPSHOT_EVERY,
  }).catch(async (error: unknown) => {
    held.abandon();
    await db.close();
    throw error;
  });
  // The calendar: the one last set through market.v1 (kept across restarts), else the shipped one.
  let startCalendar: NewsEvent[];
  try {
    startCalendar = await startingCalendar(db.pool, log);
    await runtime.market({ prices: [], calendar: startCalendar });
  } catch (error) {
    await runtime.stop();
    await held.release();
    await db.close();
    throw error;
  }
  const calendar = new NewsCalendar(startCalendar);
  const applyCalendar = async (events: NewsEvent[]): Promise<void> => {
    await storeCalendar(db.pool, events);
    await runtime.market({ prices: [], calendar: events });
  };

  const prices = new LivePrices(CATALOGUE);
  const publish = async (quotes: TickQuote[]): Promise<void> => {
    if (quotes.length === 0) return;
    const applied = await runtime.market({ prices: quotes });
    prices.update(quotes);
    // Applied everywhere else, but an account's triggers or risk checks failed at these prices: not "applied".
    if (applied.faults > 0) {
      throw new ServiceError("engine_error", {}, `the prices failed to apply on ${String(applied.faults)} account(s)`);
    }
  };

  let feed: NodeJS.Timeout | undefined;
  if (settings.PRICE_FEED === "simulator") {
    const simulator = new PriceSimulator(CATALOGUE, settings.SIMULATOR_SEED);
    await publish(simulator.current());
    let last = now();
    let running = false;
    feed = setInterval(() => {
      if (running) return; // a slow round never piles up behind itself
      running = true;
      const at = now();
      const quotes = simulator.step(at - last, at);
      last = at;
      publish(quotes)
        .catch((error: unknown) => {
          log.warn({ err: error }, "price update failed");
        })
        .finally(() => {
          running = false;
        });
    }, settings.SIMULATOR_INTERVAL_MS);
  }

  // Funding: a tick through every shard like a price update, at fixed UTC times (multiples of the interval),
  // once per boundary and never before it (engine/funding-clock.ts).
  const rates = { cryptoPpm: settings.FUNDING_RATE_CRYPTO_PPM, rolloverPpm: settings.FUNDING_ROLLOVER_PPM };
  const fundingClock = startFundingClock({
    intervalMs: settings.FUNDING_INTERVAL_MS,
    now,
    tick: async (boundary) => {
      await runtime.market({ prices: [], funding: rates, fundingBoundary: boundary });
    },
    onError: (error) => {
      log.warn({ err: error }, "funding tick failed");
    },
  });
  const stopFunding = (): void => {
    fundingClock.stop();
  };

  const webhooks = new WebhookStore(db.pool, settings.ENGINE_DB_TIMEOUT_MS);
  const metrics = webhookMetrics(registry, () => webhooks.backlog(Date.now()));
  let dispatcher: WebhookDispatcher | undefined;
  let closeDispatch = (): void => undefined;
  if (settings.WEBHOOKS_ENABLED) {
    const directory = walletDirectory(
      settings.WALLET_GRPC_TARGET ?? joinHostPort(settings.HOST, settings.WALLET_GRPC_PORT),
      settings.INTERNAL_TOKEN,
      channelCredentials(settings.GRPC_TLS_CA_FILE),
    );
    const transport = httpsTransport({
      ca: settings.WEBHOOK_CA_FILE?.pem,
      allowPrivate: settings.WEBHOOK_ALLOW_PRIVATE,
      timeoutMs: settings.WEBHOOK_TIMEOUT_MS,
    });
    // Revocations pushed by the wallet: a DELETE returns only once this dispatcher acked it (or its lease ran
    // out, and then every attempt asks the wallet first), so a revoked key never gets a new attempt.
    const revokedKeys = new RevokedKeys({ now: () => performance.now() });
    const revocations = new KeyCache({
      open: () => directory.watch(),
      leaseMs: KEY_LEASE_MS,
      pingMs: KEY_LEASE_PING_MS,
      ttlMs: KEY_LEASE_MS,
      maxEntries: 1,
      now: () => performance.now(),
      wallNow: () => Date.now(),
      onRevoked: (keyId) => {
        revokedKeys.add(keyId);
      },
      log,
    });
    revocations.start();
    dispatcher = new WebhookDispatcher({
      store: webhooks,
      keys: directory,
      guard: revokedKeys.guard(() => revocations.trusted),
      send: transport.send,
      schedule: settings.WEBHOOK_RETRY_SCHEDULE_MS,
      log,
      metrics,
      pollMs: settings.WEBHOOK_POLL_MS,
      retentionMs: settings.WEBHOOK_RETENTION_DAYS * DAY_MS,
      timeoutMs: settings.WEBHOOK_TIMEOUT_MS,
    });
    closeDispatch = () => {
      revocations.close();
      transport.close();
      directory.close();
    };
  }

  const server = createEngineServer({
    webhooks,
    catalogue: CATALOGUE,
    plans: PLANS,
    prices,
    runtime,
    publish,
    calendar,
    applyCalendar,
    acceptsPushes: settings.PRICE_FEED === "push",
    engine: { index: settings.ENGINE_INDEX, count: settings.ENGINE_COUNT },
    accountCap: {
      slots: new AccountSlots(db.pool, settings.ENGINE_DB_TIMEOUT_MS),
      limit: settings.ENGINE_MAX_ACCOUNTS_PER_USER,
    },
    now,
    internalToken: settings.INTERNAL_TOKEN,
    metrics: settings.METRICS_ENABLED ? new RpcMetrics(registry, "server") : undefined,
    log,
  });
  const cleanup = async (): Promise<void> => {
    clearInterval(feed);
    stopFunding();
    await dispatcher?.stop();
    closeDispatch();
    await runtime.stop();
    // Only once the shards stopped writing: a successor may take the partitions at once.
    await held.release();
    await db.close();
  };
  let grpcPort: number;
  let admin: Awaited<ReturnType<typeof startAdminServer>>;
  try {
    grpcPort = await bindServer(
      server,
      settings.HOST,
      settings.ENGINE_GRPC_PORT,
      serverCredentials(settings.GRPC_TLS_CERT_FILE, settings.GRPC_TLS_KEY_FILE),
    );
    admin = await startAdminServer(registry, settings.HOST, settings.ENGINE_METRICS_PORT, async () => {
      await db.pool.query(bounded(settings.ENGINE_DB_TIMEOUT_MS, "SELECT 1"));
      return held.serving();
    });
  } catch (error) {
    server.forceShutdown();
    await cleanup();
    throw error;
  }
  dispatcher?.start();
  log.info(
    {
      host: settings.HOST,
      grpcPort,
      adminPort: admin.port,
      priceFeed: settings.PRICE_FEED,
      shards: settings.ENGINE_SHARDS,
      engine: settings.ENGINE_INDEX,
      engines: settings.ENGINE_COUNT,
      owner,
    },
    "engine listening",
  );
  let stopping: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    clearInterval(feed);
    stopFunding();
    await dispatcher?.stop();
    await shutdownServer(server, SHUTDOWN_GRACE_MS);
    await admin.close();
    await cleanup();
  };
  const stopOnce = (): Promise<void> => (stopping ??= stop());
  // Another engine owns one of our partitions now: nothing here may be served again (the fence already refuses
  // every append). Crash-only: stop and exit, and a restart waits for fresh leases and reloads the journal.
  onLost =
    overrides.onLeaseLost ??
    (() => {
      log.error({ owner }, "partition leases lost; stopping the engine");
      void stopOnce().finally(() => process.exit(1));
    });
  if (lostEarly) onLost();
  return {
    grpcPort,
    adminPort: admin.port,
    stop: stopOnce,
  };
}

async function startingCalendar(pool: Parameters<typeof loadStoredCalendar>[0], log: Logger): Promise<NewsEvent[]> {
  const stored = await loadStoredCalendar(pool);
  if (stored === undefined) return shippedCalendar(CATALOGUE);
  const parsed = parseCalendar(stored, CATALOGUE);
  if ("ok" in parsed) return parsed.ok;
  log.warn({ issues: parsed.issues }, "stored news calendar no longer valid; using the shipped one");
  return shippedCalendar(CATALOGUE);
}

// Handlers use the trace context only synchronously (up to their shard message or reply): no AsyncLocalStorage.
if (isEntryPoint(import.meta.url)) runService("engine", loadEngineSettings, startEngine, { asyncContext: false });
