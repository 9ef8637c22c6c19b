// Recovery from snapshots on a real PostgreSQL, with the engine's actor core on a `Shard` driven in this thread:
// a shard that snapshots every N events restarts after a long journal by loading each account's snapshot and
// replaying only the events after it (counted), into the state a replay of the whole journal gives (every
// query of the account answers the same), and goes on journaling from there (seq and outbox numbering).
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { createCore, type AccountQuery, type EngineTypes } from "../trading-core.js";
import type { Command, Reply } from "../core.js";
import { Journal } from "../store/journal.js";
import { migratedEngineDatabase } from "../store/database.testing.js";
import type { ShardRequest, ShardResponse } from "./protocol.js";
import { Shard } from "./shard.js";

const core = createCore();

const db = migratedEngineDatabase();
const PLAN_ID = "15ef9280-770d-4664-9de7-93fcd7677a98";
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const EVERY = 100;

type Unnumbered<R> = R extends unknown ? Omit<R, "requestId"> : never;

function engineShard(snapshotEvery?: number) {
  let clock = NOW;
  const shard = new Shard<EngineTypes>({
    shard: 0,
    shards: 1,
    core,
    journal: new Journal(db.pool),
    maxBatch: 64,
    close: () => Promise.resolve(),
    now: () => clock++,
    ...(snapshotEvery === undefined ? {} : { snapshotEvery }),
  });
  let next = 1;
  const send = (request: Unnumbered<ShardRequest<EngineTypes>>): Promise<ShardResponse<EngineTypes>> =>
    shard.enqueue({ ...request, requestId: next++ });
  const command = async (accountId: string, cmd: Command): Promise<Reply> => {
    const response = await send({ kind: "command", to: { accountId }, command: { userId: "u-1", command: cmd } });
    if (response.kind !== "commandReply") throw new Error(JSON.stringify(response));
    return response.reply;
  };
  const query = async (accountId: string, q: AccountQuery): Promise<unknown> => {
    const response = await send({ kind: "query", to: { accountId }, query: { userId: "u-1", query: q } });
    if (response.kind !== "queryResult") throw new Error(JSON.stringify(response));
    return response.result;
  };
  return {
    send,
    command,
    query,
    /** The number of events the shard replayed when it started. */
    start: async (): Promise<number> => {
      const response = await send({ kind: "start" });
      if (response.kind !== "started") throw new Error(JSON.stringify(response));
      return response.events;
    },
    stop: () => send({ kind: "stop" }),
    place: (accountId: string, request: Record<string, unknown>) =>
      command(accountId, {
        type: "PlaceOrder",
        request: { account_id: accountId, symbol: "BTC-USD", ...request } as never,
      }),
  };
}

const QUERIES: AccountQuery[] = [
  { type: "account" },
  { type: "summary" },
  { type: "positions" },
  { type: "orders" },
  { type: "history", from: "", to: "", limit: 1000, after_id: "" },
  { type: "trades", from: "", to: "", limit: 1000, after_id: "" },
  { type: "funding" },
  { type: "breaches" },
  { type: "violations" },
  { type: "analytics" },
];

afterEach(() => {
  core.configure?.({});
});

describe("recovery from snapshots", () => {
  it("replays only the events after each account's snapshot, into the state the whole journal gives", async () => {
    core.configure?.({ finalOrdersKept: 50 });
    const first = engineShard(EVERY);
    await first.send({
      kind: "market",
      update: { prices: [{ symbol: "BTC-USD", mark: 500_000, index: 500_000, skew: 0 }] },
    });
    const accounts = [randomUUID(), randomUUID()];
    for (const id of accounts) {
      await first.command(id, { type: "OpenAccount", request: { account_id: id, user_id: "u-1", plan_id: PLAN_ID } });
    }
    const [busy, quiet] = accounts as [string, string];
    // A long journal: fills, resting and rejected orders with client_ids, in batches of concurrent commands.
    for (let round = 0; round < 80; round++) {
      await Promise.all([
        first.place(busy, { side: "BUY", kind: "MARKET", quantity: "0.001", client_id: `m-${round}` }),
        first.place(busy, { side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "60000", post_only: true }),
        first.place(busy, {
          side: "BUY",
          kind: "LIMIT",
          quantity: "0.001",
          limit_price: "40000",
          client_id: `l-${round}`,
        }),
        first.place(busy, { side: "SELL", kind: "MARKET", quantity: "0.001" }),
      ]);
    }
    await first.place(quiet, { side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "40000" });
    await first.stop();

    const journaled = await db.pool.query<{ account_id: string; n: number }>(
      "SELECT account_id, count(*)::int AS n FROM engine_events GROUP BY account_id",
    );
    const total = journaled.rows.reduce((sum, row) => sum + row.n, 0);
    const snapshots = await db.pool.query<{ account_id: string; seq: string }>(
      "SELECT account_id, seq FROM engine_snapshots",
    );
    // Only the busy account passed EVERY events; its snapshot is at most one batch behind its last event.
    expect(snapshots.rows.map((row) => row.account_id)).toEqual([busy]);
    const snapshotSeq = Number(snapshots.rows[0]?.seq);
    const busyEvents = journaled.rows.find((row) => row.account_id === busy)?.n ?? 0;
    expect(busyEvents).toBeGreaterThan(5 * EVERY);
    expect(busyEvents - snapshotSeq).toBeLessThan(EVERY + 64 * 4);

    const restored = engineShard(EVERY);
    const whole = engineShard();
    expect(await restored.start()).toBe(total - snapshotSeq);
    expect(await whole.start()).toBe(total);
    for (const id of accounts) {
      for (const q of QUERIES) expect(await restored.query(id, q), `${id} ${q.type}`).toEqual(await whole.query(id, q));
    }
    // A client_id journaled before the snapshot still replays after the restart.
    const replayed = await restored.place(busy, {
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.001",
      limit_price: "40000",
      client_id: "l-0",
    });
    expect(replayed.kind).toBe("replayed");
    await whole.stop();

    // The restored shard journals on from the snapshot: the next seq and the next outbox sequence.
    await restored.send({
      kind: "market",
      update: { prices: [{ symbol: "BTC-USD", mark: 500_000, index: 500_000, skew: 0 }] },
    });
    const placed = await restored.place(busy, { side: "BUY", kind: "MARKET", quantity: "0.001" });
    expect(placed.kind).toBe("created");
    const last = await db.pool.query<{ seq: string; outbox: string; outbox_count: string }>(
      `SELECT (SELECT max(seq) FROM engine_events WHERE account_id = $1) AS seq,
              (SELECT max(sequence) FROM engine_outbox WHERE account_id = $1) AS outbox,
              (SELECT count(*) FROM engine_outbox WHERE account_id = $1) AS outbox_count`,
      [busy],
    );
    expect(Number(last.rows[0]?.seq)).toBeGreaterThan(busyEvents);
    expect(last.rows[0]?.outbox).toBe(last.rows[0]?.outbox_count);
    await restored.stop();
  });
});
