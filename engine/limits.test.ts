// The engine actor's limits (docs/engine.md, "Limits"): the cap on working orders, final orders leaving the
// actor's memory after their retention (or past the count it keeps), and the client_id replay window, past
// which a client_id stays spent (docs/engine.md, "Idempotency"). Driven through the actor core as a shard drives
// it (recallKey, decide, apply, forget), with the limits `configure` sets; the table of spent client_ids is a Map.
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { retainedCounts } from "./accounts/retention.js";
import { createCore, type EngineCommand } from "./trading-core.js";
import type { AccountState, EngineEvent, Reply } from "./core.js";
import type { MarketView } from "./market/book.js";
import type { SpentKey } from "./shard/core-contract.js";

const core = createCore();

const PLAN_ID = "15ef9280-770d-4664-9de7-93fcd7677a98";
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const MINUTE = 60_000;

/** A BUY LIMIT resting below the mark of 50,000: NEW. */
const RESTING = { side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "40000" };
/** A post-only BUY LIMIT above the mark: REJECTED (post_only_would_take). */
const REFUSED = { side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "60000", post_only: true };

class Account {
  readonly id = randomUUID();
  readonly market: MarketView | undefined = core.updateMarket?.(
    undefined,
    { prices: [{ symbol: "BTC-USD", mark: 500_000, index: 500_000, skew: 0 }] },
    NOW,
  );
  state: AccountState | undefined;
  readonly journal: EngineEvent[] = [];
  readonly forgotten: string[] = [];
  /** The table of spent client_ids, as the shard writes it from `forget`. */
  readonly spent = new Map<string, SpentKey>();
  /** The client_ids the shard looked up (`recallKey`) before deciding. */
  readonly lookups: string[] = [];

  constructor() {
    const decision = core.decide(
      undefined,
      {
        userId: "u-1",
        command: { type: "OpenAccount", request: { account_id: this.id, user_id: "u-1", plan_id: PLAN_ID } },
      },
      { now: NOW, market: this.market, nextId: randomUUID },
    );
    this.run(decision.events);
  }

  /** Applies events as a shard does: each through `apply`, then `forget` once for the batch. */
  run(events: readonly EngineEvent[]): void {
    for (const event of events) {
      this.state = core.apply(this.state, event);
      this.journal.push(event);
    }
    if (this.state === undefined) return;
    const spend = (record: SpentKey): void => {
      this.spent.set(record.key, record);
    };
    this.forgotten.push(...(core.forget?.(this.state, undefined, spend) ?? []));
  }

  place(request: Record<string, unknown>, now = NOW): Reply {
    return this.decideAsShard(
      { type: "PlaceOrder", request: { account_id: this.id, symbol: "BTC-USD", ...request } as never },
      now,
    );
  }

  close(request: Record<string, unknown>, now = NOW): Reply {
    return this.decideAsShard({ type: "ClosePosition", request: { account_id: this.id, ...request } as never }, now);
  }

  /**
   * A command decided as a shard decides it: when `recallKey` names a client_id, what the table holds under it
   * (read back through JSON, as from the database) goes with the decision.
   */
  decideAsShard(command: EngineCommand["command"], now = NOW): Reply {
    const full: EngineCommand = { userId: "u-1", command };
    const key = core.recallKey?.(this.state, full);
    const ctx = { now, market: this.market, nextId: randomUUID };
    if (key !== undefined) this.lookups.push(key);
    const spent = key === undefined ? undefined : this.spent.get(key);
    const recalled =
      key === undefined
        ? undefined
        : { key, record: spent === undefined ? undefined : { ...spent, data: JSON.parse(spent.data) as unknown } };
    const decision = core.decide(this.state, full, recalled === undefined ? ctx : { ...ctx, recalled });
    this.run(decision.events);
    return decision.reply;
  }

  cancel(orderId: string, now = NOW): Reply {
    const decision = core.decide(
      this.state,
      { userId: "u-1", command: { type: "CancelOrder", request: { order_id: orderId } } },
      { now, market: this.market, nextId: randomUUID },
    );
    this.run(decision.events);
    return decision.reply;
  }

  get orders(): AccountState["orders"] {
    if (this.state === undefined) throw new Error("no account");
    return this.state.orders;
  }

