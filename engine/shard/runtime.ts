// The main thread's view of the shards: routes each account to the one thread that owns it, broadcasts
// market updates, turns shard failures into registry errors, and stops by draining every mailbox.
//
// Pinning and order: each shard is its own piscina pool of exactly one thread, so every task of a shard runs
// on that thread. Piscina posts tasks to the thread in the order `run` was called; when the thread is at
// `concurrentTasksPerWorker`, tasks wait in the pool's queue, and `stricterFIFO` puts a task it could not
// hand over back at the head instead of the tail. No task carries an AbortSignal (piscina runs abortable
// tasks alone and kills the thread to abort them).
//
// Hand-over: the requests of one event-loop turn go to a shard as one task (handover.ts).
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pg from "pg";
import { Piscina } from "piscina";
import { callDeadline } from "../../kernel/call-deadline.js";
import { DeadlineExceeded, ServiceError, errorText } from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
import { moduleExtension, siblingModule } from "../../kernel/module-file.js";
import { isUuid } from "../../kernel/uuid.js";
import type { OutboxRow } from "../store/journal.js";
import type { Fence } from "../store/leases.js";
import { migrateEngine } from "../store/schema.js";
import { engineOfPartition, partitionOf, partitionOfId, shardOfPartition } from "../../kernel/partition.js";
import { sampledTraceparent } from "../../kernel/tracing.js";
import type { CoreTypes } from "./core-contract.js";
import { ShardHandover } from "./handover.js";
import type { ShardNotice, ShardRequest, ShardResponse } from "./protocol.js";
import { isShardNotice } from "./protocol.js";
import type { ShardWorkerData } from "./worker.js";
import { Follower, ShardThreads, type Followed } from "./threads.js";

export type { Followed } from "./threads.js";

type CommandRequest<T extends CoreTypes> = Extract<ShardRequest<T>, { kind: "command" }>;
type QueryRequest<T extends CoreTypes> = Extract<ShardRequest<T>, { kind: "query" }>;
type CommandReply<T extends CoreTypes> = Extract<ShardResponse<T>, { kind: "commandReply" }>;
type QueryResult<T extends CoreTypes> = Extract<ShardResponse<T>, { kind: "queryResult" }>;

/** Optional observers (engine/metrics.ts exports them as Prometheus metrics). */
export interface ShardMetrics {
  /**
   * A shard's periodic stats notice: tallies of committed events, its batches since the last notice (mailbox
   * depth, messages and events per batch, commit time; folded in the thread), accounts per state, event-loop delay.
   */
  stats?(notice: Extract<ShardNotice, { kind: "stats" }>): void;
  /** Seconds from a request's call to its answer (turn's hand-over, mailbox wait, decision and commit included). */
  requestLatency?(shard: number, kind: ShardRequest["kind"], seconds: number): void;
  /** One piscina task handed to a shard, carrying the `requests` made to it in one event-loop turn. */
  handover?(shard: number, requests: number): void;
}

export interface StartShardsOptions<T extends CoreTypes> {
  /** Shard threads (ENGINE_SHARDS). */
  shards: number;
  databaseUrl: string;
  /** The module exporting `createCore` (an ActorCore per shard), loaded inside each shard thread. */
  coreModule: string | URL;
  log: Logger;
  /** The market view before the first update. */
  market?: T["market"];
  /** Handed to the core's `configure` in each shard thread (structured-cloneable); none when absent. */
  coreSettings?: unknown;
  /** A shard snapshots an account every this many of its events (docs/engine.md, "Snapshots"); never when absent. */
  snapshotEvery?: number;
  metrics?: ShardMetrics;
  /** Most messages in one batch (one transaction). Default 1024. */
  maxBatch?: number;
  /** Tasks (one per event-loop turn with requests for the shard) handed to its thread before piscina queues them. Default 4096. */
  inFlightPerShard?: number;
  /** Apply the engine's migrations first. Default true. */
  migrate?: boolean;
  /** Milliseconds between a shard's stats notices (when `metrics` is given). Default 5000. */
  statsIntervalMs?: number;
  /** This engine's index and the number of engines (docs/scale-out.md); default 0 of 1. */
  engine?: number;
  engines?: number;
  /** The partition leases every journal append must still hold; unfenced when absent (tests). */
  fence?: Fence;
  /** False while this engine may not serve (its leases are not known to hold): calls fail engine_not_serving. */
  serving?: () => boolean;
  /**
   * Longest a shard waits for the database (a connection, an append, an account's reload) before the batch
   * fails with engine_unavailable (ENGINE_DB_TIMEOUT_MS); unbounded when absent. The rebuild at start is not
   * bounded.
   */
  dbTimeoutMs?: number;
  /** Committed outbox rows of watched accounts (`watch`), and watched accounts whose commit failed. */
  outbox?: OutboxListener;
  /**
   * A standby's shards (docs/scale-out.md, "Standbys"): rebuilt, they follow the journal every `everyMs` and
   * decide nothing until `serve`; `fence` is then the one `serve` brings.
   */
  follow?: { everyMs: number; onStep?: (followed: Followed) => void };
}

