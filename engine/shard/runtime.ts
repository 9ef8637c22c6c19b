// The main thread's view of the shards: routes each account to the one thread that owns it, broadcasts
// market updates, turns shard failures into registry errors, and stops by draining every mailbox.
//
// Pinning and order: each shard is its own piscina pool of exactly one thread, so every task of a shard runs
// on that thread. Piscina posts tasks to the thread in the order `run` was called; when the thread is at
// `concurrentTasksPerWorker`, tasks wait in the pool's queue, and `stricterFIFO` puts a task it could not
// hand over back at the head instead of the tail. No task carries an AbortSignal (piscina runs abortable
// tasks alone and kills the thread to abort them).
//
// Hand-over: the requests to a shard wait in its queue until the end of the event-loop turn (`setImmediate`,
// after the turn's I/O callbacks: gRPC delivers many calls per socket read, each reaching us after a few
// promise hops, which a microtask flush would hand over one by one), then go as one task and come back as one
// result: one structured clone each way per turn, not per request. Every request goes through the queue
// (start, market and stop too), so a shard sees them in the order they were made.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pg from "pg";
import { Piscina } from "piscina";
import { ServiceError, errorText } from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
import { isUuid } from "../../kernel/uuid.js";
import type { Fence } from "../store/leases.js";
import { migrateEngine } from "../store/schema.js";
import type { CoreTypes } from "./actor.js";
import { engineOfPartition, partitionOf, partitionOfId, shardOfPartition } from "../../kernel/partition.js";
import type {
  ResponseKindOf,
  ShardNotice,
  ShardRequest,
  ShardResponse,
  ShardTask,
  ShardTaskResult,
} from "./protocol.js";
import { isShardNotice } from "./protocol.js";
import type { ShardWorkerData } from "./worker.js";
import { sampledTraceparent } from "../../kernel/tracing.js";

type CommandRequest<T extends CoreTypes> = Extract<ShardRequest<T>, { kind: "command" }>;
type QueryRequest<T extends CoreTypes> = Extract<ShardRequest<T>, { kind: "query" }>;

/** Optional observers (issue 6 exports them as Prometheus metrics). */
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
  /** The module exporting `core` (an ActorCore), loaded inside each shard thread. */
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
  /** False while this engine may not serve (its leases are not known to hold): calls fail engine_unavailable. */
  serving?: () => boolean;
  /**
   * Longest a shard waits for the database (a connection, an append, an account's reload) before the batch
   * fails with engine_unavailable (ENGINE_DB_TIMEOUT_MS); unbounded when absent. The rebuild at start is not
   * bounded.
   */
  dbTimeoutMs?: number;
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
  /** Sends the update to every shard; resolves once every shard applied it and committed the events. */
  market(update: T["update"]): Promise<MarketApplied>;
  /** Refuses new calls, answers everything already sent, closes the shards' pools and threads. Idempotent. */
  stop(): Promise<void>;
}

const WORKER_FILE = fileURLToPath(new URL("./worker.mjs", import.meta.url));

/** Canonical account id (lower-case UUID), or invalid_payload. */
export function accountKey(accountId: string): string {
  const key = accountId.toLowerCase();
  if (!isUuid(key)) throw ServiceError.invalid([{ path: "account_id", message: "must be a UUID" }]);
  return key;
}

/** A request waiting in its shard's queue, then for the answer of the task that carried it. */
interface Waiting<T extends CoreTypes> {
  request: ShardRequest<T>;
  resolve: (response: ShardResponse<T>) => void;
  reject: (error: unknown) => void;
  /** performance.now() at the call (0 when request latency is not observed). */
  started: number;
}

