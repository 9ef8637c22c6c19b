// The engine actor's limits (docs/engine.md, "Limits"): the cap on working orders, final orders leaving the
// actor's memory after their retention (or past the count it keeps), and the client_id replay window. Driven
// through the actor core as a shard drives it (decide, apply, forget), with the limits `configure` sets.
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { retainedCounts } from "./accounts/retention.js";
import { createCore } from "./trading-core.js";
import type { AccountState, EngineEvent, Reply } from "./core.js";
import type { MarketView } from "./market/book.js";

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
    if (this.state !== undefined) this.forgotten.push(...(core.forget?.(this.state) ?? []));
  }

  place(request: Record<string, unknown>, now = NOW): Reply {
    const decision = core.decide(
      this.state,
      {
        userId: "u-1",
        command: { type: "PlaceOrder", request: { account_id: this.id, symbol: "BTC-USD", ...request } as never },
      },
      { now, market: this.market, nextId: randomUUID },
    );
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

  it("places a new order for a client_id reused after the window", () => {
    core.configure?.({ clientIdWindowMs: 10 * MINUTE });
    const account = new Account();
    const first = orderIdOf(account.place({ ...REFUSED, client_id: "c-1" }));
    account.place(REFUSED, NOW + 10 * MINUTE);
    const again = account.place({ ...REFUSED, client_id: "c-1" }, NOW + 10 * MINUTE);
    expect(again.kind).toBe("rejected");
    expect(orderIdOf(again)).not.toBe(first);
  });

  it("keeps at most clientIdsKept records, the newest", () => {
    core.configure?.({ clientIdsKept: 100 });
    const account = new Account();
    for (let i = 0; i < 150; i++) account.place({ ...REFUSED, client_id: `c-${i}` }, NOW + i);
    const kept = [...(account.state as AccountState).client_ids.keys()];
    expect(kept).toEqual(Array.from({ length: 100 }, (_, i) => `c-${i + 50}`));
  });
});

describe("configure", () => {
  it("refuses an unknown setting and a negative or fractional value", () => {
    expect(() => core.configure?.({ maxOrders: 1 })).toThrow(/unknown core setting maxOrders/);
    expect(() => core.configure?.({ maxWorkingOrders: -1 })).toThrow(/non-negative integer/);
    expect(() => core.configure?.({ clientIdWindowMs: 1.5 })).toThrow(/non-negative integer/);
  });
});
