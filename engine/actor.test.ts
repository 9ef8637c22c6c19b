// The engine's actor core as the shard sees it: the time an event carries (`eventTime`, which the shard's clock
// starts from after a rebuild) is the `now` of the decision that made it.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { core } from "./actor.js";
import type { AccountState } from "./core.js";

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
});
