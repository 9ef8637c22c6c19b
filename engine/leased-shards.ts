// The engine's shard threads on the partitions it holds leases for (docs/scale-out.md): an owner waits for
// ENGINE_INDEX's leases; a standby (ENGINE_ROLE=standby) waits for any dead engine's index and takes it whole
// (engine/store/standby.ts), then is that engine: its shards followed every index's journal meanwhile, and those
// of the index taken read what they had not yet and serve. Either way the leases are kept by
// engine/store/lease-keeper.ts, the shards' appends are fenced by them, and a stop hands the partitions over
// (drain, then release).
import { randomUUID } from "node:crypto";
import type { Registry } from "prom-client";
import type { Database } from "../kernel/db.js";
import type { Logger } from "../kernel/log.js";
import { partitionsOfEngine } from "../kernel/partition.js";
import type { ActorLimits } from "./accounts/limits.js";
import { EngineRole, type EngineSettings } from "./config.js";
import { engineMetrics, handoverMetrics, standbyMetrics, takeoverMetrics, type StandbyFollowing } from "./metrics.js";
import {
  startShards,
  type OutboxListener,
  type ShardMetrics,
  type ShardRuntime,
  type StartShardsOptions,
} from "./shard/runtime.js";
import { holdPartitions, type HeldPartitions } from "./store/lease-keeper.js";
import { PartitionLeases } from "./store/leases.js";
import { migrateEngine } from "./store/schema.js";
import { takeDeadIndex, type TakenIndex } from "./store/standby.js";
import { siblingModule } from "../kernel/module-file.js";
import type { EngineTypes } from "./trading-core.js";

const ACTOR_MODULE = siblingModule(import.meta.url, "./trading-core");

export interface LeasedShards {
  runtime: ShardRuntime<EngineTypes>;
  owner: string;
  /** The engine index served: ENGINE_INDEX, or the one a standby took. */
  index: number;
  serving(): boolean;
  /** Stops the shards, then releases their partitions (only once the shards stopped writing). Idempotent. */
  stop: () => Promise<void>;
  /** Once the engine listens: a standby logs (and counts) its take-over; an owner does nothing. */
  listening(): void;
}

/** The partitions to hold: ENGINE_INDEX's, or (a standby) a dead engine's index taken whole. */
async function claim(
  settings: EngineSettings,
  db: Database,
  log: Logger,
  signal: AbortSignal,
): Promise<{ owner: string; index: number; partitions: number[]; taken?: TakenIndex }> {
  if (settings.ENGINE_ROLE !== EngineRole.standby) {
    const index = settings.ENGINE_INDEX;
    return {
      owner: `engine-${index}-${randomUUID()}`,
      index,
      partitions: partitionsOfEngine(index, settings.ENGINE_COUNT),
    };
  }
  const owner = `engine-standby-${randomUUID()}`;
  const taken = await takeDeadIndex(
    {
      leases: new PartitionLeases(db.pool, owner, settings.ENGINE_LEASE_TTL_MS),
      engines: settings.ENGINE_COUNT,
      pollMs: settings.ENGINE_LEASE_POLL_MS,
      log,
      now: () => performance.now(),
    },
    signal,
  );
  log.info(
    { owner, engine: taken.index, waitedMs: Math.round(taken.waitedMs), lapsedMs: Math.round(taken.lapsedMs) },
    "standby took the partition leases of a dead engine; catching up with its journal",
  );
  return { owner, index: taken.index, partitions: taken.partitions, taken };
}

/** The partitions claimed (ENGINE_INDEX's, or a dead engine's index a standby took), each lease held. */
async function claimAndHold(
  settings: EngineSettings,
  parts: { db: Database; log: Logger; signal: AbortSignal },
  onLost: () => void,
): Promise<Awaited<ReturnType<typeof claim>> & { held: HeldPartitions; tookAt: number }> {
  const { db, log, signal } = parts;
  const claimed = await claim(settings, db, log, signal);
  const tookAt = performance.now();
  const held = await holdPartitions(
    {
      leases: new PartitionLeases(db.pool, claimed.owner, settings.ENGINE_LEASE_TTL_MS),
      partitions: claimed.partitions,
      ttlMs: settings.ENGINE_LEASE_TTL_MS,
      renewMs: settings.ENGINE_LEASE_RENEW_MS,
      pollMs: settings.ENGINE_LEASE_POLL_MS,
      log,
      now: () => performance.now(),
      onLost,
      ...(claimed.taken === undefined ? {} : { taken: claimed.taken.epochs }),
    },
    signal,
  );
  return { ...claimed, held, tookAt };
}

