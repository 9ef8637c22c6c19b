// Wallet process: migrations, key index warm-up, gRPC listener, admin listener, graceful shutdown. Each part
// starts, then pushes how to stop it; stopping (or a start that fails) stops them last first. gRPC health
// (kernel/grpc-standard.ts) answers SERVING once all of it started and /readyz's check passes, and NOT_SERVING
// from the first step of stopping.
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Registry } from "prom-client";
import { openDatabase, type Database } from "../kernel/db.js";
import { bounded } from "../kernel/db-deadline.js";
import { bindServer, protoDefinition, serverCredentials, shutdownServer, WALLET_PROTOS } from "../kernel/grpc.js";
import { addStandardServices, type StandardServices } from "../kernel/grpc-standard.js";
import type { Logger } from "../kernel/log.js";
import { isEntryPoint, runService } from "../kernel/process.js";
import { createRegistry, scrapeCounter, startAdminServer } from "../kernel/metrics.js";
import { migrate, readMigrations } from "../kernel/migrate.js";
import { RpcMetrics } from "../kernel/rpc-metrics.js";
import { startParts, type StopStack } from "../kernel/stop-stack.js";
import { WALLET_LISTEN_SECRETS, loadWalletSettings, type WalletSettings } from "./config.js";
import { warnInsecureListen } from "../kernel/listen-guard.js";
import { KEY_LEASE_MS } from "../kernel/key-lease.js";
import { KeyIndex } from "./key-index.js";
import { LoadGate } from "./load-gate.js";
import { RevocationReconciler } from "./reconciler.js";
import { validationMetrics } from "./metrics.js";
import { sealerFromSettings } from "./keys/sealed.js";
import { InProcessRevocationBus, RedisRevocationBus, type RevocationBus } from "./revocation-bus.js";
import { createWalletServer } from "./server.js";
import { WalletService } from "./service.js";
import { KeyWatchers } from "./watchers.js";
import { KeyStore } from "./store.js";

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");
const LAST_USED_FLUSH_MS = 1_000;
const SHUTDOWN_GRACE_MS = 5_000;

export interface RunningWallet {
  grpcPort: number;
  adminPort: number;
  stop(): Promise<void>;
}

export async function startWallet(settings: WalletSettings, log: Logger): Promise<RunningWallet> {
  warnInsecureListen(log, settings, WALLET_LISTEN_SECRETS);
  const registry = createRegistry("wallet");
  const onValidation = settings.METRICS_ENABLED ? validationMetrics(registry) : undefined;
  const { started, stop } = await startParts(async (stack) => {
    const db = await startDatabase(settings, log, stack);
    const keys = startKeys(settings, log, db, { registry, onValidation }, stack);
    // Subscribe before loading so a revocation during warm-up is never missed.
    await keys.bus.ready();
    const warmed = await keys.service.warm();
    startBackground(keys, log, stack);
    const ready = async (): Promise<boolean> => {
      await db.pool.query(bounded(settings.WALLET_DB_TIMEOUT_MS, "SELECT 1"));
      return true;
    };
    const { grpcPort, health } = await startGrpc(settings, log, { keys, registry, ready }, stack);
    const admin = await startAdminServer(registry, settings.HOST, settings.WALLET_METRICS_PORT, ready);
    stack.push(() => admin.close());
    stack.push(() => {
      health.stopping();
    });
    log.info({ grpcPort, adminPort: admin.port, keys: warmed, embedded: db.embedded }, "wallet listening");
    return { grpcPort, adminPort: admin.port, health };
  });
  const { grpcPort, adminPort, health } = started;
  health.started();
  return { grpcPort, adminPort, stop };
}

/** The wallet's database, opened and migrated; closed last. */
async function startDatabase(settings: WalletSettings, log: Logger, stack: StopStack): Promise<Database> {
  const db = await openDatabase({
    url: settings.DATABASE_URL,
    dataDir: settings.DATA_DIR,
    poolSize: settings.WALLET_DB_POOL_SIZE,
    connectTimeoutMs: settings.WALLET_DB_TIMEOUT_MS,
    embeddedName: "pglite-wallet",
    log,
  });
  stack.push(() => db.close());
  await migrate(db.pool, "wallet", readMigrations(MIGRATIONS));
  return db;
}

/** The key service and what keeps its copies of the keys current: index, revocation bus, watchers, reconciler. */
interface Keys {
  service: WalletService;
  bus: RevocationBus;
  watchers: KeyWatchers;
  reconciler: RevocationReconciler;
}

interface KeyMetrics {
  registry: Registry;
  onValidation: ReturnType<typeof validationMetrics> | undefined;
}

