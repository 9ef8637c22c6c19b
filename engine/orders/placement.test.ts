import { describe, expect, it } from "vitest";
import { decide, replay } from "../core.js";
import { Harness, PLAN, orderEvents, usd } from "../core.testing.js";

const FRIDAY_NOON = Date.parse("2026-11-27T12:00:00.000Z");
const SATURDAY_NOON = Date.parse("2026-11-28T12:00:00.000Z");
const SUNDAY_OPEN = Date.parse("2026-11-29T22:00:00.000Z");

describe("market hours", () => {
  it("refuse an OSTIUM forex MARKET on a Saturday while a resting LIMIT waits for the open", () => {
    const h = new Harness(FRIDAY_NOON).open(PLAN.c200k, "OSTIUM");
    h.quote("EUR-USD", "1.08452");
    const limit = h.placed({
      symbol: "EUR-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: 10_000,
      limit_price: "1.08",
    }).order;

    h.now = SATURDAY_NOON;
    const market = h.place({ symbol: "EUR-USD", side: "BUY", kind: "MARKET", quantity: 1_000 });
    expect(market).toMatchObject({
      kind: "rejected",
      order: { status: "REJECTED" },
      fills: [],
      violations: [{ rule: "market_closed", severity: "critical" }],
    });
    expect(orderEvents(h.price("EUR-USD", "1.079"))).toEqual([]);
    h.now = SUNDAY_OPEN - 1;
    expect(orderEvents(h.price("EUR-USD", "1.0795"))).toEqual([]);
    expect(h.order(limit.order_id).status).toBe("NEW");

    h.now = SUNDAY_OPEN;
    h.price("EUR-USD", "1.0795");
    // At the open's price, 1.0795, not at its limit: 10,795 USD of EUR as maker on OSTIUM, 0.02% = 2.159 USD.
    expect(h.order(limit.order_id)).toMatchObject({ status: "FILLED", avg_fill_price: 1.0795 });
    expect(h.balance).toBe(usd("200000") - usd("2.159"));
  });

  it("fill a LIMIT placed while the market is closed at the open's price when the market gapped through it", () => {
    const h = new Harness(SATURDAY_NOON).open(PLAN.c200k, "OSTIUM");
    h.quote("EUR-USD", "1.08");
    const limit = h.placed({ symbol: "EUR-USD", side: "BUY", kind: "LIMIT", quantity: 10_000, limit_price: "1.09" });
    expect(limit.order.status).toBe("NEW");
    h.now = SUNDAY_OPEN;
    h.price("EUR-USD", "1.08");
    // As the same order placed in open hours would: at 1.08, not 1.09 (no 100 USD lost at once).
    expect(h.order(limit.order.order_id)).toMatchObject({ status: "FILLED", avg_fill_price: 1.08 });
    expect(h.account.fills.map((f) => [f.price, f.liquidity])).toEqual([[108_000, "MAKER"]]);
    // 10,800 USD as maker on OSTIUM: 0.02% = 2.16 USD, and nothing lost to the price.
    expect(h.balance).toBe(usd("200000") - usd("2.16"));
    expect(h.account.positions.get("EUR-USD|OSTIUM")?.cost_basis).toBe(usd("10800"));
  });

  it.each(["IOC", "FOK"])("refuse an %s LIMIT while its market is closed, like a MARKET", (timeInForce) => {
    const h = new Harness(SATURDAY_NOON).open(PLAN.c200k, "OSTIUM");
    h.quote("EUR-USD", "1.08");
    const reply = h.place({
      symbol: "EUR-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: 10_000,
      limit_price: "1.09",
      time_in_force: timeInForce,
    });
    expect(reply).toMatchObject({ kind: "rejected", violations: [{ rule: "market_closed" }] });
  });

  it.each(["IOC", "FOK"])(
    "accept an %s LIMIT take-profit HELD while closed: it executes when its parent fills",
    (tif) => {
      const h = new Harness(SATURDAY_NOON).open(PLAN.c200k, "OSTIUM");
      h.quote("EUR-USD", "1.08");
      const parent = h.placed({ symbol: "EUR-USD", side: "BUY", kind: "LIMIT", quantity: 10_000, limit_price: "1.07" });
      const child = h.place({
        symbol: "EUR-USD",
        side: "SELL",
        kind: "LIMIT",
        quantity: 10_000,
        limit_price: "1.1",
        time_in_force: tif,
        parent_order_id: parent.order.order_id,
      });
      expect(child).toMatchObject({ kind: "created", order: { status: "HELD" }, violations: [] });
    },
  );

  it("do not trigger a stop while its market is closed", () => {
    const h = new Harness(FRIDAY_NOON).open(PLAN.c200k, "OSTIUM");
    h.quote("XAU-USD", "2650");
    const stop = h.placed({ symbol: "XAU-USD", side: "BUY", kind: "STOP", quantity: "1", trigger_price: "2660" }).order;
    h.now = SATURDAY_NOON;
    expect(orderEvents(h.price("XAU-USD", "2700"))).toEqual([]);
    h.now = SUNDAY_OPEN + 3_600_000;
    h.price("XAU-USD", "2700");
    expect(h.order(stop.order_id)).toMatchObject({ status: "FILLED", avg_fill_price: 2700 });
  });
});

