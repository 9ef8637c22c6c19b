// The dead-man's switch (docs/risk.md, "Cancel-after") through the pure core: arming at the boundaries, firing
// exactly at the deadline, the orders it keeps and cancels, its webhook, and replay.
import { describe, expect, it } from "vitest";
import { apply, replay, type EngineEvent } from "../core.js";
import { Harness, PLAN, WEDNESDAY_NOON } from "../core.testing.js";
import { createCore } from "../trading-core.js";
import { restoreState, snapshotOf } from "../accounts/snapshot.js";
import type { CancelAfterReply } from "./cancel-after.js";

function btc(): Harness {
  const h = new Harness().open(PLAN.c10k);
  h.quote("BTC-USD", "100000");
  h.quote("ETH-USD", "3400");
  return h;
}

function arm(h: Harness, timeoutMs: number): CancelAfterReply {
  return h.run({ type: "SetCancelAfter", request: { account_id: h.account.account_id, timeout_ms: timeoutMs } });
}

/** The shard's clock waking the account: a MarketUpdate of every symbol at the current marks. */
function wake(h: Harness): EngineEvent[] {
  h.run({ type: "MarketUpdate" });
  return h.lastEvents;
}

function types(events: readonly EngineEvent[]): string[] {
  return events.map((event) => event.type);
}

function fired(events: readonly EngineEvent[]) {
  const event = events.find((e) => e.type === "CancelAfterFired");
  if (event?.type !== "CancelAfterFired") throw new Error(`no CancelAfterFired in ${types(events).join(", ")}`);
  return event;
}

function expectReplayEqual(h: Harness): void {
  expect(replay(h.journal)).toEqual(h.state);
}

describe("arming, re-arming and disarming", () => {
  it("arms at now + timeout and answers the switch as armed", () => {
    const h = btc();
    const reply = arm(h, 60_000);
    expect(reply).toEqual({
      kind: "cancel_after",
      cancel_after: {
        account_id: h.account.account_id,
        armed: true,
        timeout_ms: 60_000,
        deadline: new Date(WEDNESDAY_NOON + 60_000).toISOString(),
      },
    });
    expect(h.lastEvents).toEqual([
      { type: "CancelAfterArmed", at: WEDNESDAY_NOON, timeout_ms: 60_000, deadline: WEDNESDAY_NOON + 60_000 },
    ]);
    expectReplayEqual(h);
  });

  it.each([1_000, 86_400_000])("accepts %i ms, a bound", (timeoutMs) => {
    const h = btc();
    expect(arm(h, timeoutMs)).toMatchObject({ kind: "cancel_after", cancel_after: { armed: true } });
  });

  it.each([999, 86_400_001, -1, 1_500.5, 1])("refuses %s ms with invalid_payload and journals nothing", (timeoutMs) => {
    const h = btc();
    const reply = arm(h, timeoutMs);
    const message =
      timeoutMs === 1_500.5
        ? "must be a whole number of milliseconds"
        : "must be 0 (disarm) or between 1000 and 86400000 ms (24 h)";
    expect(reply).toEqual({
      kind: "error",
      code: "invalid_payload",
      fields: { issues: [{ path: "timeout_ms", message }] },
    });
    expect(h.lastEvents).toEqual([]);
    expect(h.account.cancel_after).toBeNull();
  });

  it("re-arming moves the deadline: the old one passes without firing", () => {
    const h = btc();
    const { order } = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "90000",
    });
    arm(h, 5_000);
    h.now += 4_000;
    expect(arm(h, 5_000)).toMatchObject({
      cancel_after: { deadline: new Date(WEDNESDAY_NOON + 9_000).toISOString() },
    });
    h.now = WEDNESDAY_NOON + 5_000;
    expect(wake(h)).toEqual([]);
    expect(h.order(order.order_id).status).toBe("NEW");
    h.now = WEDNESDAY_NOON + 9_000;
    expect(fired(wake(h)).canceled).toEqual([{ order_id: order.order_id, reason: "cancel_after" }]);
    expectReplayEqual(h);
  });

  it("disarming with 0 stops it; 0 on a disarmed switch journals nothing", () => {
    const h = btc();
    const { order } = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "90000",
    });
    arm(h, 5_000);
    expect(arm(h, 0)).toEqual({
      kind: "cancel_after",
      cancel_after: { account_id: h.account.account_id, armed: false, timeout_ms: null, deadline: null },
    });
    expect(types(h.lastEvents)).toEqual(["CancelAfterDisarmed"]);
    arm(h, 0);
    expect(h.lastEvents).toEqual([]);
    h.now += 5_000;
    expect(wake(h)).toEqual([]);
    expect(h.order(order.order_id).status).toBe("NEW");
    expectReplayEqual(h);
  });

  it("refuses to arm on a terminated account (409 account_terminated); 0 still answers disarmed", () => {
    const h = btc();
    h.state = apply(h.state, {
      type: "AccountTerminated",
      at: h.now,
      violation: {
        violation_id: "00000000-0000-4000-8000-00000000abcd",
        rule: "daily_loss_limit",
        threshold: 1,
        value: 1,
        message: "test",
        occurred_at: h.now,
      } as never,
    });
    expect(arm(h, 60_000)).toEqual({ kind: "error", code: "conflict", fields: { reason: "account_terminated" } });
    expect(arm(h, 0)).toMatchObject({ kind: "cancel_after", cancel_after: { armed: false } });
    expect(h.lastEvents).toEqual([]);
  });

  it("is disarmed by a termination", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    arm(h, 600_000);
    // A loss of 500 (the daily limit) terminates: 6 fee + 0.1 × (100,000 − 95,060).
    h.price("BTC-USD", "95060");
    expect(h.account.state).toBe("TERMINATED");
    expect(h.account.cancel_after).toBeNull();
    h.now += 600_000;
    expect(wake(h)).toEqual([]);
    expectReplayEqual(h);
  });
});

