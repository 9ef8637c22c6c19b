// The engine process: parses its settings, serves engine.v1 over gRPC on HOST:ENGINE_GRPC_PORT and
// /healthz, /readyz, /metrics on ENGINE_METRICS_PORT, and drains both on SIGINT/SIGTERM.
// `startEngine` starts the same thing in-process for tests and the all-in-one supervisor.
import { pathToFileURL } from "node:url";
import { ConfigError } from "../kernel/config.js";
import { bindServer, shutdownServer } from "../kernel/grpc.js";
import { createLogger, type Logger } from "../kernel/log.js";
import { createRegistry, startAdminServer } from "../kernel/metrics.js";
import { PLANS } from "./accounts/plans.js";
import { loadEngineSettings, type EngineSettings } from "./config.js";
import { CATALOGUE } from "./market/catalogue.js";
import { staticPriceSource, type PriceSource } from "./market/prices.js";
import { createEngineServer } from "./server.js";

/** How long in-flight calls may run after a stop request before they are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningEngine {
  grpcPort: number;
  adminPort: number;
  /** Stops accepting calls, drains in-flight ones, closes the admin listener. Safe to call twice. */
  stop(): Promise<void>;
}

export interface EngineOverrides {
  now?: () => number;
  prices?: PriceSource;
}

/** Starts the engine's listeners in this process; ports of 0 pick free ones (see the returned ports). */
export async function startEngine(
  settings: EngineSettings,
  log: Logger,
  overrides: EngineOverrides = {},
): Promise<RunningEngine> {
  const registry = createRegistry("engine");
  const server = createEngineServer({
    catalogue: CATALOGUE,
    plans: PLANS,
    prices: overrides.prices ?? staticPriceSource(CATALOGUE),
    now: overrides.now ?? Date.now,
    internalToken: settings.INTERNAL_TOKEN,
    log,
  });
  const grpcPort = await bindServer(server, settings.HOST, settings.ENGINE_GRPC_PORT);
  const admin = await startAdminServer(registry, settings.HOST, settings.ENGINE_METRICS_PORT, () =>
    Promise.resolve(true),
  ).catch((error: unknown) => {
    server.forceShutdown();
    throw error;
  });
  let stopping: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    await shutdownServer(server, SHUTDOWN_GRACE_MS);
    await admin.close();
  };
  return {
    grpcPort,
    adminPort: admin.port,
    stop: () => (stopping ??= stop()),
  };
}

async function main(): Promise<void> {
  let settings: EngineSettings;
  try {
    settings = loadEngineSettings(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`engine: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const log = createLogger("engine", settings.LOG_LEVEL);
  const engine = await startEngine(settings, log);
  log.info(
    {
      host: settings.HOST,
      grpcPort: engine.grpcPort,
      adminPort: engine.adminPort,
      priceFeed: settings.PRICE_FEED,
      shards: settings.ENGINE_SHARDS,
    },
    "engine listening",
  );
  const onSignal = (signal: NodeJS.Signals): void => {
    log.info({ signal }, "engine stopping");
    engine.stop().then(
      () => {
        log.info("engine stopped");
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, "engine stop failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `engine: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