export interface OutboxListener {
  committed(rows: readonly OutboxRow[]): void;
  uncertain(accounts: readonly string[]): void;
}

export interface MarketApplied {
  /** Accounts marked, over all shards. */
  accounts: number;
  events: number;
  /** Accounts whose `onMarket` threw (logged by their shard). */
  faults: number;
}

export interface ShardRuntime<T extends CoreTypes> {
  readonly shards: number;
  /** Decides `command` on its account's thread; resolves with the reply after its events committed. */
  command(accountId: string, command: T["command"]): Promise<T["reply"]>;
  /** Reads the account on its thread, after every earlier message to that shard. */
  query(accountId: string, query: T["query"]): Promise<T["queryResult"]>;
  /** `command` for the account an id belongs to (an id made addressable by `core.keys`); not_found if none. */
  commandByKey(key: string, command: T["command"]): Promise<T["reply"]>;
  /** `query` for the account an id belongs to; not_found if no account in memory holds the id. */
  queryByKey(key: string, query: T["query"]): Promise<T["queryResult"]>;
  /** Sends the update to every shard; resolves once every shard applied it and committed the events. */
  market(update: T["update"]): Promise<MarketApplied>;
  /**
   * Starts (`on`) or stops one watch of the account on its shard: while it has any, the shard posts the
   * account's outbox rows as each batch commits (to `outbox`). Resolves once the shard took it.
   */
  watch(accountId: string, on: boolean): Promise<void>;
  /** Refuses new calls (engine_not_serving), answers (commits) everything already sent, ends the threads. Idempotent. */
  stop(): Promise<void>;
  /**
   * A following runtime (`follow`): stops following, applies every event the journal holds beyond the shards'
   * memory (exactly), and serves with appends fenced by `fence`. Call it once the leases are held.
   */
  serve(fence: Fence): Promise<Followed>;
}

/**
 * The shard thread's entry. Compiled, worker.js itself; from the sources, worker.mjs, which registers tsx in the
 * thread (a thread does not inherit the process's loader) and then imports worker.ts.
 */
const WORKER_FILE =
  moduleExtension(import.meta.url) === ".ts"
    ? fileURLToPath(new URL("./worker.mjs", import.meta.url))
    : siblingModule(import.meta.url, "./worker");

/** Canonical account id (lower-case UUID), or invalid_payload. */
export function accountKey(accountId: string): string {
  const key = accountId.toLowerCase();
  if (!isUuid(key)) throw ServiceError.invalid([{ path: "account_id", message: "must be a UUID" }]);
  return key;
}

/** The engine's place among the engines and its batch size, checked. */
interface Placement {
  shards: number;
  engine: number;
  engines: number;
  maxBatch: number;
}

function placementOf(options: StartShardsOptions<CoreTypes>): Placement {
  const shards = options.shards;
  if (!Number.isInteger(shards) || shards < 1) throw new Error(`shards must be a positive integer: ${shards}`);
  const engine = options.engine ?? 0;
  const engines = options.engines ?? 1;
  if (!Number.isInteger(engines) || engines < 1 || !Number.isInteger(engine) || engine < 0 || engine >= engines) {
    throw new Error(`engine must be an index below engines: ${engine} of ${engines}`);
  }
  const maxBatch = options.maxBatch ?? 1024;
  if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new Error(`maxBatch must be a positive integer: ${maxBatch}`);
  return { shards, engine, engines, maxBatch };
}