  /** The state a replay of the journal rebuilds, forgetting where each decision ends as a shard's rebuild does. */
  replayed(): AccountState {
    let state: AccountState | undefined;
    let at: number | undefined;
    for (const event of this.journal) {
      if (state !== undefined && at !== undefined && event.at !== at) core.forget?.(state);
      state = core.apply(state, event);
      at = event.at;
    }
    if (state === undefined) throw new Error("empty journal");
    core.forget?.(state);
    return state;
  }
}

const orderIdOf = (reply: Reply): string => {
  if (!("order" in reply)) throw new Error(`no order in ${JSON.stringify(reply)}`);
  return reply.order.order_id;
};

afterEach(() => {
  core.configure?.({});
});

describe("the cap on working orders", () => {
  it("refuses a third working order with 409 order_limit_reached and the limit, and emits nothing", () => {
    core.configure?.({ maxWorkingOrders: 2 });
    const account = new Account();
    expect(account.place(RESTING).kind).toBe("created");
    expect(account.place(RESTING).kind).toBe("created");
    const journaled = account.journal.length;
    expect(account.place(RESTING)).toEqual({ kind: "error", code: "order_limit_reached", fields: { limit: 2 } });
    expect(account.journal).toHaveLength(journaled);
  });

  it("counts only working orders: a canceled one frees its place, a rejected one never takes one", () => {
    core.configure?.({ maxWorkingOrders: 1 });
    const account = new Account();
    const first = orderIdOf(account.place(RESTING));
    expect(account.place(RESTING)).toMatchObject({ code: "order_limit_reached" });
    expect(account.cancel(first).kind).toBe("ok");
    expect(account.place(REFUSED).kind).toBe("rejected");
    expect(account.place(RESTING).kind).toBe("created");
  });

  it("still replays a client_id of an order placed before the cap was reached", () => {
    core.configure?.({ maxWorkingOrders: 1 });
    const account = new Account();
    const first = account.place({ ...RESTING, client_id: "c-1" });
    expect(account.place({ ...RESTING, client_id: "c-1" })).toEqual({ ...first, kind: "replayed" });
  });
});

