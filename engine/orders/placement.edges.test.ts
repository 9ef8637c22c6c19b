// Placement edge cases (docs/decisions.md, docs/openapi.yaml): FOK against a reduce-only cap, a terminated account's
// reduce-only and child orders, ids in upper case, and client_id replays of bodies spelled differently.
import { describe, expect, it } from "vitest";
import { apply } from "../core.js";
import type { EngineEvent } from "../basics/events.js";
import { orderFingerprint } from "./fingerprint.js";
import { Harness, PLAN } from "../core.testing.js";

/** A harness whose ids hold letters, so an id in upper case differs from the one minted. */
function lettered(): Harness {
  const h = new Harness();
  let n = 0;
  h.nextId = () => `abcdef00-0000-4000-8000-${(++n).toString(16).padStart(12, "a")}`;
  return h;
}

describe("FOK against a reduce-only cap", () => {
  it("expires a close larger than the position, without a fill", () => {
    const h = new Harness().open(PLAN.c10k, "GMX");
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
    const close = h.close({ symbol: "BTC-USD", quantity: "0.02", time_in_force: "FOK" });
    expect(close).toMatchObject({ kind: "created", order: { status: "EXPIRED", filled_quantity: 0 }, fills: [] });
    expect([...h.account.positions.values()].map((p) => p.quantity)).toEqual([100]);
  });

  it("expires a reduce-only MARKET FOK larger than the position, and fills one that fits", () => {
    const h = new Harness().open(PLAN.c10k, "GMX");
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
    const tooBig = {
      symbol: "BTC-USD",
      side: "SELL",
      kind: "MARKET",
      reduce_only: true,
      time_in_force: "FOK",
    } as const;
    expect(h.place({ ...tooBig, quantity: "0.011" })).toMatchObject({ order: { status: "EXPIRED" }, fills: [] });
    expect(h.place({ ...tooBig, quantity: "0.01" })).toMatchObject({
      order: { status: "FILLED", filled_quantity: 0.01 },
    });
    expect(h.account.positions.size).toBe(0);
  });
});

describe("a terminated account", () => {
  function terminated(): { h: Harness; parentId: string } {
    const h = new Harness().open(PLAN.c10k, "GMX");
    h.quote("BTC-USD", "100000");
    const parent = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.05" });
    h.price("BTC-USD", "70000");
    expect(h.account.state).toBe("TERMINATED");
    return { h, parentId: parent.order.order_id };
  }

  it("rejects a reduce-only order with account_terminated (200, REJECTED), not a 409", () => {
    const { h } = terminated();
    const order = h.place({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.01", reduce_only: true });
    expect(order).toMatchObject({
      kind: "rejected",
      order: { status: "REJECTED" },
      violations: [{ rule: "account_terminated" }],
    });
  });

  it("rejects a child of a filled parent with account_terminated", () => {
    const { h, parentId } = terminated();
    const child = h.place({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "TAKE_PROFIT",
      quantity: "0.05",
      trigger_price: "120000",
      parent_order_id: parentId,
    });
    expect(child).toMatchObject({ kind: "rejected", violations: [{ rule: "account_terminated" }] });
  });
});

describe("ids in upper case (UUIDs are case-insensitive)", () => {
  it("finds the parent of a child named in upper case, and replays it under either spelling", () => {
    const h = lettered().open(PLAN.c10k, "GMX");
    h.quote("BTC-USD", "100000");
    const parent = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "90000" });
    expect(parent.order.order_id).toMatch(/[a-f]/);
    const child = {
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "85000",
      client_id: "child-1",
    } as const;
    const upper = h.place({ ...child, parent_order_id: parent.order.order_id.toUpperCase() });
    expect(upper).toMatchObject({ kind: "created", order: { status: "HELD", parent_order_id: parent.order.order_id } });
    expect(h.place({ ...child, parent_order_id: parent.order.order_id })).toMatchObject({ kind: "replayed" });
  });

  it("finds the position of an order targeting it in upper case", () => {
    const h = lettered().open(PLAN.c10k, "GMX");
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
    const position = [...h.account.positions.values()][0];
    if (position === undefined) throw new Error("no position");
    expect(position.position_id).toMatch(/[a-f]/);
    const close = h.place({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "MARKET",
      quantity: "0.01",
      reduce_only: true,
      position_id: position.position_id.toUpperCase(),
    });
    expect(close).toMatchObject({ kind: "created", order: { status: "FILLED" } });
  });
});