async function migrate(databaseUrl: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    await migrateEngine(pool);
  } finally {
    await pool.end();
  }
}

/** The core module as the file: URL a shard thread imports. */
function coreModuleHref(coreModule: string | URL): string {
  if (coreModule instanceof URL) return coreModule.href;
  return coreModule.startsWith("file:") ? coreModule : pathToFileURL(path.resolve(coreModule)).href;
}

/** One piscina pool of exactly one thread per shard, passing the shard's log lines and stats notices on. */
function startPools(
  options: StartShardsOptions<CoreTypes>,
  placement: Placement,
  following: { now: boolean },
): Piscina[] {
  const { log, metrics } = options;
  const { shards, engine, engines, maxBatch } = placement;
  const coreModule = coreModuleHref(options.coreModule);
  return Array.from({ length: shards }, (_, shard) => {
    const workerData: ShardWorkerData = {
      shard,
      shards,
      engine,
      engines,
      fence: options.fence,
      following: options.follow !== undefined,
      databaseUrl: options.databaseUrl,
      coreModule,
      maxBatch,
      poolSize: 1,
      dbTimeoutMs: options.dbTimeoutMs,
      notices: metrics !== undefined,
      statsIntervalMs: options.statsIntervalMs ?? 5_000,
      market: options.market,
      coreSettings: options.coreSettings,
      snapshotEvery: options.snapshotEvery,
    };
    const pool = new Piscina({
      filename: WORKER_FILE,
      name: "handle",
      minThreads: 1,
      maxThreads: 1,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: options.inFlightPerShard ?? 4096,
      stricterFIFO: true,
      // The thread does async I/O between tasks: never park it in Atomics.wait.
      atomics: "disabled",
      recordTiming: false,
      // Every order and fill stays in the actor's memory: a larger young generation halves GC time.
      resourceLimits: { maxYoungGenerationSizeMb: 64 },
      workerData,
    });
    pool.on("message", (message: unknown) => {
      if (!isShardNotice(message)) return;
      if (message.kind === "log") {
        log[message.level]({ shard: message.shard, ...message.fields }, message.message);
        return;
      }
      if (message.kind === "outbox") {
        options.outbox?.committed(message.rows);
        return;
      }
      if (message.kind === "outboxUncertain") {
        options.outbox?.uncertain(message.accounts);
        return;
      }
      // A following shard's figures (no batches; the accounts of an index this engine may never serve) stay out
      // of the engine's metrics until it serves.
      if (!following.now) metrics?.stats?.(message);
    });
    pool.on("error", (error: unknown) => {
      log.error({ shard, err: errorText(error) }, "shard thread failed");
    });
    return pool;
  });
}

/** Starts the shard threads, each rebuilt from the journal before this resolves. */
export async function startShards<T extends CoreTypes>(options: StartShardsOptions<T>): Promise<ShardRuntime<T>> {
  const placement = placementOf(options);
  if (options.migrate ?? true) await migrate(options.databaseUrl);
  const following = { now: options.follow !== undefined };
  const pools = startPools(options, placement, following);
  const { log, metrics } = options;
  const handover = new ShardHandover<T>({
    pools,
    log,
    requestLatency: metrics?.requestLatency?.bind(metrics),
    handover: metrics?.handover?.bind(metrics),
  });
  const threads = new ShardThreads(handover, pools, log);
  await threads.start();
  const follower = options.follow === undefined ? undefined : new Follower(handover, placement.shards, log);
  if (follower !== undefined && options.follow !== undefined) follower.start(options.follow);
  const runtime = runtimeOf(handover, placement, options.serving ?? (() => true), async () => {
    await follower?.stop();
    await threads.stop();
  });
  return {
    ...runtime,
    async serve(fence) {
      if (follower === undefined) throw new Error("these shards serve already");
      // A thread piscina starts in place of a failed one serves from its start, with this fence (set before the
      // serve requests: one started in between rebuilds under the leases already held, and answers its serve).
      for (const pool of pools) Object.assign(pool.options.workerData as ShardWorkerData, { following: false, fence });
      const followed = await follower.serve(fence);
      following.now = false;
      return followed;
    },
  };
}

