// Price-update routing and the order-id index with the engine's own actor core, on a `Shard` driven in this
// thread with an in-memory journal: a price update decides only the accounts with a position or a working
// order in a symbol it moves (counted by a spy on `onMarket`, not timed), also after a rebuild; an order the
// actor forgot is no longer addressable by its id.
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { createCore, type EngineTypes, type PriceUpdate } from "../trading-core.js";
import type { Command, Reply } from "../core.js";
import type { ActorCore } from "./core-contract.js";
import { MemoryJournal, startTestShard } from "./shard.testing.js";

const core = createCore();

const PLAN_ID = "15ef9280-770d-4664-9de7-93fcd7677a98";
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);

/** A shard of the engine core whose `onMarket` notes each account it is called for. */
function engineShard(journal: MemoryJournal) {
  const visits: string[] = [];
  const onMarket = core.onMarket?.bind(core);
  if (onMarket === undefined) throw new Error("the engine core decides market updates");
  const spy: ActorCore<EngineTypes> = {
    ...core,
    onMarket(state, update, ctx) {
      visits.push(state.account_id);
      return onMarket(state, update, ctx);
    },
  };
  const { send } = startTestShard(spy, journal, () => NOW);
  const command = async (accountId: string, cmd: Command): Promise<Reply> => {
    const response = await send({ kind: "command", to: { accountId }, command: { userId: "u-1", command: cmd } });
    if (response.kind !== "commandReply") throw new Error(JSON.stringify(response));
    return response.reply;
  };
  /** The accounts one update was decided for. */
  const market = async (update: PriceUpdate): Promise<string[]> => {
    visits.length = 0;
    const response = await send({ kind: "market", update });
    expect(response).toMatchObject({ kind: "marketApplied", accounts: visits.length });
    return [...visits].sort();
  };
  const open = async (): Promise<string> => {
    const id = randomUUID();
    const reply = await command(id, {
      type: "OpenAccount",
      request: { account_id: id, user_id: "u-1", plan_id: PLAN_ID },
    });
    expect(reply.kind).toBe("created");
    return id;
  };
  const place = async (accountId: string, request: Record<string, unknown>): Promise<Reply> =>
    command(accountId, { type: "PlaceOrder", request: { account_id: accountId, ...request } as never });
  const cancelById = (orderId: string) =>
    send({
      kind: "command",
      to: { key: orderId },
      command: { userId: "u-1", command: { type: "CancelOrder", request: { order_id: orderId } } },
    });
  return { market, open, place, cancelById, command };
}

const price = (symbol: string, mark: number): PriceUpdate => ({ prices: [{ symbol, mark, index: mark, skew: 0 }] });
const BTC = (mark = 500_000) => price("BTC-USD", mark);
const ETH = (mark = 35_000) => price("ETH-USD", mark);

const orderIdOf = (reply: Reply): string => {
  if (!("order" in reply)) throw new Error(`no order in ${JSON.stringify(reply)}`);
  return reply.order.order_id;
};

afterEach(() => {
  core.configure?.({});
});

describe("a price update", () => {
  it("decides only the accounts with a position or a working order in a symbol it moves", async () => {
    const journal = new MemoryJournal();
    const shard = engineShard(journal);
    await shard.market({ prices: [...BTC().prices, ...ETH().prices] });
    const [resting, idle, eth, holder] = [
      await shard.open(),
      await shard.open(),
      await shard.open(),
      await shard.open(),
    ];
    const order = orderIdOf(
      await shard.place(resting, {
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: "0.001",
        limit_price: "40000",
      }),
    );
    await shard.place(eth, { symbol: "ETH-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "3000" });
    expect(
      (await shard.place(holder, { symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" })).kind,
    ).toBe("created");
    // A rejected order leaves nothing working: it does not list its account.
    await shard.place(idle, {
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.001",
      limit_price: "60000",
      post_only: true,
    });

    expect(await shard.market(BTC(500_010))).toEqual([resting, holder].sort());
    expect(await shard.market(ETH(35_010))).toEqual([eth]);
    expect(await shard.market(price("EUR-USD", 108_452))).toEqual([]);
    // A funding tick concerns every account.
    expect(await shard.market({ prices: [], funding: { cryptoPpm: 100, rolloverPpm: 50 } })).toEqual(
      [resting, idle, eth, holder].sort(),
    );

    expect((await shard.command(resting, { type: "CancelOrder", request: { order_id: order } })).kind).toBe("ok");
    expect(await shard.market(BTC(500_020))).toEqual([holder]);

    // A shard rebuilt from the journal routes the same way.
    const rebuilt = engineShard(journal);
    await rebuilt.market({ prices: [...BTC().prices, ...ETH().prices] });
    expect(await rebuilt.market(BTC(500_030))).toEqual([holder]);
    expect(await rebuilt.market(ETH(35_020))).toEqual([eth]);
  });
});

describe("the order-id index", () => {
  it("no longer addresses an order the actor forgot: not_found instead of the final order's conflict", async () => {
    core.configure?.({ finalOrdersKept: 1 });
    const shard = engineShard(new MemoryJournal());
    await shard.market(BTC());
    const account = await shard.open();
    const refused = {
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.001",
      limit_price: "60000",
      post_only: true,
    };
    const first = orderIdOf(await shard.place(account, refused));
    expect(await shard.cancelById(first)).toMatchObject({ kind: "commandReply", reply: { code: "conflict" } });
    await shard.place(account, refused);
    expect(await shard.cancelById(first)).toMatchObject({ kind: "failed", error: { code: "not_found" } });
  });
});