/**
 * The shard threads on the partitions this engine holds. Every partition is leased before it is loaded; a live
 * lease of another engine is waited out, never taken. The shards' appends are fenced by these leases.
 */
export async function startLeasedShards(
  settings: EngineSettings,
  parts: {
    db: Database;
    registry: Registry;
    log: Logger;
    outbox: OutboxListener;
    /** Gives up waiting for the leases (a SIGTERM while waiting): the start rejects. */
    signal: AbortSignal;
  },
  onLost: () => void,
): Promise<LeasedShards> {
  const { db, registry, log, outbox } = parts;
  await migrateEngine(db.pool);
  const metrics = settings.METRICS_ENABLED ? engineMetrics(registry, settings.ENGINE_SHARDS) : undefined;
  // Declared on every engine (an owner follows nothing), so the dashboard's standby panel reads every instance.
  const following = settings.METRICS_ENABLED ? standbyMetrics(registry, settings.ENGINE_COUNT) : undefined;
  const taking: { held?: HeldPartitions } = {};
  // A standby's shards follow every index it may take from the start (hot); they serve the one it takes.
  const standby =
    settings.ENGINE_ROLE === EngineRole.standby
      ? await startStandby(
          settings,
          { db, metrics, standby: following, log, outbox },
          () => taking.held?.serving() ?? false,
        )
      : undefined;
  const { owner, index, partitions, taken, held, tookAt } = await claimAndHold(settings, parts, onLost).catch(
    async (error: unknown) => {
      await standby?.stop();
      throw error;
    },
  );
  standby?.took();
  taking.held = held;
  const engine = { ...settings, ENGINE_INDEX: index };
  // Shards that failed to start may have written: their leases are left to expire, never released.
  const runtime = await (
    standby === undefined
      ? startShards<EngineTypes>({ ...shardOptions(engine, db, metrics, log, held), outbox })
      : serveTaken(standby.followers, index, held, log)
  ).catch((error: unknown) => {
    held.abandon();
    throw error;
  });
  const handovers = settings.METRICS_ENABLED ? handoverMetrics(registry) : undefined;
  let stopping: Promise<void> | undefined;
  const handOver = (): Promise<void> => handOverShards({ runtime, held, owner, partitions, log }, handovers);
  // Declared on every engine (an owner shows none), so the dashboard's take-over panel reads every instance.
  const takeovers = settings.METRICS_ENABLED ? takeoverMetrics(registry, settings.ENGINE_COUNT) : undefined;
  return {
    runtime,
    owner,
    index,
    serving: held.serving,
    stop() {
      stopping ??= handOver();
      return stopping;
    },
    listening() {
      if (taken === undefined) return;
      const rebuildMs = performance.now() - tookAt;
      log.info(
        { owner, engine: index, rebuildMs: Math.round(rebuildMs), takeoverMs: Math.round(taken.lapsedMs + rebuildMs) },
        "standby took over engine",
      );
      takeovers?.({
        index,
        seconds: (taken.lapsedMs + rebuildMs) / 1000,
        rebuildSeconds: rebuildMs / 1000,
        waitedSeconds: taken.waitedMs / 1000,
      });
    },
  };
}

/** A stop's hand-over: the shards drain, then the leases are released (only once the shards stopped writing). */
async function handOverShards(
  parts: { runtime: ShardRuntime<EngineTypes>; held: HeldPartitions; owner: string; partitions: number[]; log: Logger },
  handovers: ((partitions: number, seconds: number) => void) | undefined,
): Promise<void> {
  const { runtime, held, owner, partitions, log } = parts;
  const started = performance.now();
  await runtime.stop();
  await held.release();
  log.info(
    { owner, partitions: partitions.length, ms: Math.round(performance.now() - started) },
    "partitions handed over: shards drained, leases released",
  );
  handovers?.(partitions.length, (performance.now() - started) / 1000);
}

