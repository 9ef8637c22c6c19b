// The engine's actor core as the shard sees it: the time an event carries (`eventTime`, which the shard's clock
// starts from after a rebuild) is the `now` of the decision that made it; the clock decides at the current
// market; a dropped decision gives back the book depth it took.
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { createCore } from "./trading-core.js";
import type { AccountState, EngineEvent, Reply } from "./core.js";
import type { MarketView } from "./market/book.js";
import type { NewsEvent } from "./market/calendar.js";
import type { TickQuote } from "./market/prices.js";

const core = createCore();

const PLAN_ID = "15ef9280-770d-4664-9de7-93fcd7677a98";
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

const quote = (mark: number): { prices: TickQuote[] } => ({
  prices: [{ symbol: "BTC-USD", mark, index: mark, skew: 0 }],
});

/** A crypto event at `at`: its freeze window holds around it. */
const cryptoEvent = (at: number): NewsEvent => ({
  id: "cpi",
  title: "CPI",
  scheduled_at: new Date(at).toISOString(),
  at,
  symbols: [],
  asset_classes: ["crypto"],
});

/** One account on BTC-USD at a mark of 50,000: its decisions are applied, and take book depth, as a shard's. */
class Account {
  readonly id = randomUUID();
  readonly market: MarketView | undefined = core.updateMarket?.(undefined, quote(500_000), NOW);
  state: AccountState | undefined;
  readonly opened: EngineEvent[];

  constructor() {
    const decision = core.decide(
      undefined,
      {
        userId: "u-1",
        command: { type: "OpenAccount", request: { account_id: this.id, user_id: "u-1", plan_id: PLAN_ID } },
      },
      { now: NOW, market: this.market, nextId: randomUUID },
    );
    expect(decision.reply.kind).toBe("created");
    this.opened = decision.events;
    this.run(decision.events);
  }

  run(events: readonly EngineEvent[]): void {
    for (const event of events) this.state = core.apply(this.state, event);
    core.onDecided?.(this.market, events);
  }

  /** Decides a BTC-USD order at `now` without applying it. */
  decide(request: Record<string, unknown>, now = NOW): { events: EngineEvent[]; reply: Reply } {
    return core.decide(
      this.state,
      {
        userId: "u-1",
        command: { type: "PlaceOrder", request: { account_id: this.id, symbol: "BTC-USD", ...request } as never },
      },
      { now, market: this.market, nextId: randomUUID },
    );
  }

  place(request: Record<string, unknown>): void {
    const decision = this.decide(request);
    expect(decision.reply.kind).toBe("created");
    this.run(decision.events);
  }
}