function startKeys(
  settings: WalletSettings,
  log: Logger,
  db: Database,
  { registry, onValidation }: KeyMetrics,
  stack: StopStack,
): Keys {
  const sealer = sealerFromSettings(settings);
  if (settings.WEBHOOK_MASTER_KEY === undefined) log.warn("WEBHOOK_MASTER_KEY unset: using the key file in DATA_DIR");
  const store = new KeyStore(db.pool, settings.WALLET_DB_TIMEOUT_MS);
  const now = (): number => Date.now();
  // Reads of keys the index does not hold leave connections free for key writes (wallet/load-gate.ts).
  const misses = new LoadGate({
    concurrency: Math.max(1, Math.min(settings.WALLET_UNKNOWN_KEY_READS, settings.WALLET_DB_POOL_SIZE - 1)),
    queue: settings.WALLET_UNKNOWN_KEY_QUEUE,
    waitMs: settings.WALLET_DB_TIMEOUT_MS,
  });
  const index = new KeyIndex({ load: (hash) => misses.run(() => store.findByHash(hash)), now });
  const bus: RevocationBus =
    settings.REDIS_URL === undefined ? new InProcessRevocationBus() : new RedisRevocationBus(settings.REDIS_URL, log);
  stack.push(() => bus.close());
  const service = new WalletService({
    store,
    index,
    bus,
    sealer,
    log,
    now,
    onValidation,
    allowPrivateWebhooks: settings.WEBHOOK_ALLOW_PRIVATE,
  });
  // The last uses noted while the listeners drained reach the database before it closes.
  stack.push(() => service.flushLastUsed().catch(() => undefined));
  // The gateways' key caches: every revocation (this replica's or, through the bus, another's) is passed on
  // to them, and the bus is acknowledged only once they have evicted the key or their leases have run out.
  const watchers = new KeyWatchers({
    leaseMs: KEY_LEASE_MS,
    now: () => performance.now(),
    onUsed: (uses) => {
      service.noteUsed(uses);
    },
    log,
  });
  bus.onRevoked((notice) => watchers.revoked(notice));
  // Revocations the bus did not deliver (Redis down, a subscriber reconnecting) are read from the database.
  // Created before loading: its first poll reads every revocation committed since.
  const reconciler = new RevocationReconciler({
    read: (since) => store.revokedSince(since),
    apply: (notice) => bus.applyLocally(notice),
    pollMs: settings.WALLET_REVOKED_POLL_MS,
    overlapMs: settings.WALLET_REVOKED_LOOKBACK_MS,
    now,
    log,
    onReconciled: settings.METRICS_ENABLED ? reconciledCounter(registry) : undefined,
  });
  return { service, bus, watchers, reconciler };
}

function reconciledCounter(registry: Registry): () => void {
  const reconciled = scrapeCounter({
    name: "wallet_revocations_reconciled_total",
    help: "Revocations this replica applied from its database poll because the bus had not delivered them.",
    label: "source",
    values: ["database"] as const,
    registers: [registry],
  });
  return () => {
    reconciled("database");
  };
}

/** The revocation poll and the periodic write of keys' last use. */
function startBackground(keys: Keys, log: Logger, stack: StopStack): void {
  keys.reconciler.start();
  stack.push(() => keys.reconciler.stop());
  const flusher = setInterval(() => {
    keys.service.flushLastUsed().catch((error: unknown) => {
      log.warn({ err: error }, "last-used flush failed");
    });
  }, LAST_USED_FLUSH_MS);
  flusher.unref();
  stack.push(() => {
    clearInterval(flusher);
  });
}

/**
 * The gRPC listener (wallet.v1, health, reflection); stopping ends the gateways' key watch streams, then drains
 * the calls in flight.
 */
async function startGrpc(
  settings: WalletSettings,
  log: Logger,
  { keys, registry, ready }: { keys: Keys; registry: Registry; ready: () => Promise<boolean> },
  stack: StopStack,
): Promise<{ grpcPort: number; health: StandardServices }> {
  const server = createWalletServer(keys.service, {
    internalToken: settings.INTERNAL_TOKEN,
    watchers: keys.watchers,
    onError: (method, error, requestId) => {
      log.error({ err: error, method, request_id: requestId }, "wallet call failed");
    },
    metrics: settings.METRICS_ENABLED ? new RpcMetrics(registry, "server") : undefined,
  });
  const health = addStandardServices(server, {
    definition: protoDefinition(WALLET_PROTOS),
    ready,
    internalToken: settings.INTERNAL_TOKEN,
  });
  const grpcPort = await bindServer(
    server,
    settings.HOST,
    settings.WALLET_GRPC_PORT,
    serverCredentials(settings.GRPC_TLS_CERT_FILE, settings.GRPC_TLS_KEY_FILE),
  );
  stack.push(async () => {
    keys.watchers.close();
    await shutdownServer(server, SHUTDOWN_GRACE_MS);
  });
  return { grpcPort, health };
}

// Handlers use the trace context only synchronously (up to their shard message or reply): no AsyncLocalStorage.
if (isEntryPoint(import.meta.url)) runService("wallet", loadWalletSettings, startWallet, { asyncContext: false });
