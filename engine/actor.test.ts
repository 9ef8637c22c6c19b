// The engine's actor core as the shard sees it: the time an event carries (`eventTime`, which the shard's clock
// starts from after a rebuild) is the `now` of the decision that made it; the clock decides at the current market.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { core } from "./actor.js";
import type { AccountState, EngineEvent } from "./core.js";
import type { TickQuote } from "./market/prices.js";

const PLAN_ID = "15ef9280-770d-4664-9de7-93fcd7677a98";

describe("engine actor core", () => {
  it("dates every event it decides with the decision's now", () => {
    const market = core.updateMarket?.(undefined, {
      prices: [{ symbol: "BTC-USD", mark: 500_000, index: 500_000, skew: 0 }],
    });
    const now = Date.UTC(2026, 10, 23, 12, 0, 0);
    const accountId = randomUUID();
    const ctx = { now, market, nextId: randomUUID };
    const opened = core.decide(
      undefined,
      {
        userId: "u-1",
        command: { type: "OpenAccount", request: { account_id: accountId, user_id: "u-1", plan_id: PLAN_ID } },
      },
      ctx,
    );
    expect(opened.reply.kind).toBe("created");
    let state: AccountState | undefined;
    for (const event of opened.events) state = core.apply(state, event);
    const placed = core.decide(
      state,
      {
        userId: "u-1",
        command: {
          type: "PlaceOrder",
          request: {
            account_id: accountId,
            symbol: "BTC-USD",
            side: "BUY",
            kind: "MARKET",
            quantity: "0.001",
            client_id: "c-1",
          },
        },
      },
      { ...ctx, now: now + 1_000 },
    );
    expect(placed.events.length).toBeGreaterThan(2);
    expect(opened.events.map((e) => core.eventTime?.(e))).toEqual(opened.events.map(() => now));
    expect(placed.events.map((e) => core.eventTime?.(e))).toEqual(placed.events.map(() => now + 1_000));
  });

  it("on the clock, decides every symbol at the current market: a stop the view crossed triggers", () => {
    const quote = (mark: number): { prices: TickQuote[] } => ({
      prices: [{ symbol: "BTC-USD", mark, index: mark, skew: 0 }],
    });
    const market = core.updateMarket?.(undefined, quote(500_000));
    const now = Date.UTC(2026, 10, 23, 12, 0, 0);
    const accountId = randomUUID();
    let state: AccountState | undefined;
    const run = (events: readonly EngineEvent[]): void => {
      for (const event of events) state = core.apply(state, event);
      core.onDecided?.(market, events);
    };
    const place = (request: Record<string, unknown>): void => {
      const decision = core.decide(
        state,
        {
          userId: "u-1",
          command: { type: "PlaceOrder", request: { account_id: accountId, symbol: "BTC-USD", ...request } as never },
        },
        { now, market, nextId: randomUUID },
      );
      expect(decision.reply.kind).toBe("created");
      run(decision.events);
    };
    run(
      core.decide(
        undefined,
        {
          userId: "u-1",
          command: { type: "OpenAccount", request: { account_id: accountId, user_id: "u-1", plan_id: PLAN_ID } },
        },
        { now, market, nextId: randomUUID },
      ).events,
    );
    place({ side: "BUY", kind: "MARKET", quantity: "0.001", client_id: "open" });
    place({
      side: "SELL",
      kind: "STOP",
      quantity: "0.001",
      trigger_price: "49000",
      reduce_only: true,
      client_id: "stop",
    });
    if (state === undefined) throw new Error("no account");
    // The view moves below the stop, and the account is not decided at that update (its commit failed, say).
    const moved = core.updateMarket?.(market, quote(480_000));
    const ctx = { now: now + 1_000, market: moved, nextId: randomUUID };
    const types = (core.onClock?.(state, ctx) ?? []).map((event) => event.type);
    expect(types).toContain("OrderTriggered");
    expect(types).toContain("OrderFilled");
  });

  it("gives back the book depth a dropped decision took (onUndecided)", () => {
    const market = core.updateMarket?.(undefined, {
      prices: [{ symbol: "BTC-USD", mark: 500_000, index: 500_000, skew: 0 }],
    });
    const now = Date.UTC(2026, 10, 23, 12, 0, 0);
    const accountId = randomUUID();
    let state: AccountState | undefined;
    for (const event of core.decide(
      undefined,
      {
        userId: "u-1",
        command: { type: "OpenAccount", request: { account_id: accountId, user_id: "u-1", plan_id: PLAN_ID } },
      },
      { now, market, nextId: randomUUID },
    ).events)
      state = core.apply(state, event);
    const placed = core.decide(
      state,
      {
        userId: "u-1",
        command: {
          type: "PlaceOrder",
          request: {
            account_id: accountId,
            symbol: "BTC-USD",
            side: "BUY",
            kind: "MARKET",
            quantity: "0.01",
            client_id: "c",
          },
        },
      },
      { now, market, nextId: randomUUID },
    );
    const taken = (): number | undefined => market?.quotes.get("BTC-USD")?.takenBuy;
    expect(taken()).toBe(0);
    core.onDecided?.(market, placed.events);
    expect(taken()).toBe(100);
    core.onUndecided?.(market, placed.events);
    expect(taken()).toBe(0);
  });
});
