// The order archive's backfill (scripts/backfill-order-archive.ts) on PostgreSQL: a journal written by a live shard
// whose archive rows are gone (as before engine migration 009) gets them back from a replay of the whole journal,
// exactly as the live actor archived them, and a second run changes nothing.
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_ACTOR_LIMITS } from "../engine/accounts/limits.js";
import { Journal } from "../engine/store/journal.js";
import { migratedEngineDatabase } from "../engine/store/database.testing.js";
import { Shard } from "../engine/shard/shard.js";
import { createCore, type EngineTypes } from "../engine/trading-core.js";
import { backfillOrderArchive } from "./backfill-order-archive.js";

const db = migratedEngineDatabase();
const core = createCore();
const PLAN_ID = "15ef9280-770d-4664-9de7-93fcd7677a98";
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const KEPT = 3;

/** A post-only buy above the mark: REJECTED at once, so final. */
const refused = (accountId: string) => ({
  account_id: accountId,
  symbol: "BTC-USD",
  side: "BUY",
  kind: "LIMIT",
  quantity: "0.001",
  limit_price: "60000",
  post_only: true,
});

afterEach(() => {
  core.configure?.({});
});

async function archive(): Promise<Map<string, unknown>> {
  const rows = await db.pool.query<{ order_id: string; record: unknown }>("SELECT order_id, record FROM engine_orders");
  return new Map(rows.rows.map((row) => [row.order_id, row.record]));
}

/** A shard on the test database; `command` sends one command of an account as user u-1. */
function liveShard() {
  let clock = NOW;
  const shard = new Shard<EngineTypes>({
    shard: 0,
    shards: 1,
    core,
    journal: new Journal(db.pool),
    maxBatch: 64,
    close: () => Promise.resolve(),
    now: () => clock++,
  });
  let requestId = 1;
  return {
    market: () =>
      shard.enqueue({
        kind: "market",
        requestId: requestId++,
        update: { prices: [{ symbol: "BTC-USD", mark: 500_000, index: 500_000, skew: 0 }] },
      }),
    command: async (accountId: string, cmd: unknown) => {
      const response = await shard.enqueue({
        kind: "command",
        requestId: requestId++,
        to: { accountId },
        command: { userId: "u-1", command: cmd as never },
      });
      if (response.kind !== "commandReply") throw new Error(JSON.stringify(response));
      return response.reply;
    },
    stop: () => shard.enqueue({ kind: "stop", requestId: requestId++ }),
  };
}

describe("the order archive backfill", () => {
  it("archives from the journal what the live actors forgot, once", async () => {
    core.configure?.({ finalOrdersKept: KEPT });
    const shard = liveShard();
    await shard.market();
    for (const accountId of [randomUUID(), randomUUID()]) {
      await shard.command(accountId, {
        type: "OpenAccount",
        request: { account_id: accountId, user_id: "u-1", plan_id: PLAN_ID },
      });
      for (let i = 0; i < 10; i++) await shard.command(accountId, { type: "PlaceOrder", request: refused(accountId) });
    }
    await shard.stop();
    const live = await archive();
    expect(live.size).toBe(2 * (10 - KEPT));

    await db.pool.query("DELETE FROM engine_orders");
    const limits = { ...DEFAULT_ACTOR_LIMITS, finalOrdersKept: KEPT };
    expect(await backfillOrderArchive(db.pool, limits)).toEqual({
      accounts: 2,
      events: expect.any(Number) as number,
      forgotten: live.size,
      failed: [],
    });
    expect(await archive()).toEqual(live);
    await backfillOrderArchive(db.pool, limits);
    expect(await archive()).toEqual(live);
  });

  it("replays a child placed on a parent the lower limits forget first, and names an account it cannot replay", async () => {
    core.configure?.({ finalOrdersKept: 100 });
    const shard = liveShard();
    await shard.market();
    const [bracket, plain, broken] = [randomUUID(), randomUUID(), randomUUID()];
    for (const accountId of [bracket, plain, broken]) {
      await shard.command(accountId, {
        type: "OpenAccount",
        request: { account_id: accountId, user_id: "u-1", plan_id: PLAN_ID },
      });
    }
    // A child joins a parent that filled before three final orders: limits of 1 forget the parent first.
    const parent = await shard.command(bracket, {
      type: "PlaceOrder",
      request: { account_id: bracket, symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" },
    });
    if (!("order" in parent)) throw new Error(JSON.stringify(parent));
    for (let i = 0; i < 3; i++) {
      for (const accountId of [bracket, plain, broken]) {
        await shard.command(accountId, { type: "PlaceOrder", request: refused(accountId) });
      }
    }
    const child = await shard.command(bracket, {
      type: "PlaceOrder",
      request: {
        account_id: bracket,
        symbol: "BTC-USD",
        side: "SELL",
        kind: "STOP",
        quantity: "0.001",
        trigger_price: "40000",
        parent_order_id: parent.order.order_id,
      },
    });
    expect(child).toMatchObject({ kind: "created" });
    await shard.stop();
    // A journal the core cannot replay: a cancel of an order the account never had.
    await db.pool.query(
      `INSERT INTO engine_events (account_id, seq, type, payload)
       SELECT $1::uuid, max(seq) + 1, 'OrderCanceled', $2::jsonb FROM engine_events WHERE account_id = $1`,
      [broken, JSON.stringify({ type: "OrderCanceled", at: NOW, order_id: randomUUID(), reason: "user" })],
    );

    const counts = await backfillOrderArchive(db.pool, { ...DEFAULT_ACTOR_LIMITS, finalOrdersKept: 1 });
    expect(counts.failed).toEqual([broken]);
    for (const [accountId, rows] of [
      [plain, 2],
      // The filled parent and two of the refused orders (the child still works).
      [bracket, 3],
    ] as const) {
      const archived = await db.pool.query("SELECT 1 FROM engine_orders WHERE account_id = $1", [accountId]);
      expect(archived.rowCount, accountId === bracket ? "bracket" : "plain").toBe(rows);
    }
  });
});