describe("client_id replays of equal bodies spelled differently", () => {
  const base = { symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "90000" } as const;

  it("treats GTX and GTC + post_only as the same body (GTX = GTC + post_only)", () => {
    const h = new Harness().open(PLAN.c10k, "GMX");
    h.quote("BTC-USD", "100000");
    const first = h.placed({ ...base, time_in_force: "GTX", client_id: "x1" });
    const again = h.place({ ...base, time_in_force: "GTC", post_only: true, client_id: "x1" });
    expect(again).toMatchObject({ kind: "replayed", order: { order_id: first.order.order_id } });
    // A different body under the same client_id is still a conflict.
    expect(h.place({ ...base, time_in_force: "GTC", client_id: "x1" })).toMatchObject({
      kind: "error",
      code: "conflict",
    });
  });

  it("treats an absent venue and the account's default venue as the same body", () => {
    const h = new Harness().open(PLAN.c10k, "GMX");
    h.quote("BTC-USD", "100000");
    const first = h.placed({ ...base, client_id: "v1" });
    expect(h.place({ ...base, venue: "GMX", client_id: "v1" })).toMatchObject({
      kind: "replayed",
      order: { order_id: first.order.order_id },
    });
    expect(h.place({ ...base, venue: "OSTIUM", client_id: "v1" })).toMatchObject({ kind: "error", code: "conflict" });
  });

  it("still replays a record journaled with the earlier fingerprint form", () => {
    const h = new Harness().open(PLAN.c10k, "GMX");
    h.quote("BTC-USD", "100000");
    h.placed({ ...base, time_in_force: "GTX", client_id: "old" });
    // Rebuild the account from its journal, with the record's fingerprint as earlier engines wrote it.
    const journal = h.journal.map((event): EngineEvent => {
      if (event.type !== "IdempotencyRecorded") return event;
      const legacy = orderFingerprint({
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: 100,
        limit_price: 900_000,
        trigger_price: null,
        time_in_force: "GTX",
        expire_at: null,
        post_only: true,
        reduce_only: false,
        index_trigger: false,
        mark_trigger: false,
        venue: null,
        parent_order_id: null,
        position_id: null,
      } as Parameters<typeof orderFingerprint>[0]);
      expect(legacy).not.toBe(event.fingerprint);
      return { ...event, fingerprint: legacy };
    });
    let state = undefined as Parameters<typeof apply>[0];
    for (const event of journal) state = apply(state, event);
    h.state = state;
    expect(h.place({ ...base, time_in_force: "GTX", client_id: "old" })).toMatchObject({ kind: "replayed" });
  });
});

describe("the order that ends the account", () => {
  /** 10K on GMX, long 5 ETH from 2,500 (7.50 USD fee), the mark at `mark` with `depth` steps a level. */
  function longFiveEth(mark: string, depth?: number): Harness {
    const h = new Harness().open(PLAN.c10k, "GMX");
    h.quote("ETH-USD", "2500");
    h.placed({ symbol: "ETH-USD", side: "BUY", kind: "MARKET", quantity: "5" });
    h.price("ETH-USD", mark, depth === undefined ? {} : { depth });
    return h;
  }

  it("is refused when its closing fee, not only the opening fee of what it adds, passes the day's limit", () => {
    // 7.50 + 5 × 97.90 = 497 of the 500 lost: 3 left. SELL 5.01 closes 5 ETH (7.21 USD of closing fee at the
    // mark) and adds 0.01: its worst case is 7.22, not the 0.01 opening fee alone.
    const h = longFiveEth("2402.1");
    const reply = h.place({ symbol: "ETH-USD", side: "SELL", kind: "LIMIT", quantity: "5.01", limit_price: "2400" });
    expect(reply).toMatchObject({ kind: "rejected", violations: [{ rule: "daily_loss_limit" }] });
    expect(h.account.state).toBe("ACTIVE");
    expect(h.account.positions.size).toBe(1);
  });

  it("answers what it caused: the termination, its rest canceled, no room left; and so do its replays", () => {
    // 499.50 lost; a reduce-only SELL (always allowed) fills 0.5 ETH through a thin book (0.1 ETH a level) and
    // its fee passes the limit: the account ends, the order's rest is canceled by the risk system.
    const h = longFiveEth("2401.6", 100);
    const request = {
      symbol: "ETH-USD",
      side: "SELL",
      kind: "LIMIT",
      quantity: "5",
      limit_price: "2300",
      reduce_only: true,
      client_id: "last-order",
    } as const;
    const reply = h.place(request);
    expect(h.account.state).toBe("TERMINATED");
    const expected = {
      order: { status: "CANCELED", filled_quantity: 0.5 },
      violations: [{ rule: "daily_loss_limit", severity: "critical" }],
      risk_headroom: {
        daily_loss_remaining: 0,
        drawdown_remaining: 0,
        symbol_exposure_remaining: 0,
        total_exposure_remaining: 0,
      },
    };
    expect(reply).toMatchObject({ kind: "created", ...expected });
    expect(h.place(request)).toMatchObject({ kind: "replayed", ...expected });
  });

  it("answers an amend that filled and ended the account with the order as the termination left it", () => {
    const h = longFiveEth("2401.6", 100);
    const resting = h.placed({
      symbol: "ETH-USD",
      side: "SELL",
      kind: "LIMIT",
      quantity: "5",
      limit_price: "2500",
      reduce_only: true,
    });
    const reply = h.amend({ order_id: resting.order.order_id, limit_price: "2300" });
    expect(h.account.state).toBe("TERMINATED");
    expect(reply).toMatchObject({ kind: "ok", order: { status: "CANCELED", filled_quantity: 0.5 } });
  });
});