/** What a standby's following shards are made of. */
interface FollowerParts {
  db: Database;
  metrics: ShardMetrics | undefined;
  standby: StandbyFollowing | undefined;
  log: Logger;
  outbox: OutboxListener;
}

/** A standby's following shards, with its metrics: `took` once it took an index, `stop` when it gives up. */
async function startStandby(
  settings: EngineSettings,
  parts: FollowerParts,
  serving: () => boolean,
): Promise<{ followers: ShardRuntime<EngineTypes>[]; took(): void; stop(): Promise<void> }> {
  const { standby } = parts;
  const followers = await startFollowers(settings, parts, serving);
  const took = (): void => {
    for (let index = 0; index < followers.length; index++) standby?.following(index, false);
  };
  return {
    followers,
    took,
    async stop() {
      took();
      await stopAll(followers);
    },
  };
}

/**
 * A standby's shards on every index it may take, each rebuilt and following the journal (docs/scale-out.md,
 * "Standbys"). They refuse every call until one serves: `serving` says when.
 */
async function startFollowers(
  settings: EngineSettings,
  parts: FollowerParts,
  serving: () => boolean,
): Promise<ShardRuntime<EngineTypes>[]> {
  const { db, metrics, standby, log, outbox } = parts;
  const started = performance.now();
  const followers = await Promise.allSettled(
    Array.from({ length: settings.ENGINE_COUNT }, (_, index) =>
      startShards<EngineTypes>({
        ...shardOptions({ ...settings, ENGINE_INDEX: index }, db, metrics, log, { serving }),
        outbox,
        follow: {
          everyMs: settings.ENGINE_STANDBY_FOLLOW_MS,
          onStep: (step) => standby?.stepped(index, step.events),
        },
      }),
    ),
  );
  const runtimes = followers.flatMap((f) => (f.status === "fulfilled" ? [f.value] : []));
  const failed = followers.find((f) => f.status === "rejected");
  if (failed !== undefined) {
    await stopAll(runtimes);
    throw failed.reason;
  }
  for (let index = 0; index < runtimes.length; index++) standby?.following(index, true);
  log.info(
    { engines: settings.ENGINE_COUNT, ms: Math.round(performance.now() - started) },
    "standby follows the journal of every engine",
  );
  return runtimes;
}

/** The taken index's following shards serve (after reading what they had not yet); the others stop. */
async function serveTaken(
  followers: ShardRuntime<EngineTypes>[],
  index: number,
  held: HeldPartitions,
  log: Logger,
): Promise<ShardRuntime<EngineTypes>> {
  const runtime = followers[index];
  const others = followers.filter((_, k) => k !== index);
  if (runtime === undefined) {
    await stopAll(followers);
    throw new Error(`no following shards for engine ${index}`);
  }
  const stopped = stopAll(others);
  try {
    const caughtUp = await runtime.serve(held.fence);
    log.info({ engine: index, ...caughtUp }, "standby caught up with the journal of the engine it took");
    return runtime;
  } catch (error) {
    await runtime.stop();
    throw error;
  } finally {
    await stopped;
  }
}

async function stopAll(runtimes: readonly ShardRuntime<EngineTypes>[]): Promise<void> {
  await Promise.allSettled(runtimes.map((runtime) => runtime.stop()));
}

function shardOptions(
  settings: EngineSettings,
  db: Database,
  metrics: ShardMetrics | undefined,
  log: Logger,
  held: Partial<Pick<HeldPartitions, "fence">> & Pick<HeldPartitions, "serving">,
): StartShardsOptions<EngineTypes> {
  return {
    shards: settings.ENGINE_SHARDS,
    databaseUrl: db.url,
    coreModule: ACTOR_MODULE,
    log,
    ...(metrics === undefined ? {} : { metrics, statsIntervalMs: settings.ENGINE_STATS_INTERVAL_MS }),
    migrate: false,
    engine: settings.ENGINE_INDEX,
    engines: settings.ENGINE_COUNT,
    ...(held.fence === undefined ? {} : { fence: held.fence }),
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
  };
}
