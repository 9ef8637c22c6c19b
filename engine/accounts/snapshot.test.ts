// Snapshots of an account's state (docs/engine.md, "Snapshots"): through JSON and back, a state equals the one
// it was taken of (tables, shared order objects, the memory bookkeeping), and the events after it bring it to
// the state a replay of the whole journal gives.
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { createCore } from "../trading-core.js";
import type { AccountState, EngineEvent } from "../core.js";
import type { MarketView } from "../market/book.js";
import { retainedCounts } from "./retention.js";
import { restoreState, snapshotOf, type AccountSnapshot } from "./snapshot.js";

const core = createCore();

const PLAN_ID = "15ef9280-770d-4664-9de7-93fcd7677a98";
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);

/** An account traded through the actor core; every event is journaled. */
class Account {
  readonly id = randomUUID();
  readonly journal: EngineEvent[] = [];
  state: AccountState | undefined;
  market: MarketView | undefined;
  now = NOW;

  constructor() {
    this.price(500_000);
    this.decide({ type: "OpenAccount", request: { account_id: this.id, user_id: "u-1", plan_id: PLAN_ID } });
  }

  private run(events: readonly EngineEvent[]): void {
    for (const event of events) {
      this.state = core.apply(this.state, event);
      this.journal.push(event);
    }
    if (this.state !== undefined) core.forget?.(this.state);
    core.onDecided?.(this.market, events);
  }

  decide(command: unknown): void {
    const decision = core.decide(this.state, { userId: "u-1", command: command as never }, this.ctx());
    this.run(decision.events);
  }

  place(request: Record<string, unknown>): string | undefined {
    const decision = core.decide(
      this.state,
      {
        userId: "u-1",
        command: { type: "PlaceOrder", request: { account_id: this.id, symbol: "BTC-USD", ...request } as never },
      },
      this.ctx(),
    );
    this.run(decision.events);
    return "order" in decision.reply ? decision.reply.order.order_id : undefined;
  }

  price(mark: number): void {
    const update = { prices: [{ symbol: "BTC-USD", mark, index: mark, skew: 0 }] };
    this.market = core.updateMarket?.(this.market, update, this.now);
    if (this.state !== undefined) this.run(core.onMarket?.(this.state, update, this.ctx()) ?? []);
  }

  funding(): void {
    const update = { prices: [], funding: { cryptoPpm: 100, rolloverPpm: 50 } };
    if (this.state !== undefined) this.run(core.onMarket?.(this.state, update, this.ctx()) ?? []);
  }

  private ctx() {
    return { now: this.now, market: this.market, nextId: randomUUID };
  }
}

/** `events` applied onto `state` as a shard replays them: forgetting where each decision ends (its time). */
function replayOnto(state: AccountState | undefined, events: readonly EngineEvent[]): AccountState {
  let next = state;
  let at: number | undefined;
  for (const event of events) {
    if (next !== undefined && at !== undefined && event.at !== at) core.forget?.(next);
    next = core.apply(next, event);
    at = event.at;
  }
  if (next === undefined) throw new Error("nothing replayed");
  core.forget?.(next);
  return next;
}

const throughJson = (state: AccountState): AccountState => {
  const restored = restoreState(JSON.parse(JSON.stringify(snapshotOf(state))) as AccountSnapshot);
  if (restored === undefined) throw new Error("not restored");
  return restored;
};

afterEach(() => {
  core.configure?.({});
});

/** A session with positions, fills, a bracket, GTD and rejected orders, client_ids, funding and a new day. */
function tradedAccount(): Account {
  core.configure?.({ finalOrdersKept: 5, clientIdsKept: 100 });
  const account = new Account();
  account.place({ side: "BUY", kind: "MARKET", quantity: "0.01", client_id: "m-1" });
  const parent = account.place({ side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "49000" });
  account.place({ side: "SELL", kind: "STOP", quantity: "0.01", trigger_price: "45000", parent_order_id: parent });
  account.place({ side: "SELL", kind: "STOP", quantity: "0.005", trigger_price: "44000", reduce_only: true });
  account.place({
    side: "BUY",
    kind: "LIMIT",
    quantity: "0.001",
    limit_price: "30000",
    time_in_force: "GTD",
    expire_at: new Date(NOW + 3_600_000).toISOString(),
  });
  for (let i = 0; i < 12; i++) {
    account.now += 1_000;
    account.place({
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.001",
      limit_price: "60000",
      post_only: true,
      client_id: `r-${i}`,
    });
  }
  account.now += 60_000;
  account.price(489_000);
  account.funding();
  account.now += 86_400_000;
  account.price(492_000);
  // Everything sold: the position closes (a history row), its protective orders are canceled.
  const held = [...(account.state as AccountState).positions.values()].reduce((sum, p) => sum + p.quantity, 0);
  account.place({ side: "SELL", kind: "MARKET", quantity: (held / 10_000).toFixed(4) });
  account.place({ side: "BUY", kind: "MARKET", quantity: "0.002" });
  account.place({ side: "SELL", kind: "STOP", quantity: "0.001", trigger_price: "45000", reduce_only: true });
  account.place({ side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "40000" });
  return account;
}