describe("engine actor core", () => {
  it("dates every event it decides with the decision's now", () => {
    const account = new Account();
    const placed = account.decide({ side: "BUY", kind: "MARKET", quantity: "0.001", client_id: "c-1" }, NOW + 1_000);
    expect(placed.events.length).toBeGreaterThan(2);
    expect(account.opened.map((e) => core.eventTime?.(e))).toEqual(account.opened.map(() => NOW));
    expect(placed.events.map((e) => core.eventTime?.(e))).toEqual(placed.events.map(() => NOW + 1_000));
  });

  it("on the clock, decides every symbol at the current market: a stop the view crossed triggers", () => {
    const account = new Account();
    account.place({ side: "BUY", kind: "MARKET", quantity: "0.001", client_id: "open" });
    account.place({
      side: "SELL",
      kind: "STOP",
      quantity: "0.001",
      trigger_price: "49000",
      reduce_only: true,
      client_id: "stop",
    });
    if (account.state === undefined) throw new Error("no account");
    // The view moves below the stop, and the account is not decided at that update (its commit failed, say).
    const moved = core.updateMarket?.(account.market, quote(480_000), NOW + 1_000);
    const ctx = { now: NOW + 1_000, market: moved, nextId: randomUUID };
    const types = (core.onClock?.(account.state, ctx) ?? []).map((event) => event.type);
    expect(types).toContain("OrderTriggered");
    expect(types).toContain("OrderFilled");
  });

  it("gives back the book depth a dropped decision took (onUndecided)", () => {
    const account = new Account();
    const placed = account.decide({ side: "BUY", kind: "MARKET", quantity: "0.01", client_id: "c" });
    const taken = (): number | undefined => account.market?.quotes.get("BTC-USD")?.takenBuy;
    expect(taken()).toBe(0);
    core.onDecided?.(account.market, placed.events);
    expect(taken()).toBe(100);
    core.onUndecided?.(account.market, placed.events);
    expect(taken()).toBe(0);
  });

  describe("checks the fill-time news freeze against the shard's calendar", () => {
    /** A BUY LIMIT at 49,000 rests with no event near; then an event is due now, and the mark reaches 49,000. */
    function restingBeforeNews(): { account: Account; limitId: string; moved: MarketView | undefined } {
      const account = new Account();
      core.updateMarket?.(account.market, { prices: [], calendar: [] }, NOW);
      const placed = account.decide({ side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "49000" });
      const accepted = placed.events.find((event) => event.type === "OrderAccepted");
      if (accepted?.type !== "OrderAccepted") throw new Error(`expected accepted, got ${JSON.stringify(placed.reply)}`);
      const limitId = accepted.order.order_id;
      account.run(placed.events);
      const moved = core.updateMarket?.(account.market, { ...quote(490_000), calendar: [cryptoEvent(NOW)] }, NOW);
      return { account, limitId, moved };
    }

    // The calendar is the shard's (module state): the next test starts without the event.
    afterEach(() => core.updateMarket?.(undefined, { prices: [], calendar: [] }, NOW));

    const refusedBy = (events: readonly EngineEvent[]): unknown[] =>
      events.flatMap((event) => (event.type === "OrderCanceled" ? [event.reason] : []));

    it("on a price update: the crossed limit is canceled with news_freeze, not filled", () => {
      const { account, limitId, moved } = restingBeforeNews();
      if (account.state === undefined) throw new Error("no account");
      const events = core.onMarket?.(account.state, quote(490_000), { now: NOW, market: moved, nextId: randomUUID });
      expect(events?.some((event) => event.type === "OrderFilled")).toBe(false);
      expect(refusedBy(events ?? [])).toEqual(["news_freeze"]);
      expect(events).toContainEqual(expect.objectContaining({ type: "OrderCanceled", order_id: limitId }));
    });

    it("on the clock: the crossed limit is canceled with news_freeze, not filled", () => {
      const { account, moved } = restingBeforeNews();
      if (account.state === undefined) throw new Error("no account");
      const events = core.onClock?.(account.state, { now: NOW, market: moved, nextId: randomUUID });
      expect(events?.some((event) => event.type === "OrderFilled")).toBe(false);
      expect(refusedBy(events ?? [])).toEqual(["news_freeze"]);
    });
  });
});

describe("one core per shard", () => {
  it("keeps the news calendar, the limits and the market view of its own shard only", () => {
    const other = createCore();
    other.configure?.({ maxWorkingOrders: 0 });
    const otherView = other.updateMarket?.(undefined, { ...quote(500_000), calendar: [cryptoEvent(NOW)] }, NOW);
    const account = new Account();
    expect(account.market).not.toBe(otherView);
    account.place({ side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "40000" });
  });
});