describe("firing", () => {
  it("fires exactly at the deadline, not 1 ms before, then is disarmed", () => {
    const h = btc();
    const { order } = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "90000",
    });
    arm(h, 30_000);
    h.now = WEDNESDAY_NOON + 29_999;
    expect(wake(h)).toEqual([]);
    expect(h.price("BTC-USD", "100000")).toEqual([]);
    h.now = WEDNESDAY_NOON + 30_000;
    expect(types(wake(h))).toEqual(["OrderCanceled", "CancelAfterFired"]);
    expect(h.order(order.order_id)).toMatchObject({ status: "CANCELED" });
    expect(h.account.orders.get(order.order_id)?.reason).toBe("cancel_after");
    expect(h.account.cancel_after).toBeNull();
    expect(fired(h.lastEvents)).toEqual({
      type: "CancelAfterFired",
      at: WEDNESDAY_NOON + 30_000,
      timeout_ms: 30_000,
      deadline: WEDNESDAY_NOON + 30_000,
      canceled: [{ order_id: order.order_id, reason: "cancel_after" }],
      kept: [],
    });
    h.now += 60_000;
    expect(wake(h)).toEqual([]);
    expectReplayEqual(h);
  });

  it("fires on a price update of another symbol too (any decision at or after the deadline)", () => {
    const h = btc();
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "90000" });
    arm(h, 1_000);
    h.now += 1_000;
    expect(types(h.price("ETH-USD", "3400"))).toEqual(["OrderCanceled", "CancelAfterFired"]);
  });

  it("a heartbeat that comes after the deadline is too late: the switch fires first, then arms again", () => {
    const h = btc();
    const { order } = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "90000",
    });
    arm(h, 1_000);
    h.now += 1_001;
    const reply = arm(h, 1_000);
    expect(types(h.lastEvents)).toEqual(["OrderCanceled", "CancelAfterFired", "CancelAfterArmed"]);
    expect(h.order(order.order_id).status).toBe("CANCELED");
    expect(reply).toMatchObject({ cancel_after: { armed: true, deadline: new Date(h.now + 1_000).toISOString() } });
    expectReplayEqual(h);
  });

  it("fires with nothing to cancel: an empty account gets its event all the same", () => {
    const h = btc();
    arm(h, 1_000);
    h.now += 1_000;
    expect(fired(wake(h))).toMatchObject({ canceled: [], kept: [] });
  });

  it("places an order after firing normally, and does not fire again", () => {
    const h = btc();
    arm(h, 1_000);
    h.now += 1_000;
    wake(h);
    h.now += 1;
    const { order } = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "90000",
    });
    expect(order.status).toBe("NEW");
    expect(types(h.lastEvents)).toEqual(["OrderAccepted"]);
    h.now += 86_400_000;
    h.price("BTC-USD", "100000");
    expect(h.order(order.order_id).status).toBe("NEW");
    expect(createCore().wakeAt?.(h.account)).toBeUndefined();
  });
});

