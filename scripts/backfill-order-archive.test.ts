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

afterEach(() => {
  core.configure?.({});
});

async function archive(): Promise<Map<string, unknown>> {
  const rows = await db.pool.query<{ order_id: string; record: unknown }>("SELECT order_id, record FROM engine_orders");
  return new Map(rows.rows.map((row) => [row.order_id, row.record]));
}

describe("the order archive backfill", () => {
  it("archives from the journal what the live actors forgot, once", async () => {
    core.configure?.({ finalOrdersKept: KEPT });
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
    await shard.enqueue({
      kind: "market",
      requestId: requestId++,
      update: { prices: [{ symbol: "BTC-USD", mark: 500_000, index: 500_000, skew: 0 }] },
    });
    for (const accountId of [randomUUID(), randomUUID()]) {
      const command = (cmd: unknown) =>
        shard.enqueue({
          kind: "command",
          requestId: requestId++,
          to: { accountId },
          command: { userId: "u-1", command: cmd as never },
        });
      await command({ type: "OpenAccount", request: { account_id: accountId, user_id: "u-1", plan_id: PLAN_ID } });
      for (let i = 0; i < 10; i++) {
        const request = { account_id: accountId, symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.001" };
        await command({ type: "PlaceOrder", request: { ...request, limit_price: "60000", post_only: true } });
      }
    }
    await shard.enqueue({ kind: "stop", requestId: requestId++ });
    const live = await archive();
    expect(live.size).toBe(2 * (10 - KEPT));

    await db.pool.query("DELETE FROM engine_orders");
    const limits = { ...DEFAULT_ACTOR_LIMITS, finalOrdersKept: KEPT };
    expect(await backfillOrderArchive(db.pool, limits)).toMatchObject({ accounts: 2, forgotten: live.size });
    expect(await archive()).toEqual(live);
    await backfillOrderArchive(db.pool, limits);
    expect(await archive()).toEqual(live);
  });
});
