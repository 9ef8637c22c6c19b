import { describe, expect, it } from "vitest";
import { forkState } from "../basics/account-state.js";
import { apply, decide, replay, type AccountState, type Command, type EngineEvent } from "../core.js";
import { CATALOGUE } from "../market/catalogue.js";
import { unitsFor } from "../market/units.js";
import { upgradeEvent, type FirstIdempotencyRecorded } from "../store/event-upgrade.js";
import type { IdempotencyRecorded } from "../basics/events.js";
import { expectReplays, journalCopy } from "./replays.testing.js";
import { ACCOUNT_ID, Harness, PLAN } from "../core.testing.js";
import { normalizeClose, normalizePlaceOrder, type PlaceOrderRequest } from "./request.js";
import { recordedResponse } from "./idempotency.js";

/** A BUY LIMIT at 99,000 that rests under a 100,000 mark, with a client_id. */
function restingBuy(clientId: string): Omit<PlaceOrderRequest, "account_id"> {
  return { symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "99000", client_id: clientId };
}

function placeCommand(request: Omit<PlaceOrderRequest, "account_id">): Command {
  return { type: "PlaceOrder", request: { account_id: ACCOUNT_ID, ...request } };
}

function recordedEvent(events: readonly EngineEvent[]): IdempotencyRecorded {
  const recorded = events.find((event) => event.type === "IdempotencyRecorded");
  if (recorded?.type !== "IdempotencyRecorded") throw new Error("no IdempotencyRecorded event");
  return recorded;
}

describe("a retried client_id", () => {
  it("answers a MARKET order that filled across levels with its first body, after more trading", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { depth: 10 });
    const request = { symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.0035", client_id: "m-1" };
    const first = h.placed(request);
    expect(first.order.status).toBe("FILLED");
    expect(first.fills.map((fill) => fill.price)).toEqual([100000, 100000.1, 100000.2, 100000.3]);

    // Another order filled at the same instant, then later prices and fills: none of them joins the answer.
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001", client_id: "m-2" });
    h.now += 60_000;
    h.price("BTC-USD", "101000", { depth: 10 });
    h.placed({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.002" });
    expectReplays(h, placeCommand(request), first);
  });

  it("answers a resting LIMIT with its first body after the order filled later", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    const request = restingBuy("l-1");
    const first = h.placed(request);
    expect(first).toMatchObject({ order: { status: "NEW" }, fills: [] });
    h.now += 1_000;
    h.price("BTC-USD", "98900");
    expect(h.order(first.order.order_id).status).toBe("FILLED");
    expectReplays(h, placeCommand(request), first);
  });

  it("answers a rejected order with its violations", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    const request = { symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "1", client_id: "r-1" };
    const first = h.place(request);
    if (first.kind !== "rejected") throw new Error(`expected a rejection, got ${first.kind}`);
    expect(first.violations.length).toBeGreaterThan(0);
    expectReplays(h, placeCommand(request), first);
  });

  it("answers a ClosePosition with its first body after the position is gone", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
    h.now += 1_000;
    h.quote("BTC-USD", "101000");
    const command: Command = {
      type: "ClosePosition",
      request: { account_id: ACCOUNT_ID, symbol: "BTC-USD", client_id: "c-1" },
    };
    const first = h.run(command);
    if (first.kind !== "created") throw new Error(`expected created, got ${JSON.stringify(first)}`);
    expect(first.fills).toHaveLength(1);
    expect(h.account.positions.size).toBe(0);
    expectReplays(h, command, first);
  });

  it("answers an event of the first shape (the whole response journaled) with that response", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    const request = restingBuy("old-1");
    const first = h.placed(request);
    const compact = recordedEvent(h.lastEvents);
    // As journaled before the compact shape: no violations or headroom, the response (here one journaled
    // before risk_headroom existed, so it differs from what a rebuild would give).
    const old: FirstIdempotencyRecorded = {
      type: "IdempotencyRecorded",
      at: compact.at,
      client_id: compact.client_id as string,
      order_id: compact.order_id,
      fingerprint: compact.fingerprint,
      response: JSON.parse(JSON.stringify({ order: first.order, fills: [], violations: [] })) as never,
    };
    // Read back as the journal reader gives it to the core.
    const upgraded = upgradeEvent(old) as EngineEvent;
    const journal = journalCopy(h).map((event) => (event.type === "IdempotencyRecorded" ? upgraded : event));
    const rebuilt = replay(journal);
    expect(rebuilt.client_ids.get("old-1")).toEqual({
      order_id: first.order.order_id,
      fingerprint: compact.fingerprint,
      recorded_at: compact.at,
      response: old.response,
    });
    const again = decide(rebuilt, placeCommand(request), { now: h.now, market: h.market, nextId: h.nextId });
    expect(again).toEqual({ events: [], reply: { kind: "replayed", order: first.order, fills: [], violations: [] } });
    expect(JSON.stringify(again.reply)).toBe(JSON.stringify({ kind: "replayed", ...old.response }));
  });
});

