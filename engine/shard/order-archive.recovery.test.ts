// The order archive as a shard writes it, on a real PostgreSQL with the engine's actor core on a `Shard` driven in
// this thread (docs/engine.md, "The order archive"): each order the live actor forgets is journaled into the
// archive with the batch that forgot it, exactly as its placement answered it; a rebuild under a lower retention
// archives the orders its replay forgets on top, and a rebuild under the same one changes nothing.
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { createCore, type EngineTypes } from "../trading-core.js";
import type { Command, Reply } from "../core.js";
import { Journal } from "../store/journal.js";
import { migratedEngineDatabase } from "../store/database.testing.js";
import type { ShardRequest, ShardResponse } from "./protocol.js";
import { Shard } from "./shard.js";

const core = createCore();

const db = migratedEngineDatabase();
const PLAN_ID = "15ef9280-770d-4664-9de7-93fcd7677a98";
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
/** A post-only buy above the mark: REJECTED at once, so final. */
const REFUSED = { side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "60000", post_only: true };

type Unnumbered<R> = R extends unknown ? Omit<R, "requestId"> : never;

function engineShard() {
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
  let next = 1;
  const send = (request: Unnumbered<ShardRequest<EngineTypes>>): Promise<ShardResponse<EngineTypes>> =>
    shard.enqueue({ ...request, requestId: next++ });
  const command = async (accountId: string, cmd: Command): Promise<Reply> => {
    const response = await send({ kind: "command", to: { accountId }, command: { userId: "u-1", command: cmd } });
    if (response.kind !== "commandReply") throw new Error(JSON.stringify(response));
    return response.reply;
  };
  return {
    send,
    command,
    start: async (): Promise<void> => {
      const response = await send({ kind: "start" });
      if (response.kind !== "started") throw new Error(JSON.stringify(response));
    },
    stop: () => send({ kind: "stop" }),
  };
}

/** The archive's records by order id. */
async function archived(): Promise<Map<string, unknown>> {
  const rows = await db.pool.query<{ order_id: string; record: unknown }>("SELECT order_id, record FROM engine_orders");
  return new Map(rows.rows.map((row) => [row.order_id, row.record]));
}

afterEach(() => {
  core.configure?.({});
});

describe("the order archive through a shard", () => {
  it("archives what the live actor forgets, and what a rebuild under a lower retention forgets on top", async () => {
    core.configure?.({ finalOrdersKept: 5 });
    const live = engineShard();
    await live.send({
      kind: "market",
      update: { prices: [{ symbol: "BTC-USD", mark: 500_000, index: 500_000, skew: 0 }] },
    });
    const account = randomUUID();
    await live.command(account, {
      type: "OpenAccount",
      request: { account_id: account, user_id: "u-1", plan_id: PLAN_ID },
    });
    const answered = new Map<string, unknown>();
    for (let i = 0; i < 20; i++) {
      // Two at once: their decisions share a batch.
      const replies = await Promise.all(
        [0, 1].map(() =>
          live.command(account, {
            type: "PlaceOrder",
            request: { account_id: account, symbol: "BTC-USD", ...REFUSED },
          }),
        ),
      );
      for (const reply of replies) {
        if (!("order" in reply)) throw new Error(JSON.stringify(reply));
        answered.set(reply.order.order_id, reply.order);
      }
    }
    await live.stop();
    const ids = [...answered.keys()];
    const afterLive = await archived();
    // All but the newest 5 left the actor, each journaled into the archive as its placement answered it.
    expect([...afterLive.keys()].sort()).toEqual(ids.slice(0, -5).sort());
    for (const [id, record] of afterLive) expect(record).toEqual(answered.get(id));

    const same = engineShard();
    await same.start();
    await same.stop();
    expect(await archived()).toEqual(afterLive);

    core.configure?.({ finalOrdersKept: 2 });
    const lower = engineShard();
    await lower.start();
    await lower.stop();
    const afterLower = await archived();
    expect([...afterLower.keys()].sort()).toEqual(ids.slice(0, -2).sort());
    for (const [id, record] of afterLower) expect(record).toEqual(answered.get(id));
  });
});
