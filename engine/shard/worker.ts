// The shard thread: loads the core module named in workerData, opens the shard's own small pg pool, and
// hands the requests of every piscina task to the shard's mailbox synchronously, in order (piscina calls
// `handle` in arrival order), answering the task with every request's response at once.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parentPort, workerData } from "node:worker_threads";
import pg from "pg";
import { connectBound } from "../../kernel/db-deadline.js";
import { FollowedJournal } from "../store/followed-journal.js";
import { Journal } from "../store/journal.js";
import type { Fence } from "../store/leases.js";
import type { ActorCore, CoreModule, CoreTypes } from "./core-contract.js";
import type { ShardNotice, ShardRequest, ShardResponse, ShardTask, ShardTaskResult } from "./protocol.js";
import { Shard } from "./shard.js";
import { startTracing, stopTracing } from "../../kernel/tracing.js";
import { endShardSpan, startMessageSpan } from "./tracing.js";

/** What the runtime passes to each shard thread. */
export interface ShardWorkerData {
  shard: number;
  shards: number;
  /** This engine's index and the number of engines: the shard loads only partitions this engine owns. */
  engine: number;
  engines: number;
  /** The partition leases every append must still hold (docs/scale-out.md); unfenced when absent. */
  fence: Fence | undefined;
  /** A standby's shard: follows the journal and decides nothing until a `serve` request brings its fence. */
  following: boolean;
  databaseUrl: string;
  /** file: URL of the module exporting `createCore` (engine/shard/core-contract.ts). */
  coreModule: string;
  maxBatch: number;
  /** Connections of the shard's pool (it never needs two at once; more only help a slow reconnect). */
  poolSize: number;
  /** Bound of every database wait of a batch (engine/store/journal.ts); unbounded when undefined. */
  dbTimeoutMs: number | undefined;
  /** Send a stats notice (tallies, batch figures, loop delay) every `statsIntervalMs` and on stop (metrics on). */
  notices: boolean;
  statsIntervalMs: number;
  market: unknown;
  /** Passed to `core.configure` before the shard starts. */
  coreSettings: unknown;
  /** Snapshot an account every this many events; never when undefined. */
  snapshotEvery: number | undefined;
}

function isCoreModule(value: unknown): value is CoreModule<CoreTypes> {
  return typeof value === "object" && value !== null && "createCore" in value && typeof value.createCore === "function";
}

function isCore(core: unknown): core is ActorCore<CoreTypes> {
  if (typeof core !== "object" || core === null) return false;
  const methods = ["decide", "apply", "query", "userId"];
  return methods.every((name) => typeof (core as Record<string, unknown>)[name] === "function");
}

const data = workerData as ShardWorkerData;
// The thread exports its own spans (same OTEL_* settings as the engine process; flushed on `stop`).
await startTracing("engine", process.env, { asyncContext: false });
const loaded: unknown = await import(data.coreModule);
const core: unknown = isCoreModule(loaded) ? loaded.createCore() : undefined;
if (!isCore(core)) {
  throw new Error(`${data.coreModule} must export \`createCore\` making a core with decide, apply, query and userId`);
}

if (data.coreSettings !== undefined) core.configure?.(data.coreSettings);

const post = (notice: ShardNotice): void => {
  parentPort?.postMessage(notice);
};
const pool = new pg.Pool({
  connectionString: data.databaseUrl,
  max: data.poolSize,
  idleTimeoutMillis: 60_000,
  ...(data.dbTimeoutMs === undefined ? {} : connectBound(data.dbTimeoutMs)),
});
pool.on("error", (error) => {
  post({
    kind: "log",
    shard: data.shard,
    level: "warn",
    message: "idle database connection failed",
    fields: { err: error.message },
  });
});

let statsTimer: NodeJS.Timeout | undefined;
let postStats: (() => void) | undefined;
const shard = new Shard<CoreTypes>({
  shard: data.shard,
  shards: data.shards,
  engine: data.engine,
  engines: data.engines,
  core,
  journal: new (data.following ? FollowedJournal : Journal)(pool, undefined, data.fence, data.dbTimeoutMs),
  market: data.market,
  maxBatch: data.maxBatch,
  following: data.following,
  ...(data.snapshotEvery === undefined ? {} : { snapshotEvery: data.snapshotEvery }),
  close: async () => {
    clearInterval(statsTimer);
    // The figures since the last notice; a notice travels on its own port, so it may trail the stop's answer.
    postStats?.();
    await pool.end();
    await stopTracing();
  },
  tally: data.notices,
  notify: post,
});

// The thread's own event-loop delay (the main thread's is in the default process metrics).
if (data.notices) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  postStats = () => {
    const lag = { loopLagP99Ms: delay.percentile(99) / 1e6, loopLagMaxMs: delay.max / 1e6 };
    delay.reset();
    post({ kind: "stats", shard: data.shard, ...shard.takeStats(), ...lag });
  };
  statsTimer = setInterval(postStats, data.statsIntervalMs);
  statsTimer.unref();
}

function enqueue(request: ShardRequest): Promise<ShardResponse> {
  const span = startMessageSpan(request, data.shard);
  if (span === undefined) return shard.enqueue(request);
  return shard.enqueue(request).then((response) => {
    endShardSpan(span, response);
    return response;
  });
}

/**
 * The piscina task handler: queues the task's requests synchronously and in order, and answers once every one
 * of them was answered (each after its own batch committed). A task's requests are contiguous in the mailbox,
 * so they share one batch unless the mailbox holds more than `maxBatch` messages: then the first ones wait
 * for the batch of the last one before the task is answered (one answer per task keeps one message back).
 */
export async function handle(task: ShardTask): Promise<ShardTaskResult> {
  const responses = await Promise.all(task.requests.map(enqueue));
  return { kind: "responses", responses };
}
