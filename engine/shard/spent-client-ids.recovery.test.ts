// Spent client_ids on a real PostgreSQL, with the engine's actor core on a `Shard` driven in this thread
// (docs/engine.md, "Idempotency"): a client_id the actor forgot (past the window, or past the count it keeps) is
// written to engine_client_ids with the batch that forgot it; a retry of it is looked up there before it is
// decided and replays the first answer (another body: 409), a fresh client_id costs no read, the filter of
// forgotten client_ids survives a restart from snapshots and from the whole journal (which writes the rows again),
// and a command queued behind a looked-up one is decided after it. A gateway's request id (docs/engine.md,
// "Request ids") is replayed while kept and dropped whole when forgotten.
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { createCore, type EngineTypes } from "../trading-core.js";
import type { Command, Reply } from "../core.js";
import { Journal } from "../store/journal.js";
import type { SpentRecord } from "../store/spent-keys.js";
import { migratedEngineDatabase } from "../store/database.testing.js";
import type { ShardRequest, ShardResponse } from "./protocol.js";
import { Shard } from "./shard.js";

const core = createCore();

const db = migratedEngineDatabase();
const PLAN_ID = "15ef9280-770d-4664-9de7-93fcd7677a98";
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const MINUTE = 60_000;
/** A BUY LIMIT resting below the mark of 50,000: NEW. */
const RESTING = { side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "40000" };
/** A post-only BUY LIMIT above the mark: REJECTED (post_only_would_take), so final at once. */
const REFUSED = { side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "60000", post_only: true };

type Unnumbered<R> = R extends unknown ? Omit<R, "requestId"> : never;

/** The journal, counting the spent client_ids the shard reads. */
class CountingJournal extends Journal {
  readonly recalls: string[] = [];
  /** Reads to refuse, from the next one. */
  failRecalls = 0;

  override recall(accountId: string, key: string): Promise<SpentRecord | undefined> {
    this.recalls.push(key);
    if (this.failRecalls > 0) {
      this.failRecalls--;
      return Promise.reject(new Error("read refused"));
    }
    return super.recall(accountId, key);
  }
}

/** The test's clock: the shards' wall clock, moved by the test. */
let clock = NOW;