describe("the IdempotencyRecorded event", () => {
  it("carries the ids, fingerprint, violations and headroom, not the response", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { depth: 10 });
    const first = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.0035", client_id: "e-1" });
    const event = recordedEvent(h.lastEvents);
    expect(Object.keys(event).sort()).toEqual([
      "at",
      "client_id",
      "fingerprint",
      "order_id",
      "risk_headroom",
      "type",
      "violations",
    ]);
    expect(event).toEqual({
      type: "IdempotencyRecorded",
      at: h.now,
      client_id: "e-1",
      order_id: first.order.order_id,
      fingerprint: expect.any(String) as unknown,
      violations: [],
      risk_headroom: first.risk_headroom,
    });
  });

  it("is not written for an order without a client_id", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" });
    expect(h.lastEvents.map((event) => event.type)).not.toContain("IdempotencyRecorded");
  });

  it("records the same order and fills in a decision's draft as in the live state", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { depth: 10 });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.002", client_id: "d-0" });
    const decision = decide(
      h.account,
      placeCommand({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.0025", client_id: "d-1" }),
      { now: h.now, market: h.market, nextId: h.nextId },
    );
    const live: AccountState = replay(h.journal);
    const draft = forkState(live);
    for (const event of decision.events) apply(draft, event);
    for (const event of decision.events) apply(live, event);
    const inDraft = draft.client_ids.get("d-1");
    const inLive = live.client_ids.get("d-1");
    expect(inDraft).toBeDefined();
    expect(inDraft).toEqual(inLive);
    if (inLive === undefined || inLive.response !== undefined) throw new Error("no compact record");
    // d-0 took the first two levels: d-1 fills at the next three.
    expect(inLive.fills).toHaveLength(3);
    const rebuilt = { kind: decision.reply.kind, ...recordedResponse(inLive, ACCOUNT_ID, CATALOGUE) };
    expect(JSON.stringify(rebuilt)).toBe(JSON.stringify(decision.reply));
  });
  it("refuses a record applied after its order's decision, whose fills it would miss", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    const placed = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" });
    const late: IdempotencyRecorded = {
      type: "IdempotencyRecorded",
      at: h.now + 1_000,
      client_id: "late-1",
      order_id: placed.order.order_id,
      fingerprint: "f",
      violations: [],
      risk_headroom: placed.risk_headroom,
    };
    expect(() => apply(h.account, late)).toThrow(/do not add up/);
  });
});

describe("the units a retry rebuilds with", () => {
  it("are the object the first answer was built with, for every symbol", () => {
    for (const spec of CATALOGUE.rows) {
      const units = unitsFor(CATALOGUE, spec.symbol);
      const order = normalizePlaceOrder(
        {
          account_id: ACCOUNT_ID,
          symbol: spec.symbol,
          side: "BUY",
          kind: "MARKET",
          quantity: spec.min_quantity,
        },
        CATALOGUE,
        null,
      );
      const close = normalizeClose({ account_id: ACCOUNT_ID, symbol: spec.symbol }, CATALOGUE);
      if (!order.ok || !close.ok) throw new Error(`${spec.symbol} does not normalise`);
      expect(order.value.units, spec.symbol).toBe(units);
      expect(close.value.units, spec.symbol).toBe(units);
      expect(order.value.symbol).toBe(spec.symbol);
    }
  });
});