describe("venues", () => {
  it("reject an order on a venue the plan does not allow", () => {
    const h = new Harness().open(PLAN.c100kOstium);
    h.quote("BTC-USD", "100000");
    expect(h.account.default_venue).toBe("OSTIUM");
    const reply = h.place({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01", venue: "GMX" });
    expect(reply).toMatchObject({ kind: "rejected", violations: [{ rule: "venue_not_allowed" }] });
  });

  it("reject an order on a venue that does not list the symbol", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("EUR-USD", "1.08452");
    const reply = h.place({ symbol: "EUR-USD", side: "BUY", kind: "MARKET", quantity: 1_000 });
    expect(reply).toMatchObject({
      kind: "rejected",
      order: { venue: "GMX" },
      violations: [{ rule: "venue_not_allowed" }],
    });
  });
});

describe("margin", () => {
  function tenK(): Harness {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    return h;
  }

  it.each<[string, string, string]>([
    ["0.1996 BTC (9,980 + 11.976 USD)", "0.1996", "created"],
    ["0.1998 BTC (9,990 + 11.988 USD)", "0.1998", "rejected"],
    ["0.2 BTC (10,000 + 12 USD)", "0.2", "rejected"],
  ])("at 2x and 6 bps on 10,000 USD: %s is %s", (_label, quantity, kind) => {
    const reply = tenK().place({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity });
    expect(reply.kind).toBe(kind);
    if (kind === "rejected") expect(reply).toMatchObject({ violations: [{ rule: "insufficient_margin" }] });
  });

  it("counts the margin resting orders reserve", () => {
    const h = tenK();
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.1", limit_price: "99000" });
    expect(h.account.reserved_margin).toBe(usd("4950"));
    expect(h.place({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.102" }).kind).toBe("rejected");
    expect(h.place({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" }).kind).toBe("created");
  });

  it("lets a reduce-only order through when margin is short, but not an order that adds", () => {
    const h = tenK();
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.19" });
    // 190 USD down: inside the daily (500) and drawdown (1,000) limits, 298.60 USD of margin left.
    h.price("BTC-USD", "99000");
    const adding = h.place({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
    expect(adding.kind === "rejected" && adding.violations[0]?.rule).toBe("insufficient_margin");
    expect(h.place({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.05", reduce_only: true }).kind).toBe(
      "created",
    );
  });

  it("values only the part of an order that goes past the opposite position", () => {
    const h = tenK();
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.19" });
    // 488.60 USD is left (9,988.60 balance − 9,500 locked). Selling 0.199 closes 0.19 and opens a 0.009
    // short: 450 + 0.54 USD. Selling 0.2 opens 0.01: 500 + 0.60 USD, too much.
    expect(h.place({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.2" }).kind).toBe("rejected");
    expect(h.place({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.199" }).kind).toBe("created");
  });
});

describe("idempotency by client_id", () => {
  function withOrder() {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    const first = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "99000",
      client_id: "entry-1",
    });
    return { h, first };
  }

  it("answers an equal body with the original response and places nothing", () => {
    const { h, first } = withOrder();
    expect(first.order.client_id).toBe("entry-1");
    h.price("BTC-USD", "98000");
    const again = h.place({
      symbol: "btcusd",
      side: "BUY",
      kind: "LIMIT",
      quantity: 0.01,
      limit_price: 99000,
      time_in_force: "GTC",
      client_id: "entry-1",
    });
    expect(again).toEqual({ ...first, kind: "replayed" });
    expect(h.lastEvents).toEqual([]);
    expect(h.account.orders.size).toBe(1);
  });

  it("answers 409 with the client_id and order_id to a different body", () => {
    const { h, first } = withOrder();
    const other = h.place({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.02",
      limit_price: "99000",
      client_id: "entry-1",
    });
    expect(other).toEqual({
      kind: "error",
      code: "conflict",
      fields: { client_id: "entry-1", order_id: first.order.order_id },
    });
    expect(h.close({ symbol: "BTC-USD", client_id: "entry-1" })).toMatchObject({ code: "conflict" });
  });

  it("replays a rejection as it was", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    const body = { symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "1", client_id: "big" };
    const first = h.place(body);
    expect(first.kind).toBe("rejected");
    expect(h.place(body)).toEqual({ ...first, kind: "replayed" });
  });

  it("replays a GTD order retried after its expiry time", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    const body = {
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "99000",
      time_in_force: "GTD",
      expire_at: new Date(h.now + 1_000).toISOString(),
      client_id: "gtd-1",
    };
    const first = h.placed(body);
    h.now += 5_000;
    expect(h.place(body)).toEqual({ ...first, kind: "replayed" });
    expect(h.place({ ...body, client_id: "gtd-2" })).toMatchObject({ code: "invalid_payload" });
  });

  it("survives a rebuild from the journal", () => {
    const { h, first } = withOrder();
    const rebuilt = replay(h.journal);
    const again = decide(
      rebuilt,
      {
        type: "PlaceOrder",
        request: {
          account_id: rebuilt.account_id,
          symbol: "BTC-USD",
          side: "BUY",
          kind: "LIMIT",
          quantity: "0.01",
          limit_price: "99000",
          client_id: "entry-1",
        },
      },
      { now: h.now, market: h.market, nextId: h.nextId },
    );
    expect(again).toEqual({ events: [], reply: { ...first, kind: "replayed" } });
  });
});

describe("placement", () => {
  it("refuses a MARKET order on a symbol without a price with an issue on symbol", () => {
    const h = new Harness().open(PLAN.c10k);
    const reply = h.place({ symbol: "ETH-USD", side: "BUY", kind: "MARKET", quantity: "1" });
    expect(reply).toMatchObject({ kind: "error", code: "invalid_payload", fields: { issues: [{ path: "symbol" }] } });
    expect(JSON.stringify(reply)).toMatch(/no price/);
    expect(
      h.placed({ symbol: "ETH-USD", side: "BUY", kind: "LIMIT", quantity: "1", limit_price: "3000" }).order.status,
    ).toBe("NEW");
  });

  it("answers 404 for an order on another account", () => {
    const h = new Harness().open(PLAN.c10k);
    const reply = h.run({
      type: "PlaceOrder",
      request: { account_id: "someone-else", symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "1" },
    });
    expect(reply).toEqual({ kind: "error", code: "not_found", fields: {} });
  });

  it("refuses an order too large for exact arithmetic", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    expect(h.place({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "1000" })).toMatchObject({
      code: "invalid_payload",
      fields: { issues: [{ path: "quantity" }] },
    });
  });
});