describe('across a restart (docs/engine.md, "Restarts")', () => {
  const HOUR = 3_600_000;
  const funding = { cryptoPpm: 100, rolloverPpm: 0 };

  it("pays a funding tick at the prices kept for its boundary, not at the current marks", () => {
    const account = new Account();
    account.place({ side: "BUY", kind: "MARKET", quantity: "0.001", client_id: "open" });
    if (account.state === undefined) throw new Error("no account");
    const boundary = NOW + 8 * HOUR;
    const ctx = { now: boundary + 1_000, market: account.market, nextId: randomUUID };
    // The current marks: mark equal to index, nothing is due.
    expect(core.onMarket?.(account.state, { prices: [], funding, fundingBoundary: boundary }, ctx)).toEqual([]);
    // The boundary's kept prices: the mark 1% above the index, longs pay 100 ppm of 0.001 × 50,500.
    const kept = [{ symbol: "BTC-USD", mark: 505_000, index: 500_000, skew: 0 }];
    const events = core.onMarket?.(
      account.state,
      { prices: [], funding, fundingBoundary: boundary, fundingPrices: kept },
      ctx,
    );
    expect(events?.map((event) => (event.type === "FundingPaid" ? event.payment.amount : event.type))).toEqual([
      -505_000,
    ]);
  });

  it("starts a day that began while the engine was down at the marks kept before the stop", () => {
    const account = new Account();
    account.place({ side: "BUY", kind: "MARKET", quantity: "0.1", client_id: "open" });
    if (account.state === undefined) throw new Error("no account");
    const entryEquity = account.state.balance;
    // Kept at 23:59 of the account's day (BTC 49,000), then a start at 00:10 the next day: a shard's new view.
    const midnight = Date.UTC(2026, 10, 24);
    const restarted = createCore();
    const kept = { symbol: "BTC-USD", mark: 490_000, index: 490_000, skew: 0, at: midnight - 60_000 };
    const view = restarted.updateMarket?.(undefined, { prices: [kept] }, midnight + 10 * 60_000);
    expect(view?.quotes.get("BTC-USD")?.at).toBe(midnight - 60_000);
    // The first push after the start is far lower (the market moved while down): it counts against the new day.
    const pushed = restarted.updateMarket?.(view, quote(450_000), midnight + 11 * 60_000);
    const events =
      restarted.onMarket?.(account.state, quote(450_000), {
        now: midnight + 11 * 60_000,
        market: pushed,
        nextId: randomUUID,
      }) ?? [];
    const started = events.find((event) => event.type === "DayStarted");
    if (started?.type !== "DayStarted") throw new Error(`no new day: ${JSON.stringify(events.map((e) => e.type))}`);
    // 0.1 BTC from 50,000 (plus the entry's fee, already in the balance) valued at the kept 49,000.
    expect(started.equity).toBe(entryEquity - 10_000_000_000);
  });

  it("pays the boundaries a start caught up in their own days: the old day's before midnight, then the new day", () => {
    const account = new Account();
    account.place({ side: "BUY", kind: "MARKET", quantity: "0.1", client_id: "open" });
    if (account.state === undefined) throw new Error("no account");
    const midnight = Date.UTC(2026, 10, 24);
    const restartAt = midnight + 10 * 60_000;
    const restarted = createCore();
    // The start's restore: the kept prices of 23:50 (mark 1% over the index: longs pay), deciding nothing.
    const kept = { symbol: "BTC-USD", mark: 505_000, index: 500_000, skew: 0, at: midnight - 10 * 60_000 };
    const restore = { prices: [kept], restoring: true };
    const view = restarted.updateMarket?.(undefined, restore, restartAt);
    const ctx = { now: restartAt, market: view, nextId: randomUUID };
    let state: AccountState = account.state;
    const balance = state.balance;
    const run = (update: Parameters<NonNullable<typeof restarted.onMarket>>[1]): EngineEvent[] => {
      const events = restarted.onMarket?.(state, update, ctx) ?? [];
      for (const event of events) state = restarted.apply(state, event);
      return events;
    };
    expect(run(restore)).toEqual([]);
    // 16:00 of the old day, then 00:00 of the new one, both after the start.
    const sixteen = midnight - 8 * 3_600_000;
    const fundingPrices = [kept];
    const first = run({ prices: [], funding, fundingBoundary: sixteen, fundingPrices });
    expect(first.map((event) => event.type)).toEqual(["FundingPaid", "HighWaterMarkRaised"]);
    const paid = first[0]?.type === "FundingPaid" ? first[0].payment : expect.fail("no payment");
    expect(paid.paid_at).toBe(sixteen);
    const second = run({ prices: [], funding, fundingBoundary: midnight, fundingPrices });
    expect(second.map((event) => event.type)).toEqual(["DayStarted", "FundingPaid"]);
    const started = second[0]?.type === "DayStarted" ? second[0] : expect.fail("no day");
    expect(started.day).toBe("2026-11-24");
    // The new day starts with the old day's payment in its equity, at the kept mark (0.1 BTC from 50,000 to 50,500).
    expect(started.equity).toBe(balance + paid.amount + 5_000_000_000);
  });
});