/** The shard of this engine serving a partition; engine_not_serving (nothing ran) when another engine owns it. */
function shardOwning(partition: number, placement: Placement): number {
  const { shards, engine, engines } = placement;
  if (engineOfPartition(partition, engines) !== engine) {
    throw new ServiceError("engine_not_serving", {}, `partition ${partition} is not owned by engine ${engine}`);
  }
  return shardOfPartition(partition, shards, engines);
}

/** A market update to every shard; resolves with the sums once every shard applied it. */
async function broadcastMarket<T extends CoreTypes>(
  handover: ShardHandover<T>,
  shards: number,
  update: T["update"],
): Promise<MarketApplied> {
  const applied = await Promise.all(
    Array.from({ length: shards }, (_, shard) =>
      handover.send(shard, { kind: "market", requestId: handover.requestId(), update }),
    ),
  );
  return applied.reduce<MarketApplied>(
    (sum, a) => ({ accounts: sum.accounts + a.accounts, events: sum.events + a.events, faults: sum.faults + a.faults }),
    { accounts: 0, events: 0, faults: 0 },
  );
}

/** The runtime's calls over started shards: commands and queries routed to their account's shard. */
function runtimeOf<T extends CoreTypes>(
  handover: ShardHandover<T>,
  placement: Placement,
  serving: () => boolean,
  stopShards: () => Promise<void>,
): Omit<ShardRuntime<T>, "serve"> {
  const { shards } = placement;
  let stopping: Promise<void> | undefined;
  // A call refused here was not queued: it did not run (docs/scale-out.md, "Hand-over").
  const refuseWhenStopping = (): void => {
    if (stopping !== undefined) throw new ServiceError("engine_not_serving", {}, "engine draining");
  };

  /**
   * The one routing of commands and queries: to the shard of the partition its address names, when this engine
   * owns and serves it (engine_not_serving otherwise, before anything ran), with the caller's trace context and
   * deadline (kernel/call-deadline.ts). A call that arrives past its deadline is not queued at all.
   */
  function route(request: CommandRequest<T>, partition: number): Promise<CommandReply<T>>;
  function route(request: QueryRequest<T>, partition: number): Promise<QueryResult<T>>;
  function route(request: CommandRequest<T> | QueryRequest<T>, partition: number): Promise<ShardResponse<T>> {
    const traceparent = sampledTraceparent();
    if (traceparent !== undefined) request.traceparent = traceparent;
    const shard = shardOwning(partition, placement);
    if (!serving()) throw new ServiceError("engine_not_serving", {}, "partition leases not held");
    const deadline = callDeadline();
    if (deadline !== undefined) {
      if (Date.now() >= deadline)
        throw new DeadlineExceeded("engine", `deadline passed before the ${request.kind} was queued`);
      request.deadline = deadline;
    }
    return handover.send<"command" | "query">(shard, request);
  }

  return {
    shards,
    async command(accountId, command) {
      refuseWhenStopping();
      const key = accountKey(accountId);
      const to = { accountId: key };
      return (await route({ kind: "command", requestId: handover.requestId(), to, command }, partitionOf(key))).reply;
    },
    async commandByKey(key, command) {
      refuseWhenStopping();
      const id = key.toLowerCase();
      const partition = partitionOfId(id);
      if (partition === undefined) throw new ServiceError("not_found");
      const to = { key: id };
      return (await route({ kind: "command", requestId: handover.requestId(), to, command }, partition)).reply;
    },
    async queryByKey(key, query) {
      refuseWhenStopping();
      const id = key.toLowerCase();
      const partition = partitionOfId(id);
      if (partition === undefined) throw new ServiceError("not_found");
      return (await route({ kind: "query", requestId: handover.requestId(), to: { key: id }, query }, partition))
        .result;
    },
    async query(accountId, query) {
      refuseWhenStopping();
      const key = accountKey(accountId);
      const to = { accountId: key };
      return (await route({ kind: "query", requestId: handover.requestId(), to, query }, partitionOf(key))).result;
    },
    market(update) {
      refuseWhenStopping();
      return broadcastMarket(handover, shards, update);
    },
    async watch(accountId, on) {
      refuseWhenStopping();
      const key = accountKey(accountId);
      const request = { kind: "watch" as const, requestId: handover.requestId(), accountId: key, on };
      await handover.send(shardOwning(partitionOf(key), placement), request);
    },
    stop() {
      stopping ??= stopShards();
      return stopping;
    },
  };
}
