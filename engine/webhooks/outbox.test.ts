// The webhook events each journal event produces (docs/webhooks.md, "Event types"), their data as the REST
// API shows the records, and replay's count agreeing with what was rendered.
import { describe, expect, it } from "vitest";
import { accountRecord, positionHistory } from "../accounts/queries.js";
import { breaches } from "../accounts/risk-queries.js";
import type { AccountState } from "../basics/account-state.js";
import { apply } from "../core.js";
import { Harness, PLAN } from "../core.testing.js";
import { outboxKinds } from "./outbox.js";

const types = (h: Harness, from = 0) => h.outbox.slice(from).map((entry) => entry.type);
const data = (h: Harness, index: number): Record<string, unknown> =>
  JSON.parse(h.outbox[index]?.data ?? "null") as Record<string, unknown>;

describe("order events", () => {
  it("a resting LIMIT is acked with its record, a cancel carries the record and the reason", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    const placed = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "90000" });
    expect(types(h)).toEqual(["order.ack"]);
    expect(data(h, 0)).toEqual({ ...h.order(placed.order.order_id), status: "NEW", violations: [] });

    h.cancel(placed.order.order_id);
    expect(types(h)).toEqual(["order.ack", "order.cancel"]);
    expect(data(h, 1)).toEqual({ ...h.order(placed.order.order_id), status: "CANCELED", reason: "user" });
  });

  it("a rejected order is acked too, with its violations", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    const reply = h.place({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "5" });
    expect(reply.kind).toBe("rejected");
    expect(types(h)).toEqual(["order.ack"]);
    const ack = data(h, 0);
    expect(ack.status).toBe("REJECTED");
    expect(ack.violations).toEqual([expect.objectContaining({ rule: "exposure_cap", severity: "critical" })]);
  });

  it("a MARKET fill is ack then fill; the closing fill adds position.close with the history row", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    expect(types(h)).toEqual(["order.ack", "order.fill"]);
    expect(data(h, 1)).toMatchObject({ symbol: "BTC-USD", side: "BUY", quantity: 0.1, price: 100000, fee: 6 });

    h.quote("BTC-USD", "101000");
    const before = h.outbox.length;
    h.placed({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.04" });
    expect(types(h, before)).toEqual(["order.ack", "order.fill"]);

    const partial = h.outbox.length;
    h.close({ symbol: "BTC-USD" });
    expect(types(h, partial)).toEqual(["order.ack", "order.fill", "position.close"]);
    const history = positionHistory(h.account, h.market, { from: 0, to: Number.MAX_SAFE_INTEGER, limit: 10 }).data;
    expect(data(h, h.outbox.length - 1)).toEqual(history[0]);
  });

  it("an expired GTD order is an order.cancel with reason gtd", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    const expireAt = new Date(h.now + 60_000).toISOString();
    h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "90000",
      time_in_force: "GTD",
      expire_at: expireAt,
    });
    h.now += 61_000;
    h.price("BTC-USD", "100000");
    expect(types(h)).toEqual(["order.ack", "order.cancel"]);
    expect(data(h, 1)).toMatchObject({ status: "EXPIRED", reason: "gtd" });
  });
});

describe("account events", () => {
  it("breaches become account.breach with the breach row; the termination cancels and closes", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "90000" });
    const before = h.outbox.length;
    h.price("BTC-USD", "97560");
    expect(types(h, before)).toEqual(["account.breach"]);
    expect(data(h, before)).toEqual(breaches(h.account).data[0]);

    const crash = h.outbox.length;
    h.price("BTC-USD", "95060");
    const after = types(h, crash);
    expect(after.filter((t) => t === "account.breach").length).toBeGreaterThanOrEqual(1);
    expect(after).toContain("order.cancel");
    expect(after).toContain("position.close");
    expect(h.account.state).toBe("TERMINATED");
  });

  it("reaching the profit target is account.passed with the account record", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    const before = h.outbox.length;
    // Open profit past the target passes nothing; the close that leaves the account flat above it does
    // (balance 9,994 + 1,020 − 6.612 = 11,007.388).
    h.price("BTC-USD", "110200");
    expect(types(h, before)).toEqual([]);
    h.close({ symbol: "BTC-USD" });
    expect(types(h, before)).toEqual(["order.ack", "order.fill", "position.close", "account.passed"]);
    const passed = h.outbox.find((entry) => entry.type === "account.passed");
    expect(JSON.parse(passed?.data ?? "null")).toEqual({
      ...accountRecord(h.account, h.market),
      rules_version: h.account.plan.rules_version,
    });
  });
});

describe("replay", () => {
  it("counts exactly the entries that were rendered, event by event", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    const resting = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "90000" });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.1",
      trigger_price: "99000",
      reduce_only: true,
    });
    h.cancel(resting.order.order_id);
    h.price("BTC-USD", "97560");
    h.price("BTC-USD", "98900");
    h.place({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "50" });

    let state: AccountState | undefined;
    let counted = 0;
    for (const event of h.journal) {
      state = apply(state, event);
      counted += outboxKinds(state, event).length;
    }
    expect(counted).toBe(h.outbox.length);
    expect(new Set(types(h))).toEqual(
      new Set(["order.ack", "order.fill", "order.cancel", "position.close", "account.breach"]),
    );
  });
});