describe("final orders leave the actor's memory", () => {
  it("forgets a rejected order once final for longer than the retention, at the next event", () => {
    core.configure?.({ finalOrderRetentionMs: MINUTE });
    const account = new Account();
    const rejected = orderIdOf(account.place(REFUSED));
    account.place(REFUSED, NOW + MINUTE - 1);
    expect(account.orders.has(rejected)).toBe(true);
    account.place(REFUSED, NOW + MINUTE);
    expect(account.orders.has(rejected)).toBe(false);
    expect(account.forgotten).toEqual([rejected]);
  });

  it("keeps at most finalOrdersKept final orders, the newest, and never a working one", () => {
    core.configure?.({ finalOrdersKept: 5 });
    const account = new Account();
    const working = orderIdOf(account.place(RESTING));
    const rejected = Array.from({ length: 50 }, (_, i) => orderIdOf(account.place(REFUSED, NOW + i)));
    expect([...account.orders.keys()].sort()).toEqual([working, ...rejected.slice(-5)].sort());
    expect(account.forgotten.sort()).toEqual(rejected.slice(0, -5).sort());
    expect(retainedCounts(account.state as AccountState).finals).toBe(5);
  });

  it("keeps a final bracket member while its bracket works (its siblings' fills are read)", () => {
    core.configure?.({ finalOrderRetentionMs: MINUTE });
    const account = new Account();
    const parent = orderIdOf(account.place(RESTING));
    const stop = orderIdOf(
      account.place({ side: "SELL", kind: "STOP", quantity: "0.001", trigger_price: "39000", parent_order_id: parent }),
    );
    const take = orderIdOf(
      account.place({
        side: "SELL",
        kind: "TAKE_PROFIT",
        quantity: "0.001",
        trigger_price: "45000",
        parent_order_id: parent,
      }),
    );
    expect(account.cancel(take).kind).toBe("ok");
    account.place(REFUSED, NOW + 2 * MINUTE);
    expect(account.orders.has(take)).toBe(true);
    // Canceling the parent (no fill) cancels the stop too: the whole bracket is final, and goes a retention later.
    expect(account.cancel(parent, NOW + 2 * MINUTE).kind).toBe("ok");
    account.place(REFUSED, NOW + 4 * MINUTE);
    for (const id of [parent, stop, take]) expect(account.orders.has(id)).toBe(false);
  });

  it("replays under a lower retention a child placed on a filled parent the lower limit forgets first: the child still protects the position", () => {
    // Live: everything kept; a MARKET parent fills, a stop-loss child is placed on it a minute later.
    const account = new Account();
    const parent = orderIdOf(account.place({ side: "BUY", kind: "MARKET", quantity: "0.001" }));
    expect(account.orders.get(parent)?.status).toBe("FILLED");
    const stop = orderIdOf(
      account.place(
        { side: "SELL", kind: "STOP", quantity: "0.001", trigger_price: "39000", parent_order_id: parent },
        NOW + MINUTE,
      ),
    );
    // Rebuilt with no final order kept: the parent is forgotten before the child's OrderAccepted is replayed.
    core.configure?.({ finalOrdersKept: 0 });
    const replayed = account.replayed();
    expect(replayed.orders.has(parent)).toBe(false);
    expect(replayed.orders.get(stop)?.status).toBe("NEW");
    expect(replayed.positions.size).toBe(1);
    // The price falls through the stop: it closes the whole position.
    const update = { prices: [{ symbol: "BTC-USD", mark: 380_000, index: 380_000, skew: 0 }] };
    const view = core.updateMarket?.(account.market, update, NOW + 2 * MINUTE);
    const events = core.onMarket?.(replayed, update, { now: NOW + 2 * MINUTE, market: view, nextId: randomUUID }) ?? [];
    let state = replayed;
    for (const event of events) state = core.apply(state, event);
    expect(state.orders.get(stop)?.status).toBe("FILLED");
    expect(state.positions.size).toBe(0);
  });

  it("forgets the same orders when the journal is replayed", () => {
    core.configure?.({ finalOrderRetentionMs: MINUTE, finalOrdersKept: 3, clientIdWindowMs: 2 * MINUTE });
    const account = new Account();
    for (let i = 0; i < 20; i++) account.place({ ...REFUSED, client_id: `c-${i}` }, NOW + i * 10_000);
    const midway = account.replayed();
    expect([...midway.orders.keys()]).toEqual([...account.orders.keys()]);
    expect([...midway.client_ids.keys()]).toEqual([...(account.state as AccountState).client_ids.keys()]);
    expect(midway.orders.size).toBe(3);
    expect(midway.client_ids.size).toBe(12);
    account.place(RESTING, NOW + 30 * MINUTE);
    const replayed = account.replayed();
    expect([...replayed.orders.keys()]).toEqual([...account.orders.keys()]);
    expect([...replayed.client_ids.keys()]).toEqual([...(account.state as AccountState).client_ids.keys()]);
    expect(replayed.orders.size).toBe(1);
    expect(replayed.client_ids.size).toBe(0);
  });
});