describe("what it keeps", () => {
  /**
   * Long 0.01 BTC from a filled bracket (its take-profit and stop-loss working), a reduce-only SELL LIMIT on the
   * long, an unfilled bracket (parent and HELD stop), a plain BUY LIMIT, a plain SELL LIMIT above the market, and
   * an ETH entry stop: everything but the reduce-only orders on the long goes.
   */
  function book() {
    const h = btc();
    const filledParent = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "99000",
    });
    const tp = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "TAKE_PROFIT",
      quantity: "0.01",
      trigger_price: "105000",
      parent_order_id: filledParent.order.order_id,
    });
    const sl = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "97000",
      parent_order_id: filledParent.order.order_id,
    });
    h.price("BTC-USD", "98900");
    const reduceOnly = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "LIMIT",
      quantity: "0.005",
      limit_price: "110000",
      reduce_only: true,
    });
    const openParent = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "90000",
    });
    const heldStop = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "88000",
      parent_order_id: openParent.order.order_id,
    });
    const buyLimit = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "95000",
    });
    const sellLimit = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "LIMIT",
      quantity: "0.02",
      limit_price: "120000",
    });
    const ethStop = h.placed({ symbol: "ETH-USD", side: "BUY", kind: "STOP", quantity: "0.1", trigger_price: "3500" });
    const ids = {
      filledParent: filledParent.order.order_id,
      tp: tp.order.order_id,
      sl: sl.order.order_id,
      reduceOnly: reduceOnly.order.order_id,
      openParent: openParent.order.order_id,
      heldStop: heldStop.order.order_id,
      buyLimit: buyLimit.order.order_id,
      sellLimit: sellLimit.order.order_id,
      ethStop: ethStop.order.order_id,
    };
    return { h, ids };
  }

  it("keeps the stops and take-profits of an open position, cancels everything that could add exposure", () => {
    const { h, ids } = book();
    expect(h.order(ids.filledParent).status).toBe("FILLED");
    expect(h.order(ids.tp).status).toBe("NEW");
    expect(h.order(ids.heldStop).status).toBe("HELD");
    arm(h, 10_000);
    h.now += 10_000;
    const event = fired(wake(h));
    expect(event.kept).toEqual([ids.tp, ids.sl, ids.reduceOnly]);
    expect(event.canceled).toEqual([
      { order_id: ids.openParent, reason: "cancel_after" },
      { order_id: ids.heldStop, reason: "parent_canceled" },
      { order_id: ids.buyLimit, reason: "cancel_after" },
      { order_id: ids.sellLimit, reason: "cancel_after" },
      { order_id: ids.ethStop, reason: "cancel_after" },
    ]);
    expect([...h.account.working.keys()]).toEqual([ids.tp, ids.sl, ids.reduceOnly]);
    expect(h.account.positions.size).toBe(1);
    expectReplayEqual(h);
  });

  it("fires on a state rebuilt from the journal before any price reached the new view (a restart)", () => {
    const { h, ids } = book();
    arm(h, 10_000);
    const restarted = new Harness(h.now + 60_000);
    restarted.state = replay(h.journal);
    const event = fired(wake(restarted));
    expect(event.kept).toEqual([ids.tp, ids.sl, ids.reduceOnly]);
    expect(event.canceled).toHaveLength(5);
  });

  it("the kept stop still protects the position after firing", () => {
    const { h, ids } = book();
    arm(h, 10_000);
    h.now += 10_000;
    wake(h);
    h.price("BTC-USD", "96900");
    expect(h.order(ids.sl).status).toBe("FILLED");
    expect(h.account.positions.size).toBe(0);
  });

  it("renders order.cancel for each cancel, then account.cancel_after listing what it canceled and kept", () => {
    const { h, ids } = book();
    arm(h, 10_000);
    h.now += 10_000;
    const before = h.outbox.length;
    wake(h);
    const entries = h.outbox.slice(before);
    expect(entries.map((entry) => entry.type)).toEqual([
      "order.cancel",
      "order.cancel",
      "order.cancel",
      "order.cancel",
      "order.cancel",
      "account.cancel_after",
    ]);
    expect(JSON.parse(entries[0]?.data ?? "")).toMatchObject({ order_id: ids.openParent, reason: "cancel_after" });
    const data = JSON.parse(entries[5]?.data ?? "") as {
      canceled: { order_id: string; reason: string; status: string }[];
      kept: { order_id: string; status: string; reduce_only: boolean }[];
    };
    expect(data).toMatchObject({
      account_id: h.account.account_id,
      timeout_ms: 10_000,
      deadline: new Date(h.now).toISOString(),
      fired_at: new Date(h.now).toISOString(),
    });
    expect(data.canceled.map((o) => [o.order_id, o.reason, o.status])).toEqual([
      [ids.openParent, "cancel_after", "CANCELED"],
      [ids.heldStop, "parent_canceled", "CANCELED"],
      [ids.buyLimit, "cancel_after", "CANCELED"],
      [ids.sellLimit, "cancel_after", "CANCELED"],
      [ids.ethStop, "cancel_after", "CANCELED"],
    ]);
    expect(data.kept).toEqual([
      expect.objectContaining({ order_id: ids.tp, kind: "TAKE_PROFIT", status: "NEW", reduce_only: true }),
      expect.objectContaining({ order_id: ids.sl, kind: "STOP", status: "NEW", reduce_only: true }),
      expect.objectContaining({ order_id: ids.reduceOnly, kind: "LIMIT", status: "NEW", reduce_only: true }),
    ]);
  });

  it("cancels a parent's HELD child right after the parent; lists what it canceled in placement order", () => {
    const h = btc();
    const parent = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "90000" });
    const plain = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "91000" });
    const child = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "85000",
      parent_order_id: parent.order.order_id,
    });
    arm(h, 1_000);
    h.now += 1_000;
    const events = wake(h);
    expect(events.flatMap((e) => (e.type === "OrderCanceled" ? [[e.order_id, e.reason]] : []))).toEqual([
      [parent.order.order_id, "cancel_after"],
      [child.order.order_id, "parent_canceled"],
      [plain.order.order_id, "cancel_after"],
    ]);
    expect(fired(events).canceled).toEqual([
      { order_id: parent.order.order_id, reason: "cancel_after" },
      { order_id: plain.order.order_id, reason: "cancel_after" },
      { order_id: child.order.order_id, reason: "parent_canceled" },
    ]);
  });

  it("cancels the rest of a partly filled parent and keeps its children, which protect what it filled", () => {
    const h = btc();
    // Thin book: one step a level, so a 0.02 BUY at 100,000 fills only part of it at placement.
    h.quote("BTC-USD", "99999", { depth: 1 });
    const parent = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.02", limit_price: "100000" });
    const stop = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.02",
      trigger_price: "95000",
      parent_order_id: parent.order.order_id,
    });
    expect(h.order(parent.order.order_id).status).toBe("PARTIALLY_FILLED");
    expect(h.order(stop.order.order_id).status).toBe("NEW");
    arm(h, 1_000);
    h.now += 1_000;
    const event = fired(wake(h));
    expect(event.canceled).toEqual([{ order_id: parent.order.order_id, reason: "cancel_after" }]);
    expect(event.kept).toEqual([stop.order.order_id]);
    expectReplayEqual(h);
  });
});

