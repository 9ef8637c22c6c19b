// `npm run bench:limits`: what the engine's memory and recovery bounds buy (docs/performance.md, "Memory and
// recovery bounds"). Two parts, each on one shard of the engine's actor core driven in this thread:
//
// 1. Memory: 1,000,000 PlaceOrder commands that are REJECTED (a post-only BUY above the mark), each with its own
//    client_id, on 10 accounts of one user, in batches of 1,024 as the shard commits them. The journal
//    discards its rows (the database is not what is measured). Prints the shard's heap after a full GC every
//    100,000 orders, and the final orders and client_id records the accounts hold: with the defaults (1,000
//    final orders and 10,000 client_ids per account) the heap stays flat.
// 2. Recovery: a journal of 10 accounts on a throwaway PostgreSQL, written by a shard that snapshots every 1,000
//    events (rejected orders with client_ids, the heaviest snapshots per event), measured at 5,000 and then
//    20,000 events per account: a shard's start (the rebuild) timed with its snapshots and without (the whole
//    journal replayed), with the events each replayed.
//
// Run with `node --expose-gc` (the npm script does). Sized for a 2-core machine shared with other work: about a
// minute in all. A benchmark, not a test.
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { performance } from "node:perf_hooks";
import { retainedCounts } from "../engine/accounts/retention.js";
import { createCore, type EngineTypes } from "../engine/trading-core.js";
import type { AccountState } from "../engine/core.js";
import type { ActorCore } from "../engine/shard/core-contract.js";
import { Shard, type ShardJournal } from "../engine/shard/shard.js";
import type { ShardRequest, ShardResponse } from "../engine/shard/protocol.js";
import { freshDatabase, withPool } from "../engine/store/fresh-database.testing.js";
import { Journal } from "../engine/store/journal.js";
import { migrateEngine } from "../engine/store/schema.js";
import { DAY_MS } from "../kernel/time.js";
import { startPostgres } from "../test/harness/postgres.js";

const core = createCore();

const PLAN_ID = "15ef9280-770d-4664-9de7-93fcd7677a98";
const ORDERS = Number(process.env.BENCH_ORDERS ?? 1_000_000);
const MEMORY_ACCOUNTS = 10;
const BATCH = 1_024;
const ACCOUNTS = Number(process.env.BENCH_RECOVERY_ACCOUNTS ?? 10);
/** The journal is measured at each of these lengths (events per account). */
const EVENTS_PER_ACCOUNT = (process.env.BENCH_RECOVERY_EVENTS ?? "5000,20000")
  .split(",")
  .filter((part) => part.trim() !== "")
  .map(Number);
const SNAPSHOT_EVERY = 1_000;
const BTC = { prices: [{ symbol: "BTC-USD", mark: 500_000, index: 500_000, skew: 0 }] };

const exposed = (globalThis as { gc?: () => void }).gc;
if (exposed === undefined) throw new Error("run with node --expose-gc (npm run bench:limits)");
const gc: () => void = exposed;

type Unnumbered<R> = R extends unknown ? Omit<R, "requestId"> : never;

/** A journal that keeps nothing (part 1 measures the shard's memory, not the database). */
const discard: ShardJournal = {
  append: () => Promise.resolve(),
  readPartitions: () => Promise.resolve({ accounts: 0, events: 0 }),
  readAccounts: () => Promise.resolve({ accounts: 0, events: 0 }),
};

/** The latest state object of each account, as the shard's `apply` returns it (to count what it holds). */
const states = new Map<string, AccountState>();
const countingCore: ActorCore<EngineTypes> = {
  ...core,
  apply(state, event) {
    const next = core.apply(state, event);
    states.set(next.account_id, next);
    return next;
  },
};

function driver(journal: ShardJournal, snapshotEvery?: number) {
  const shard = new Shard<EngineTypes>({
    shard: 0,
    shards: 1,
    core: countingCore,
    journal,
    maxBatch: BATCH,
    close: () => Promise.resolve(),
    ...(snapshotEvery === undefined ? {} : { snapshotEvery }),
  });
  let next = 1;
  const send = (request: Unnumbered<ShardRequest<EngineTypes>>): Promise<ShardResponse<EngineTypes>> =>
    shard.enqueue({ ...request, requestId: next++ });
  const open = async (id: string): Promise<void> => {
    await send({
      kind: "command",
      to: { accountId: id },
      command: {
        userId: "u-1",
        command: { type: "OpenAccount", request: { account_id: id, user_id: "u-1", plan_id: PLAN_ID } },
      },
    });
  };
  const reject = (id: string, clientId: string) =>
    send({
      kind: "command",
      to: { accountId: id },
      command: {
        userId: "u-1",
        command: {
          type: "PlaceOrder",
          request: {
            account_id: id,
            symbol: "BTC-USD",
            side: "BUY",
            kind: "LIMIT",
            quantity: "0.001",
            limit_price: "60000",
            post_only: true,
            client_id: clientId,
          },
        },
      },
    });
  return { shard, send, open, reject };
}

