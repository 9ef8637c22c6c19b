// Retries of a client_id judged as placed (docs/decisions.md, "Idempotency fingerprint"): a close retried with
// the venue it resolved to, a child retried with either reduce_only (children are reduce-only), a child
// retried with its parent's venue, and the same from records journaled in the literal fingerprint form.
import { describe, expect, it } from "vitest";
import { apply } from "../core.js";
import type { EngineEvent } from "../basics/events.js";
import { orderFingerprint } from "./fingerprint.js";
import { normalizePlaceOrder, type PlaceOrderRequest } from "./request.js";
import { ACCOUNT_ID, Harness, PLAN } from "../core.testing.js";

const buy = { symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" } as const;
const limitBuy = { symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "90000" } as const;
const takeProfit = { symbol: "BTC-USD", side: "SELL", kind: "LIMIT", quantity: "0.01", limit_price: "110000" } as const;

/** An account on GMX (its default venue) with a BTC-USD quote. */
function gmx(): Harness {
  return new Harness().open(PLAN.c10k, "GMX").quote("BTC-USD", "100000");
}

/** Rebuilds the account from its journal with each client_id record's fingerprint as `legacy` writes it. */
function withRecordsAs(h: Harness, legacy: (event: Extract<EngineEvent, { type: "IdempotencyRecorded" }>) => string) {
  let state = undefined as Parameters<typeof apply>[0];
  for (const event of h.journal) {
    state = apply(state, event.type === "IdempotencyRecorded" ? { ...event, fingerprint: legacy(event) } : event);
  }
  h.state = state;
}

/** The literal fingerprint form (GTX kept, venue and reduce_only as sent) of a place-order body. */
function literal(h: Harness, request: Partial<PlaceOrderRequest>): string {
  const normalized = normalizePlaceOrder(
    { account_id: ACCOUNT_ID, ...request } as PlaceOrderRequest,
    h.market.catalogue,
    null,
  );
  if (!normalized.ok) throw new Error(JSON.stringify(normalized.issues));
  return orderFingerprint(normalized.value);
}

describe("a close retried", () => {
  it("with the venue it resolved to replays; with another venue is 409", () => {
    const h = gmx();
    h.placed(buy);
    const first = h.close({ symbol: "BTC-USD", quantity: "0.001", client_id: "k" });
    expect(first).toMatchObject({ kind: "created", order: { venue: "GMX" } });
    const id = first.kind === "created" ? first.order.order_id : "";
    for (const venue of ["GMX", undefined]) {
      expect(h.close({ symbol: "BTC-USD", quantity: "0.001", client_id: "k", venue })).toMatchObject({
        kind: "replayed",
        order: { order_id: id },
      });
    }
    expect(h.close({ symbol: "BTC-USD", quantity: "0.001", client_id: "k", venue: "OSTIUM" })).toMatchObject({
      kind: "error",
      code: "conflict",
    });
    expect(h.close({ symbol: "BTC-USD", quantity: "0.002", client_id: "k", venue: "GMX" })).toMatchObject({
      kind: "error",
      code: "conflict",
    });
  });

  it("without the venue it named replays, also once the position is closed", () => {
    const h = gmx();
    h.placed(buy);
    const first = h.close({ symbol: "BTC-USD", client_id: "whole", venue: "GMX" });
    expect(first).toMatchObject({ kind: "created", order: { status: "FILLED" } });
    expect(h.account.positions.size).toBe(0);
    expect(h.close({ symbol: "BTC-USD", client_id: "whole" })).toMatchObject({ kind: "replayed" });
  });
});

describe("a bracket child retried", () => {
  it("with the other reduce_only replays (children are reduce-only), either way round; another body is 409", () => {
    const h = gmx();
    const parent = h.placed(limitBuy).order.order_id;
    for (const [first, retry, clientId] of [
      [false, true, "c1"],
      [true, false, "c2"],
    ] as const) {
      const child = h.placed({ ...takeProfit, parent_order_id: parent, reduce_only: first, client_id: clientId });
      expect(child.order.reduce_only).toBe(true);
      expect(
        h.place({ ...takeProfit, parent_order_id: parent, reduce_only: retry, client_id: clientId }),
      ).toMatchObject({ kind: "replayed", order: { order_id: child.order.order_id } });
      expect(h.place({ ...takeProfit, parent_order_id: parent, client_id: clientId })).toMatchObject({
        kind: "replayed",
      });
      expect(
        h.place({
          ...takeProfit,
          limit_price: "111000",
          parent_order_id: parent,
          reduce_only: retry,
          client_id: clientId,
        }),
      ).toMatchObject({ kind: "error", code: "conflict" });
    }
    // An order without a parent keeps its reduce_only in the body.
    h.placed(buy);
    h.placed({ ...takeProfit, client_id: "plain" });
    expect(h.place({ ...takeProfit, reduce_only: true, client_id: "plain" })).toMatchObject({ code: "conflict" });
  });

  it("with its parent's venue replays when the first named none; another venue is 409", () => {
    const h = gmx();
    const parent = h.placed({ ...limitBuy, venue: "OSTIUM" }).order.order_id;
    const child = h.placed({ ...takeProfit, parent_order_id: parent, client_id: "v" });
    expect(child.order.venue).toBe("OSTIUM");
    expect(h.place({ ...takeProfit, parent_order_id: parent, venue: "OSTIUM", client_id: "v" })).toMatchObject({
      kind: "replayed",
    });
    expect(h.place({ ...takeProfit, parent_order_id: parent, client_id: "v" })).toMatchObject({ kind: "replayed" });
    expect(h.place({ ...takeProfit, parent_order_id: parent, venue: "GMX", client_id: "v" })).toMatchObject({
      code: "conflict",
    });
  });
});

describe("records journaled in the literal fingerprint form", () => {
  it("replay an equal child retry, with either reduce_only, and refuse another body", () => {
    const h = gmx();
    const parent = h.placed(limitBuy).order.order_id;
    const body = { ...takeProfit, time_in_force: "GTX", parent_order_id: parent, reduce_only: false } as const;
    h.placed({ ...body, client_id: "old" });
    withRecordsAs(h, () => literal(h, body));
    expect(h.place({ ...body, client_id: "old" })).toMatchObject({ kind: "replayed" });
    expect(h.place({ ...body, reduce_only: true, client_id: "old" })).toMatchObject({ kind: "replayed" });
    expect(h.place({ ...body, venue: "GMX", client_id: "old" })).toMatchObject({ kind: "replayed" });
    expect(h.place({ ...body, quantity: "0.02", client_id: "old" })).toMatchObject({ code: "conflict" });
  });

  it("replay a close retried with its venue or without, and refuse another venue", () => {
    const h = gmx();
    h.placed(buy);
    h.close({ symbol: "BTC-USD", quantity: "0.001", client_id: "old" });
    // What the record keeps is the close as sent: no venue.
    expect(h.journal.find((e) => e.type === "IdempotencyRecorded")).toMatchObject({
      fingerprint: expect.stringMatching(/^close\|BTC-USD\|MARKET\|\d+\|\|IOC\|\|$/) as unknown,
    });
    withRecordsAs(h, (event) => event.fingerprint);
    expect(h.close({ symbol: "BTC-USD", quantity: "0.001", client_id: "old" })).toMatchObject({ kind: "replayed" });
    expect(h.close({ symbol: "BTC-USD", quantity: "0.001", venue: "GMX", client_id: "old" })).toMatchObject({
      kind: "replayed",
    });
    expect(h.close({ symbol: "BTC-USD", quantity: "0.001", venue: "OSTIUM", client_id: "old" })).toMatchObject({
      code: "conflict",
    });
  });
});