describe("the shard's view of it", () => {
  it("wakeAt is the deadline, or an earlier GTD expiry", () => {
    const core = createCore();
    const h = btc();
    expect(core.wakeAt?.(h.account)).toBeUndefined();
    arm(h, 60_000);
    expect(core.wakeAt?.(h.account)).toBe(WEDNESDAY_NOON + 60_000);
    h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "90000",
      time_in_force: "GTD",
      expire_at: new Date(WEDNESDAY_NOON + 30_000).toISOString(),
    });
    expect(core.wakeAt?.(h.account)).toBe(WEDNESDAY_NOON + 30_000);
    arm(h, 10_000);
    expect(core.wakeAt?.(h.account)).toBe(WEDNESDAY_NOON + 10_000);
  });

  it("the query answers the switch", () => {
    const core = createCore();
    const h = btc();
    arm(h, 60_000);
    const query = { userId: h.account.user_id, query: { type: "cancel_after" } } as const;
    expect(core.query(h.account, query, { now: h.now, market: h.market })).toEqual({
      account_id: h.account.account_id,
      armed: true,
      timeout_ms: 60_000,
      deadline: new Date(WEDNESDAY_NOON + 60_000).toISOString(),
    });
  });

  it("a snapshot carries an armed switch; an older snapshot without the field reads as disarmed", () => {
    const h = btc();
    arm(h, 60_000);
    const snapshot = JSON.parse(JSON.stringify(snapshotOf(h.account))) as ReturnType<typeof snapshotOf>;
    expect(restoreState(snapshot)?.cancel_after).toEqual({ timeout_ms: 60_000, deadline: WEDNESDAY_NOON + 60_000 });
    delete snapshot.fields.cancel_after;
    expect(restoreState(snapshot)?.cancel_after).toBeNull();
  });
});
