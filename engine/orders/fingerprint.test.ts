// How a retry is matched with its client_id's record (docs/decisions.md, "Idempotency fingerprint"): both read
// as placed, the venue the order went to and a child reduce-only, from records of either fingerprint form and
// of either record shape.
import { describe, expect, it } from "vitest";
import type { IdempotencyRecord } from "../basics/account-state.js";
import type { Order } from "../basics/order-types.js";
import { CATALOGUE } from "../market/catalogue.js";
import { closeFingerprint, closeRetryMatches, orderFingerprint, orderRetryMatches } from "./fingerprint.js";
import {
  normalizeClose,
  normalizePlaceOrder,
  type ClosePositionRequest,
  type NormalizedClose,
  type NormalizedOrder,
  type PlaceOrderRequest,
} from "./request.js";

const PARENT = "00000000-0000-4000-8000-000000000001";
const base: PlaceOrderRequest = {
  account_id: "a",
  symbol: "BTC-USD",
  side: "SELL",
  kind: "LIMIT",
  quantity: "0.01",
  limit_price: "110000",
};

function order(patch: Partial<PlaceOrderRequest>): NormalizedOrder {
  const result = normalizePlaceOrder({ ...base, ...patch }, CATALOGUE, null);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.value;
}

function close(patch: Partial<ClosePositionRequest>): NormalizedClose {
  const result = normalizeClose({ account_id: "a", symbol: "BTC-USD", quantity: "0.001", ...patch }, CATALOGUE);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.value;
}

/** A record of the order placed on `venue`, as a live decision keeps it. */
function recorded(fingerprint: string, venue: string): IdempotencyRecord {
  return {
    order_id: "o",
    fingerprint,
    recorded_at: 0,
    order: { venue } as Order,
    fills: [],
    violations: [],
    risk_headroom: {} as never,
  };
}

/** The same, as a first-shape journal event keeps it: the whole answer. */
function recordedAnswer(fingerprint: string, venue: string): IdempotencyRecord {
  return { order_id: "o", fingerprint, recorded_at: 0, response: { order: { venue } } as never };
}

describe("orderRetryMatches", () => {
  it("matches a child retried with the other reduce_only, either way round", () => {
    for (const [first, retry] of [
      [false, true],
      [true, false],
    ]) {
      const child = order({ parent_order_id: PARENT, reduce_only: first });
      for (const record of [
        recorded(orderFingerprint(child, "GMX"), "GMX"),
        recorded(orderFingerprint(child), "GMX"),
        recordedAnswer(orderFingerprint(child, "GMX"), "GMX"),
      ]) {
        expect(orderRetryMatches(record, order({ parent_order_id: PARENT, reduce_only: retry }), "GMX")).toBe(true);
        expect(orderRetryMatches(record, order({ parent_order_id: PARENT }), "GMX")).toBe(true);
        expect(orderRetryMatches(record, order({ parent_order_id: PARENT, limit_price: "1" }), "GMX")).toBe(false);
      }
    }
  });

  it("keeps reduce_only in the body of an order without a parent", () => {
    const record = recorded(orderFingerprint(order({}), "GMX"), "GMX");
    expect(orderRetryMatches(record, order({}), "GMX")).toBe(true);
    expect(orderRetryMatches(record, order({ reduce_only: true }), "GMX")).toBe(false);
  });

  it("reads an absent venue as the default one, or a child's as the one its order went to", () => {
    const plain = recorded(orderFingerprint(order({}), "GMX"), "GMX");
    expect(orderRetryMatches(plain, order({ venue: "GMX" }), "GMX")).toBe(true);
    expect(orderRetryMatches(plain, order({ venue: "OSTIUM" }), "GMX")).toBe(false);
    // An explicit OSTIUM order is not what a body without a venue places (the default venue, GMX).
    const ostium = recorded(orderFingerprint(order({ venue: "OSTIUM" }), "GMX"), "OSTIUM");
    expect(orderRetryMatches(ostium, order({}), "GMX")).toBe(false);
    // A child goes to its parent's venue (here OSTIUM) whatever the account's default; the record wrote the default.
    const child = order({ parent_order_id: PARENT });
    for (const record of [
      recorded(orderFingerprint(child, "GMX"), "OSTIUM"),
      recorded(orderFingerprint(child), "OSTIUM"),
    ]) {
      expect(orderRetryMatches(record, order({ parent_order_id: PARENT }), "GMX")).toBe(true);
      expect(orderRetryMatches(record, order({ parent_order_id: PARENT, venue: "OSTIUM" }), "GMX")).toBe(true);
      expect(orderRetryMatches(record, order({ parent_order_id: PARENT, venue: "GMX" }), "GMX")).toBe(false);
    }
  });

  it("matches GTX as GTC + post_only on both sides, a literal-form record's GTX included", () => {
    const gtx = order({ time_in_force: "GTX" });
    const gtcPostOnly = order({ time_in_force: "GTC", post_only: true });
    expect(orderRetryMatches(recorded(orderFingerprint(gtx, "GMX"), "GMX"), gtcPostOnly, "GMX")).toBe(true);
    expect(orderRetryMatches(recorded(orderFingerprint(gtcPostOnly, "GMX"), "GMX"), gtx, "GMX")).toBe(true);
    expect(orderRetryMatches(recorded(orderFingerprint(gtx), "GMX"), gtx, "GMX")).toBe(true);
    expect(orderRetryMatches(recorded(orderFingerprint(gtx), "GMX"), gtcPostOnly, "GMX")).toBe(true);
    expect(orderRetryMatches(recorded(orderFingerprint(gtx), "GMX"), order({ time_in_force: "GTC" }), "GMX")).toBe(
      false,
    );
  });

  it("never matches a close's record", () => {
    expect(orderRetryMatches(recorded(closeFingerprint(close({})), "GMX"), order({}), "GMX")).toBe(false);
  });
});

describe("closeRetryMatches", () => {
  it("matches a retry naming the venue the close went to, or none, and no other venue or body", () => {
    for (const record of [
      recorded(closeFingerprint(close({})), "GMX"),
      recorded(closeFingerprint(close({ venue: "GMX" })), "GMX"),
      recordedAnswer(closeFingerprint(close({})), "GMX"),
    ]) {
      expect(closeRetryMatches(record, close({}))).toBe(true);
      expect(closeRetryMatches(record, close({ venue: "GMX" }))).toBe(true);
      expect(closeRetryMatches(record, close({ venue: "OSTIUM" }))).toBe(false);
      expect(closeRetryMatches(record, close({ quantity: "0.002" }))).toBe(false);
    }
  });

  it("never matches an order's record", () => {
    expect(closeRetryMatches(recorded(orderFingerprint(order({}), "GMX"), "GMX"), close({}))).toBe(false);
  });
});
