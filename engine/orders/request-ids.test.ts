// The gateway's request id (docs/engine.md, "Request ids"): a place or close call without a client_id is
// deduplicated by it like a client_id (the same answer to the same body, a conflict to another, through a
// rebuild from the journal and past the records the account keeps), in a key space of its own, and never shown
// as the order's client_id.
import { describe, expect, it } from "vitest";
import { decide, replay, type Command } from "../core.js";
import { forgetExpired } from "../accounts/retention.js";
import { DEFAULT_ACTOR_LIMITS } from "../accounts/limits.js";
import { orderByClientId } from "../accounts/order-queries.js";
import { createCore } from "../trading-core.js";
import { expectReplays, journalCopy } from "./replays.testing.js";
import { ACCOUNT_ID, Harness, PLAN, USER_ID } from "../core.testing.js";
import type { PlaceOrderRequest } from "./request.js";

const REQUEST_ID = "5f0c6a4e-2f7b-4d1e-9a61-3f9d2c7b8e10";

/** A BUY LIMIT at 99,000 that rests under a 100,000 mark. */
const RESTING = { symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "99000" };

function placeCommand(request: Omit<PlaceOrderRequest, "account_id">): Command {
  return { type: "PlaceOrder", request: { account_id: ACCOUNT_ID, ...request } };
}

function opened(): Harness {
  const h = new Harness().open(PLAN.c10k);
  h.quote("BTC-USD", "100000");
  return h;
}

describe("a place call with a request id and no client_id", () => {
  it("when sent again with the same body, then answers its first answer, live and after a rebuild", () => {
    const h = opened();
    const request = { ...RESTING, request_id: REQUEST_ID };
    const first = h.placed(request);
    h.now += 1_000;
    h.price("BTC-USD", "98900");
    expect(h.order(first.order.order_id).status).toBe("FILLED");
    expectReplays(h, placeCommand(request), first);
    expect(h.account.orders.size).toBe(1);
  });

  it("when sent again with another body, then answers 409 conflict request_id_reused with the order", () => {
    const h = opened();
    const first = h.placed({ ...RESTING, request_id: REQUEST_ID });
    const again = h.place({ ...RESTING, quantity: "0.02", request_id: REQUEST_ID });
    expect(again).toEqual({
      kind: "error",
      code: "conflict",
      fields: { reason: "request_id_reused", order_id: first.order.order_id },
    });
    expect(h.lastEvents).toEqual([]);
  });

  it("when placed, then shows no client_id on the order, its answer, its events or its webhooks", () => {
    const h = opened();
    const first = h.placed({ ...RESTING, request_id: REQUEST_ID });
    expect(first.order.client_id).toBeNull();
    expect(h.order(first.order.order_id).client_id).toBeNull();
    const recorded = h.lastEvents.find((event) => event.type === "IdempotencyRecorded");
    expect(recorded).toMatchObject({ request_id: REQUEST_ID, order_id: first.order.order_id });
    expect(recorded).not.toHaveProperty("client_id");
    const accepted = h.lastEvents.find((event) => event.type === "OrderAccepted");
    expect(accepted).toMatchObject({ order: { client_id: null } });
    expect(JSON.stringify(h.outbox)).not.toContain(REQUEST_ID);
    expect(orderByClientId(h.account, h.market, REQUEST_ID)).toBeNull();
  });

  it("when its text is later sent as a client_id, then that is another order (the two never meet)", () => {
    const h = opened();
    const first = h.placed({ ...RESTING, request_id: REQUEST_ID });
    const byClient = h.placed({ ...RESTING, client_id: REQUEST_ID });
    expect(byClient.order.order_id).not.toBe(first.order.order_id);
    expect(byClient.order.client_id).toBe(REQUEST_ID);
    // And the other way round: a client_id's text as a request id is a new order too.
    const h2 = opened();
    const client = h2.placed({ ...RESTING, client_id: "shared" });
    const request = h2.placed({ ...RESTING, request_id: "shared" });
    expect(request.order.order_id).not.toBe(client.order.order_id);
  });

  it("when a client_id is sent too, then the client_id governs and the request id is not recorded", () => {
    const h = opened();
    const first = h.placed({ ...RESTING, client_id: "c-1", request_id: REQUEST_ID });
    const recorded = h.lastEvents.find((event) => event.type === "IdempotencyRecorded");
    expect(recorded).toMatchObject({ client_id: "c-1" });
    expect(recorded).not.toHaveProperty("request_id");
    // A resend of the caller's retry under another request id still replays by its client_id.
    expectReplays(h, placeCommand({ ...RESTING, client_id: "c-1", request_id: "another" }), first);
    // The request id alone names nothing.
    expect(h.placed({ ...RESTING, request_id: REQUEST_ID }).order.order_id).not.toBe(first.order.order_id);
  });

  it("when the request id is not 1 to 64 printable ASCII characters, then answers invalid_payload", () => {
    const h = opened();
    expect(h.place({ ...RESTING, request_id: "x".repeat(65) })).toMatchObject({
      kind: "error",
      code: "invalid_payload",
      fields: { issues: [{ path: "request_id" }] },
    });
  });

  it("when it is an order test, then nothing is recorded and a later place is not a replay", () => {
    const h = opened();
    h.test({ ...RESTING, request_id: REQUEST_ID });
    expect(h.lastEvents).toEqual([]);
    expect(h.place({ ...RESTING, request_id: REQUEST_ID }).kind).toBe("created");
  });
});

describe("a close call with a request id", () => {
  it("when sent again after the position is gone, then answers its first answer", () => {
    const h = opened();
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
    h.now += 1_000;
    h.quote("BTC-USD", "101000");
    const command: Command = {
      type: "ClosePosition",
      request: { account_id: ACCOUNT_ID, symbol: "BTC-USD", request_id: REQUEST_ID },
    };
    const first = h.run(command);
    if (first.kind !== "created") throw new Error(`expected created, got ${JSON.stringify(first)}`);
    expect(first.order.client_id).toBeNull();
    expect(h.account.positions.size).toBe(0);
    expectReplays(h, command, first);
  });
});

describe("a forgotten request id", () => {
  it("when forgotten past the records kept, then it is dropped whole: no spent row, no filter, a resend is new", () => {
    const h = opened();
    const first = h.placed({ ...RESTING, request_id: REQUEST_ID });
    h.placed({ ...RESTING, client_id: "c-2" });
    h.placed({ ...RESTING, request_id: "r-3" });
    const spent: string[] = [];
    const limits = { ...DEFAULT_ACTOR_LIMITS, clientIdsKept: 1 };
    forgetExpired(h.account, limits, undefined, (key) => spent.push(key));
    // Only the client_id stays spent (a row and a filter entry); the request id's record is gone.
    expect(spent).toEqual(["c-2"]);
    expect(h.account.retention.forgotten.mayHold("c-2")).toBe(true);
    const core = createCore();
    const command = placeCommand({ ...RESTING, request_id: REQUEST_ID });
    expect(core.recallKey?.(h.account, { userId: USER_ID, command })).toBeUndefined();
    // A resend after its record left (never within the gateway's hold) is decided as a new order.
    expect(h.placed({ ...RESTING, request_id: REQUEST_ID }).order.order_id).not.toBe(first.order.order_id);
    // The one kept is still answered, also after a rebuild from the journal.
    const kept = decide(replay(journalCopy(h)), placeCommand({ ...RESTING, request_id: "r-3" }), {
      now: h.now,
      market: h.market,
      nextId: h.nextId,
    });
    expect(kept.reply.kind).toBe("replayed");
  });
});