describe("the client_id window", () => {
  it("replays the first answer within the window", () => {
    core.configure?.({ clientIdWindowMs: 10 * MINUTE });
    const account = new Account();
    const first = account.place({ ...REFUSED, client_id: "c-1" });
    account.place(REFUSED, NOW + 10 * MINUTE - 1);
    expect(account.place({ ...REFUSED, client_id: "c-1" }, NOW + 10 * MINUTE - 1)).toEqual({
      ...first,
      kind: "replayed",
    });
  });

  it("replays the first answer for a client_id forgotten past the window, from the record the shard looks up", () => {
    core.configure?.({ clientIdWindowMs: 10 * MINUTE });
    const account = new Account();
    const first = account.place({ ...REFUSED, client_id: "c-1" });
    account.place(REFUSED, NOW + 10 * MINUTE);
    expect((account.state as AccountState).client_ids.has("c-1")).toBe(false);
    expect([...account.spent.keys()]).toEqual(["c-1"]);
    expect(account.place({ ...REFUSED, client_id: "c-1" }, NOW + 20 * MINUTE)).toEqual({ ...first, kind: "replayed" });
    expect(account.lookups).toEqual(["c-1"]);
  });

  it("keeps at most clientIdsKept records, the newest, and replays one forgotten past the count", () => {
    core.configure?.({ clientIdsKept: 100 });
    const account = new Account();
    const answers = Array.from({ length: 150 }, (_, i) => account.place({ ...REFUSED, client_id: `c-${i}` }, NOW + i));
    const kept = [...(account.state as AccountState).client_ids.keys()];
    expect(kept).toEqual(Array.from({ length: 100 }, (_, i) => `c-${i + 50}`));
    expect(account.spent.size).toBe(50);
    expect(account.place({ ...REFUSED, client_id: "c-7" }, NOW + 200)).toEqual({ ...answers[7], kind: "replayed" });
  });

  it("answers 409 with the client_id and its order for a forgotten client_id sent with another body", () => {
    core.configure?.({ clientIdsKept: 1 });
    const account = new Account();
    const first = orderIdOf(account.place({ ...RESTING, client_id: "c-1" }));
    account.place({ ...REFUSED, client_id: "c-2" });
    expect(account.place({ ...RESTING, quantity: "0.002", client_id: "c-1" })).toEqual({
      kind: "error",
      code: "conflict",
      fields: { client_id: "c-1", order_id: first },
    });
  });

  it("replays a close-position retry of a client_id forgotten since", () => {
    core.configure?.({ clientIdsKept: 1 });
    const account = new Account();
    account.place({ side: "BUY", kind: "MARKET", quantity: "0.002" });
    const first = account.close({ symbol: "BTC-USD", quantity: "0.001", client_id: "close-1" });
    expect(first.kind).toBe("created");
    account.place({ ...REFUSED, client_id: "c-2" });
    expect(account.spent.has("close-1")).toBe(true);
    expect(account.close({ symbol: "BTC-USD", quantity: "0.001", client_id: "close-1" })).toEqual({
      ...first,
      kind: "replayed",
    });
    expect(account.close({ symbol: "BTC-USD", quantity: "0.002", client_id: "close-1" })).toMatchObject({
      code: "conflict",
    });
  });

  it("looks up no client_id the account never forgot, nor one it still holds", () => {
    core.configure?.({ clientIdsKept: 2 });
    const account = new Account();
    for (let i = 0; i < 5; i++) account.place({ ...REFUSED, client_id: `c-${i}` });
    account.place({ ...REFUSED, client_id: "c-4" });
    account.place({ ...REFUSED, client_id: "fresh" });
    account.place(REFUSED);
    expect(account.lookups).toEqual([]);
  });

  it("decides a new order when the table holds nothing under a client_id the filter matched (a false positive)", () => {
    core.configure?.({ clientIdsKept: 1 });
    const account = new Account();
    const first = orderIdOf(account.place({ ...REFUSED, client_id: "c-1" }));
    account.place(REFUSED);
    account.place({ ...REFUSED, client_id: "c-2" });
    account.spent.delete("c-1");
    const again = account.place({ ...REFUSED, client_id: "c-1" });
    expect(account.lookups).toEqual(["c-1"]);
    expect(again.kind).toBe("rejected");
    expect(orderIdOf(again)).not.toBe(first);
  });

  it("keeps the filter of forgotten client_ids through a replay of the journal and through a snapshot", () => {
    core.configure?.({ clientIdsKept: 3 });
    const account = new Account();
    for (let i = 0; i < 40; i++) account.place({ ...REFUSED, client_id: `c-${i}` }, NOW + i);
    const live = account.state as AccountState;
    const retry: EngineCommand = {
      userId: "u-1",
      command: {
        type: "PlaceOrder",
        request: { account_id: account.id, symbol: "BTC-USD", client_id: "c-0" } as never,
      },
    };
    const replayed = account.replayed();
    expect(replayed.retention.forgotten).toEqual(live.retention.forgotten);
    expect(core.recallKey?.(replayed, retry)).toBe("c-0");
    const restored = core.restore?.(JSON.parse(JSON.stringify(core.snapshot?.(live))) as unknown);
    expect(restored?.retention.forgotten).toEqual(live.retention.forgotten);
    expect(core.recallKey?.(restored, retry)).toBe("c-0");
  });
});

describe("configure", () => {
  it("refuses an unknown setting and a negative or fractional value", () => {
    expect(() => core.configure?.({ maxOrders: 1 })).toThrow(/unknown core setting maxOrders/);
    expect(() => core.configure?.({ maxWorkingOrders: -1 })).toThrow(/non-negative integer/);
    expect(() => core.configure?.({ clientIdWindowMs: 1.5 })).toThrow(/non-negative integer/);
  });
});