describe("account snapshots", () => {
  it("restore a state equal to the one they were taken of, with its orders shared by the working tables", () => {
    const account = tradedAccount();
    const state = account.state as AccountState;
    expect(state.positions.size).toBe(1);
    expect(state.closed_positions).toHaveLength(1);
    expect(state.fills.length).toBeGreaterThan(3);
    expect(state.working.size).toBe(2);
    expect(state.stop_losses.size).toBe(1);
    expect([...state.reduce_only.keys()]).toEqual([...state.stop_losses.keys()]);
    const restored = throughJson(state);
    expect(restored).toEqual(state);
    expect(restored.plan).toBe(state.plan);
    for (const [id, order] of restored.working) expect(order).toBe(restored.orders.get(id));
    for (const [id, order] of restored.stop_losses) expect(order).toBe(restored.orders.get(id));
    for (const [id, order] of restored.reduce_only) expect(order).toBe(restored.orders.get(id));
    expect(retainedCounts(restored)).toEqual(retainedCounts(state));
    expect(retainedCounts(restored).finals).toBe(5);
    // Map equality ignores order; the order of client_ids is the order they are forgotten in.
    expect([...restored.client_ids.keys()]).toEqual([...state.client_ids.keys()]);
  });

  it("list each client_id's recorded time beside the records, oldest first (what a rollback forgets by)", () => {
    const account = new Account();
    for (let i = 0; i < 5; i++) {
      account.now += 1_000;
      account.place({ side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "40000", client_id: `c-${i}` });
    }
    const snapshot = snapshotOf(account.state as AccountState);
    expect(snapshot.retention.clientIds).toEqual(
      [0, 1, 2, 3, 4].map((i) => [`c-${i}`, NOW + (i + 1) * 1_000] as [string, number]),
    );
  });

  it("plus the events after them give the state a replay of the whole journal gives", () => {
    const account = tradedAccount();
    // Where a decision ends (a shard snapshots after a commit): the next event has another time.
    let cut = Math.floor(account.journal.length / 2);
    while (account.journal[cut]?.at === account.journal[cut - 1]?.at) cut++;
    const snapshot = throughJson(replayOnto(undefined, account.journal.slice(0, cut)));
    const fromSnapshot = replayOnto(snapshot, account.journal.slice(cut));
    const whole = replayOnto(undefined, account.journal);
    expect(fromSnapshot).toEqual(whole);
    expect(fromSnapshot).toEqual(account.state);
    expect(retainedCounts(fromSnapshot)).toEqual(retainedCounts(whole));
  });

  it("written with the record times apart (retention.clientIds) restore each record's recorded_at from them", () => {
    const account = new Account();
    for (let i = 0; i < 12; i++) {
      account.now += 1_000;
      account.place({ side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "40000", client_id: `c-${i}` });
    }
    const state = account.state as AccountState;
    const snapshot = JSON.parse(JSON.stringify(snapshotOf(state))) as AccountSnapshot;
    // The earlier form of version 1: records without their time, the times in a list beside them.
    const times: [string, number][] = [];
    for (const entry of snapshot.tables.client_ids) {
      const record = entry[1] as { recorded_at?: number };
      times.push([entry[0] as string, record.recorded_at as number]);
      delete record.recorded_at;
    }
    expect(times.length).toBeGreaterThan(10);
    expect(new Set(times.map(([, at]) => at)).size).toBeGreaterThan(10);
    const restored = restoreState({ ...snapshot, retention: { ...snapshot.retention, clientIds: times } });
    expect(restored).toEqual(state);
    // One without a listed time keeps the full window from the latest event.
    const [firstId] = times[0] as [string, number];
    const unlisted = restoreState({ ...snapshot, retention: { ...snapshot.retention, clientIds: times.slice(1) } });
    expect(unlisted?.client_ids.get(firstId)?.recorded_at).toBe(snapshot.retention.lastAt);
  });

  it("restore a state with a fresh state's fields in its order (one hidden class for decide and apply)", () => {
    const fresh = new Account().state as AccountState;
    const state = tradedAccount().state as AccountState;
    expect(Object.keys(state)).toEqual(Object.keys(fresh));
    expect(Object.keys(throughJson(state))).toEqual(Object.keys(fresh));
    // A snapshot from before `cancel_after` existed (ADDED_FIELDS) too.
    const older = JSON.parse(JSON.stringify(snapshotOf(state))) as AccountSnapshot;
    delete older.fields.cancel_after;
    const restored = restoreState(older);
    expect(restored?.cancel_after).toBeNull();
    expect(Object.keys(restored ?? {})).toEqual(Object.keys(fresh));
  });

  it("are refused when of another version", () => {
    const snapshot = snapshotOf(tradedAccount().state as AccountState);
    expect(restoreState({ ...snapshot, version: snapshot.version + 1 })).toBeUndefined();
  });
});