/** Starts the shard threads, each rebuilt from the journal before this resolves. */
export async function startShards<T extends CoreTypes>(options: StartShardsOptions<T>): Promise<ShardRuntime<T>> {
  const { shards, log, metrics } = options;
  if (!Number.isInteger(shards) || shards < 1) throw new Error(`shards must be a positive integer: ${shards}`);
  const engine = options.engine ?? 0;
  const engines = options.engines ?? 1;
  if (!Number.isInteger(engines) || engines < 1 || !Number.isInteger(engine) || engine < 0 || engine >= engines) {
    throw new Error(`engine must be an index below engines: ${engine} of ${engines}`);
  }
  const serving = options.serving ?? (() => true);
  const maxBatch = options.maxBatch ?? 1024;
  if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new Error(`maxBatch must be a positive integer: ${maxBatch}`);
  if (options.migrate ?? true) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 1 });
    try {
      await migrateEngine(pool);
    } finally {
      await pool.end();
    }
  }
  const coreModule =
    options.coreModule instanceof URL
      ? options.coreModule.href
      : options.coreModule.startsWith("file:")
        ? options.coreModule
        : pathToFileURL(path.resolve(options.coreModule)).href;
  const notices = metrics !== undefined;
  const pools = Array.from({ length: shards }, (_, shard) => {
    const workerData: ShardWorkerData = {
      shard,
      shards,
      engine,
      engines,
      fence: options.fence,
      databaseUrl: options.databaseUrl,
      coreModule,
      maxBatch,
      poolSize: 1,
      dbTimeoutMs: options.dbTimeoutMs,
      notices,
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
      metrics?.stats?.(message);
    });
    pool.on("error", (error: unknown) => {
      log.error({ shard, err: errorText(error) }, "shard thread failed");
    });
    return pool;
  });

  const requestLatency = metrics?.requestLatency?.bind(metrics);
  const handover = metrics?.handover?.bind(metrics);
  let nextRequestId = 1;
  let stopping: Promise<void> | undefined;
  /** Per shard, the requests of this event-loop turn, in call order. */
  const queues: Waiting<T>[][] = pools.map(() => []);

  /** Answers each request of a task from its result: `failed` rejects that request only. */
  const answer = (shard: number, waiting: readonly Waiting<T>[], result: ShardTaskResult<T>): void => {
    const now = requestLatency === undefined ? 0 : performance.now();
    waiting.forEach((item, index) => {
      const response = result.responses[index];
      if (response?.requestId !== item.request.requestId) {
        item.reject(new Error(`shard ${shard} answered request ${response?.requestId} to ${item.request.requestId}`));
        return;
      }
      requestLatency?.(shard, item.request.kind, (now - item.started) / 1000);
      if (response.kind === "failed") {
        item.reject(new ServiceError(response.error.code, response.error.fields, response.error.message));
      } else item.resolve(response);
    });
  };

  /** Hands a shard's queued requests over as one task. */
  const flush = (shard: number): void => {
    const pool = pools[shard];
    const waiting = queues[shard];
    if (pool === undefined || waiting === undefined || waiting.length === 0) return;
    queues[shard] = [];
    handover?.(shard, waiting.length);
    const task: ShardTask<T> = { kind: "requests", requests: waiting.map((item) => item.request) };
    (pool.run(task) as Promise<ShardTaskResult<T>>)
      .then((result) => {
        answer(shard, waiting, result);
      })
      .catch((error: unknown) => {
        // The thread died (or the task could not be handed over, or answering it threw): no request may be
        // left waiting; rejecting one that was already answered does nothing.
        log.error({ shard, requests: waiting.length, err: errorText(error) }, "shard task failed");
        for (const item of waiting) item.reject(new ServiceError("engine_error", {}, "shard unavailable"));
      });
  };

  /** Queues a request for the shard's next hand-over; resolves with its answer (rejects with `failed`'s error). */
  function send<K extends ShardRequest["kind"]>(
    shard: number,
    request: Extract<ShardRequest<T>, { kind: K }>,
  ): Promise<Extract<ShardResponse<T>, { kind: ResponseKindOf[K] }>> {
    const queue = queues[shard];
    if (queue === undefined) return Promise.reject(new Error(`no shard ${shard}`));
    return new Promise((resolve, reject) => {
      queue.push({
        request,
        // The shard answers a request of kind K with ResponseKindOf[K] (or `failed`, rejected in `answer`).
        resolve: resolve as (response: ShardResponse<T>) => void,
        reject,
        started: requestLatency === undefined ? 0 : performance.now(),
      });
      if (queue.length === 1) setImmediate(flush, shard);
    });
  }

  const refuseWhenStopping = (): void => {
    if (stopping !== undefined) throw new ServiceError("engine_error", {}, "engine stopping");
  };

  /** The shard of a partition this engine owns and serves; engine_unavailable otherwise (a stale route). */
  const shardServing = (partition: number): number => {
    if (engineOfPartition(partition, engines) !== engine) {
      throw new ServiceError("engine_unavailable", {}, `partition ${partition} is not owned by engine ${engine}`);
    }
    if (!serving()) throw new ServiceError("engine_unavailable", {}, "partition leases not held");
    return shardOfPartition(partition, shards, engines);
  };

  try {
    const started = await Promise.all(
      pools.map((_, shard) => send(shard, { kind: "start", requestId: nextRequestId++ })),
    );
    for (const s of started) {
      log.info({ shard: s.shard, threadId: s.threadId, accounts: s.accounts, events: s.events }, "shard started");
    }
  } catch (error) {
    await Promise.allSettled(pools.map((pool) => pool.destroy()));
    throw error;
  }

  const stop = async (): Promise<void> => {
    // `stop` is queued behind everything already sent: when it answers, every earlier message was answered.
    const results = await Promise.allSettled(
      pools.map((_, shard) => send(shard, { kind: "stop", requestId: nextRequestId++ })),
    );
    results.forEach((result, shard) => {
      if (result.status === "rejected")
        log.warn({ shard, err: errorText(result.reason) }, "shard did not stop cleanly");
    });
    await Promise.allSettled(pools.map((pool) => pool.close()));
  };

  return {
    shards,
    async command(accountId, command) {
      refuseWhenStopping();
      const key = accountKey(accountId);
      const request: CommandRequest<T> = {
        kind: "command",
        requestId: nextRequestId++,
        to: { accountId: key },
        command,
      };
      const traceparent = sampledTraceparent();
      if (traceparent !== undefined) request.traceparent = traceparent;
      const response = await send(shardServing(partitionOf(key)), request);
      return response.reply;
    },
    async commandByKey(key, command) {
      refuseWhenStopping();
      const id = key.toLowerCase();
      const partition = partitionOfId(id);
      if (partition === undefined) throw new ServiceError("not_found");
      const request: CommandRequest<T> = { kind: "command", requestId: nextRequestId++, to: { key: id }, command };
      const traceparent = sampledTraceparent();
      if (traceparent !== undefined) request.traceparent = traceparent;
      const response = await send(shardServing(partition), request);
      return response.reply;
    },
    async query(accountId, query) {
      refuseWhenStopping();
      const key = accountKey(accountId);
      const request: QueryRequest<T> = { kind: "query", requestId: nextRequestId++, to: { accountId: key }, query };
      const traceparent = sampledTraceparent();
      if (traceparent !== undefined) request.traceparent = traceparent;
      const response = await send(shardServing(partitionOf(key)), request);
      return response.result;
    },
    async market(update) {
      refuseWhenStopping();
      const applied = await Promise.all(
        pools.map((_, shard) => send(shard, { kind: "market", requestId: nextRequestId++, update })),
      );
      return applied.reduce<MarketApplied>(
        (sum, a) => ({
          accounts: sum.accounts + a.accounts,
          events: sum.events + a.events,
          faults: sum.faults + a.faults,
        }),
        { accounts: 0, events: 0, faults: 0 },
      );
    },
    stop() {
      stopping ??= stop();
      return stopping;
    },
  };
}