const mb = (bytes: number): string => (bytes / 1_048_576).toFixed(1);

async function memory(): Promise<void> {
  const { send, open, reject } = driver(discard);
  await send({ kind: "market", update: BTC });
  const ids = Array.from({ length: MEMORY_ACCOUNTS }, () => randomUUID());
  for (const id of ids) await open(id);
  const started = performance.now();
  console.log("orders\theap MB\tfinal orders kept\tclient_ids kept");
  for (let done = 0; done < ORDERS;) {
    const wave: Promise<ShardResponse<EngineTypes>>[] = [];
    for (let i = 0; i < BATCH && done < ORDERS; i++, done++) {
      wave.push(reject(ids[done % MEMORY_ACCOUNTS] as string, `c-${done}`));
    }
    const answers = await Promise.all(wave);
    const last = answers[answers.length - 1];
    if (last?.kind !== "commandReply" || last.reply.kind !== "rejected") throw new Error(JSON.stringify(last));
    if (done % 100_000 < BATCH || done === ORDERS) {
      gc();
      const heap = process.memoryUsage().heapUsed;
      let finals = 0;
      let clientIds = 0;
      for (const state of states.values()) {
        const counts = retainedCounts(state);
        finals += counts.finals;
        clientIds += counts.clientIds;
      }
      console.log(`${done}\t${mb(heap)}\t${finals}\t${clientIds}`);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`${ORDERS} rejected orders in ${seconds.toFixed(1)} s (${Math.round(ORDERS / seconds)}/s)`);
  states.clear();
}

/** Rejected orders with client_ids (two events each) until each account has `events` events. */
async function extendJournal(pool: pg.Pool, ids: readonly string[], events: number): Promise<void> {
  const writer = driver(new Journal(pool), SNAPSHOT_EVERY);
  await writer.send({ kind: "market", update: BTC });
  const counted = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM engine_events");
  const have = counted.rows[0]?.n ?? 0;
  if (have === 0) for (const id of ids) await writer.open(id);
  const orders = Math.ceil((events * ids.length - Math.max(have, ids.length)) / 2);
  for (let done = 0; done < orders;) {
    const wave: Promise<unknown>[] = [];
    for (let i = 0; i < BATCH && done < orders; i++, done++) {
      wave.push(writer.reject(ids[done % ids.length] as string, `c-${have}-${done}`));
    }
    await Promise.all(wave);
  }
  await writer.send({ kind: "stop" });
}

async function recovery(): Promise<void> {
  const server = await startPostgres();
  try {
    const url = await freshDatabase(server.url);
    await withPool(url, async (pool) => {
      await migrateEngine(pool);
      const ids = Array.from({ length: ACCOUNTS }, () => randomUUID());
      console.log("journal events\tsnapshots\trestart\tevents replayed\tms");
      for (const perAccount of EVENTS_PER_ACCOUNT) {
        await extendJournal(pool, ids, perAccount);
        const sizes = await pool.query<{ events: number; snapshots: number }>(
          "SELECT (SELECT count(*)::int FROM engine_events) AS events, (SELECT count(*)::int FROM engine_snapshots) AS snapshots",
        );
        const { events, snapshots } = sizes.rows[0] ?? { events: 0, snapshots: 0 };
        // Each way twice, alternating (the first start of the process also pays for warming up).
        for (const [label, every] of [
          ["whole journal", undefined],
          ["with snapshots", SNAPSHOT_EVERY],
          ["whole journal", undefined],
          ["with snapshots", SNAPSHOT_EVERY],
        ] as const) {
          gc();
          const reader = driver(new Journal(pool), every);
          const started = performance.now();
          const answer = await reader.send({ kind: "start" });
          const ms = performance.now() - started;
          if (answer.kind !== "started") throw new Error(JSON.stringify(answer));
          console.log(`${events}\t${snapshots}\t${label}\t${answer.events}\t${ms.toFixed(0)}`);
          await reader.send({ kind: "stop" });
          states.clear();
        }
      }
    });
  } finally {
    await server.stop();
  }
}

// BENCH_ORDERS=0 or BENCH_RECOVERY_EVENTS= (empty) leave a part out. BENCH_UNBOUNDED=1 lifts the memory bounds
// (every final order and client_id kept for 30 days): the growth the bounds prevent, for comparison.
if (process.env.BENCH_UNBOUNDED === "1") {
  core.configure?.({
    finalOrdersKept: 1_000_000,
    finalOrderRetentionMs: 30 * DAY_MS,
    clientIdsKept: 1_000_000,
    clientIdWindowMs: 30 * DAY_MS,
  });
}
if (ORDERS > 0) await memory();
if (EVENTS_PER_ACCOUNT.length > 0) await recovery();