function engineShard(snapshotEvery?: number) {
  const journal = new CountingJournal(db.pool);
  const shard = new Shard<EngineTypes>({
    shard: 0,
    shards: 1,
    core,
    journal,
    maxBatch: 64,
    close: () => Promise.resolve(),
    now: () => clock,
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
  return {
    journal,
    send,
    command,
    place: (accountId: string, request: Record<string, unknown>) =>
      command(accountId, {
        type: "PlaceOrder",
        request: { account_id: accountId, symbol: "BTC-USD", ...request } as never,
      }),
    /** Starts the shard; the number of events it replayed. */
    start: async (): Promise<number> => {
      const response = await send({ kind: "start" });
      if (response.kind !== "started") throw new Error(JSON.stringify(response));
      return response.events;
    },
    stop: () => send({ kind: "stop" }),
    /** A price and a new account. */
    open: async (): Promise<string> => {
      await send({
        kind: "market",
        update: { prices: [{ symbol: "BTC-USD", mark: 500_000, index: 500_000, skew: 0 }] },
      });
      const account = randomUUID();
      await command(account, {
        type: "OpenAccount",
        request: { account_id: account, user_id: "u-1", plan_id: PLAN_ID },
      });
      return account;
    },
  };
}

async function spentIds(): Promise<string[]> {
  const rows = await db.pool.query<{ client_id: string }>("SELECT client_id FROM engine_client_ids ORDER BY client_id");
  return rows.rows.map((row) => row.client_id);
}

function orderIdOf(reply: Reply): string {
  if (!("order" in reply)) throw new Error(`no order in ${JSON.stringify(reply)}`);
  return reply.order.order_id;
}

afterEach(() => {
  core.configure?.({});
  clock = NOW;
});

describe("spent client_ids through a shard", () => {
  it("replays a retry past the window, answers 409 to another body, and reads the table only for a forgotten id", async () => {
    core.configure?.({ clientIdWindowMs: MINUTE });
    const live = engineShard();
    const account = await live.open();
    const first = await live.place(account, { ...RESTING, client_id: "c-1" });
    clock += 2 * MINUTE;
    // A fresh client_id: its decision forgets c-1 (past the window), and it is looked up nowhere.
    expect((await live.place(account, { ...RESTING, client_id: "c-2" })).kind).toBe("created");
    expect(live.journal.recalls).toEqual([]);
    expect(await spentIds()).toEqual(["c-1"]);

    expect(await live.place(account, { ...RESTING, client_id: "c-1" })).toEqual({ ...first, kind: "replayed" });
    expect(await live.place(account, { ...RESTING, quantity: "0.002", client_id: "c-1" })).toEqual({
      kind: "error",
      code: "conflict",
      fields: { client_id: "c-1", order_id: orderIdOf(first) },
    });
    expect(live.journal.recalls).toEqual(["c-1", "c-1"]);
    expect((await live.place(account, { ...RESTING, client_id: "c-3" })).kind).toBe("created");
    expect(live.journal.recalls).toEqual(["c-1", "c-1"]);
    await live.stop();
  });

  it("replays a retry of a client_id forgotten past the count kept", async () => {
    core.configure?.({ clientIdsKept: 2 });
    const live = engineShard();
    const account = await live.open();
    const answers: Reply[] = [];
    for (let i = 0; i < 5; i++) answers.push(await live.place(account, { ...RESTING, client_id: `c-${i}` }));
    expect(await spentIds()).toEqual(["c-0", "c-1", "c-2"]);
    expect(await live.place(account, { ...RESTING, client_id: "c-0" })).toEqual({ ...answers[0], kind: "replayed" });
    expect(live.journal.recalls).toEqual(["c-0"]);
    await live.stop();
  });

  it("still replays after a restart from snapshots and after a rebuild from the whole journal", async () => {
    core.configure?.({ clientIdsKept: 2, finalOrdersKept: 2 });
    const live = engineShard(1);
    const account = await live.open();
    const answers: Reply[] = [];
    for (let i = 0; i < 20; i++) answers.push(await live.place(account, { ...REFUSED, client_id: `c-${i}` }));
    await live.stop();
    // The latest snapshot came after c-0 was forgotten (its 7th event: the open, then two per placement).
    const snapshot = await db.pool.query<{ seq: string; forgotten: string | null }>(
      "SELECT seq, payload->'retention'->>'forgotten' AS forgotten FROM engine_snapshots",
    );
    expect(Number(snapshot.rows[0]?.seq)).toBeGreaterThan(7);
    expect(snapshot.rows[0]?.forgotten).toEqual(expect.any(String));

    const fromSnapshot = engineShard(1);
    expect(await fromSnapshot.start()).toBeLessThan(41 - 7);
    expect(await fromSnapshot.place(account, { ...REFUSED, client_id: "c-0" })).toEqual({
      ...answers[0],
      kind: "replayed",
    });
    await fromSnapshot.stop();

    // The whole journal, and no row left: the rebuild forgets c-0 to c-17 again and writes their rows first.
    await db.pool.query("DELETE FROM engine_snapshots");
    await db.pool.query("DELETE FROM engine_client_ids");
    const fromJournal = engineShard();
    expect(await fromJournal.start()).toBe(41);
    expect(await spentIds()).toHaveLength(18);
    expect(await fromJournal.place(account, { ...REFUSED, client_id: "c-1" })).toEqual({
      ...answers[1],
      kind: "replayed",
    });
    expect(fromJournal.journal.recalls).toEqual(["c-1"]);
    await fromJournal.stop();
  });

  it("writes no row for a forgotten gateway request id, reads none for it, and replays one kept after a rebuild", async () => {
    core.configure?.({ clientIdsKept: 2 });
    const live = engineShard();
    const account = await live.open();
    await live.place(account, { ...RESTING, request_id: "r-1" });
    await live.place(account, { ...RESTING, client_id: "c-2" });
    const kept = await live.place(account, { ...RESTING, request_id: "r-3" });
    // r-1 left memory: dropped whole (no row); c-2 and r-3 are the two kept.
    expect(await spentIds()).toEqual([]);
    expect((await live.place(account, { ...RESTING, request_id: "r-1" })).kind).toBe("created");
    expect(live.journal.recalls).toEqual([]);
    await live.stop();

    const rebuilt = engineShard();
    await rebuilt.start();
    expect(await rebuilt.place(account, { ...RESTING, request_id: "r-3" })).toEqual({ ...kept, kind: "replayed" });
    await rebuilt.stop();
  });

  it("decides a command queued behind a looked-up one after it, and a false positive as a new order", async () => {
    core.configure?.({ clientIdsKept: 1 });
    const live = engineShard();
    const account = await live.open();
    const other = await live.open();
    const first = orderIdOf(await live.place(account, { ...RESTING, client_id: "c-1" }));
    await live.place(account, { ...RESTING, client_id: "c-2" });
    // No row: the filter's answer is a false positive, and the retry is a new order.
    await db.pool.query("DELETE FROM engine_client_ids");
    const [again, canceled, elsewhere] = await Promise.all([
      live.place(account, { ...RESTING, client_id: "c-1" }),
      live.command(account, { type: "CancelAll", request: { account_id: account } }),
      live.place(other, { ...RESTING, client_id: "o-1" }),
    ]);
    expect(live.journal.recalls).toEqual(["c-1"]);
    expect(again.kind).toBe("created");
    const placed = orderIdOf(again);
    expect(placed).not.toBe(first);
    // The cancel-all sent after it saw it.
    if (canceled.kind !== "canceled") throw new Error(JSON.stringify(canceled));
    expect(canceled.orders.map((order) => order.order_id)).toContain(placed);
    expect(elsewhere.kind).toBe("created");
    const journaled = await db.pool.query<{ account_id: string; type: string; seq: string }>(
      "SELECT account_id, type, seq FROM engine_events WHERE account_id = $1 ORDER BY seq",
      [account],
    );
    const types = journaled.rows.map((row) => row.type);
    expect(types.lastIndexOf("OrderAccepted")).toBeLessThan(types.lastIndexOf("OrderCanceled"));
    await live.stop();
  });

  it("fails only the command whose lookup failed, and decides the ones behind it", async () => {
    core.configure?.({ clientIdsKept: 1 });
    const live = engineShard();
    const account = await live.open();
    await live.place(account, { ...RESTING, client_id: "c-1" });
    await live.place(account, { ...RESTING, client_id: "c-2" });
    live.journal.failRecalls = 1;
    const retry = { account_id: account, symbol: "BTC-USD", ...RESTING, client_id: "c-1" } as never;
    const [failed, behind] = await Promise.all([
      live.send({
        kind: "command",
        to: { accountId: account },
        command: { userId: "u-1", command: { type: "PlaceOrder", request: retry } },
      }),
      live.place(account, { ...RESTING, client_id: "c-3" }),
    ]);
    expect(failed).toMatchObject({ kind: "failed", error: { code: "engine_error" } });
    expect(behind.kind).toBe("created");
    expect((await live.place(account, { ...RESTING, client_id: "c-1" })).kind).toBe("replayed");
    await live.stop();
  });
});
