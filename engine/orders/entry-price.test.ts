// An order is judged where it executes (docs/risk.md, "Valued where it executes"): one that executes as it enters
// the book (a MARKET, a LIMIT the mark crosses, a STOP or TAKE_PROFIT whose trigger is reached) fills from the
// mark, so the exposure cap, margin, fees and worst case value it at the mark, never at a crossed limit or a
// passed trigger; the same holds for an amend. 10K plan on GMX: crypto leverage 2, BTC-USD cap 25,000 USD,
// total 50,000 USD; BTC at 50,000 (0.5 BTC is the cap).
import { describe, expect, it } from "vitest";
import { Harness, PLAN } from "../core.testing.js";
import type { PlaceOrderReply } from "../core.js";
import { marginSnapshot } from "../risk/margin.js";

const BTC = "BTC-USD";

function btcAccount(): Harness {
  const h = new Harness().open(PLAN.c10k, "GMX");
  h.quote(BTC, "50000", { depth: 1_000_000_000 });
  return h;
}

function rulesOf(reply: PlaceOrderReply): string[] {
  if (reply.kind === "error") throw new Error(`expected an order, got ${JSON.stringify(reply)}`);
  return reply.violations.map((v) => v.rule);
}

const positions = (h: Harness): [string, number][] =>
  [...h.account.positions.values()].map((p) => [p.side, p.quantity]);

describe("placement values an order that executes at once at the mark", () => {
  it.each<[string, Record<string, unknown>]>([
    ["a MARKET", { side: "SELL", kind: "MARKET" }],
    ["a SELL LIMIT at 0.1 (crossed: it sells at the mark)", { side: "SELL", kind: "LIMIT", limit_price: "0.1" }],
    ["the same as IOC", { side: "SELL", kind: "LIMIT", limit_price: "0.1", time_in_force: "IOC" }],
    ["a BUY STOP triggered already (trigger 0.1)", { side: "BUY", kind: "STOP", trigger_price: "0.1" }],
    ["a SELL TAKE_PROFIT triggered already (trigger 0.1)", { side: "SELL", kind: "TAKE_PROFIT", trigger_price: "0.1" }],
  ])("refuses %s of 0.6 BTC (30,000 USD at the mark) with exposure_cap and opens nothing", (_what, terms) => {
    const h = btcAccount();
    const reply = h.place({ symbol: BTC, quantity: "0.6", ...terms } as Parameters<Harness["place"]>[0]);
    expect(reply.kind).toBe("rejected");
    expect(rulesOf(reply)).toEqual(["exposure_cap"]);
    if (reply.kind !== "error") expect(reply.violations[0]?.message).toContain("30000");
    expect(positions(h)).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      "a crossed BUY LIMIT at its own price (what rests counts at it)",
      { kind: "LIMIT", limit_price: "4900000000000" },
      "limit_price",
    ],
    ["a SELL LIMIT far above the mark", { side: "SELL", kind: "LIMIT", limit_price: "9000000000" }, "limit_price"],
    ["a BUY STOP far above the mark", { kind: "STOP", trigger_price: "9000000000" }, "trigger_price"],
    [
      "a quantity too large at the mark too",
      { kind: "LIMIT", limit_price: "9000000000", quantity: "1000" },
      "quantity",
    ],
    ["a MARKET quantity", { kind: "MARKET", quantity: "1000" }, "quantity"],
  ])("refuses %s too large to account exactly with 400 on the field at fault", (_what, terms, path) => {
    const h = btcAccount();
    const reply = h.place({ symbol: BTC, side: "BUY", quantity: "0.02", ...terms } as Parameters<Harness["place"]>[0]);
    expect(reply).toEqual({
      kind: "error",
      code: "invalid_payload",
      fields: { issues: [{ path, message: "is too large" }] },
    });
    expect(positions(h)).toEqual([]);
  });

  it("refuses 2 BTC sold through a LIMIT at 0.1 (100,000 USD at the mark), which filled before", () => {
    const h = btcAccount();
    const reply = h.place({ symbol: BTC, side: "SELL", kind: "LIMIT", quantity: "2", limit_price: "0.1" });
    expect(rulesOf(reply)).toEqual(["exposure_cap"]);
    expect(positions(h)).toEqual([]);
    expect(h.balance).toBe(10_000 * 1e8);
  });

  it.each<[string, Record<string, unknown>]>([
    ["a MARKET", { kind: "MARKET" }],
    ["a crossed BUY LIMIT at 75,000 (IOC)", { kind: "LIMIT", limit_price: "75000", time_in_force: "IOC" }],
    ["a BUY STOP triggered already (trigger 40,000)", { kind: "STOP", trigger_price: "40000" }],
    [
      "a crossed BUY LIMIT at 51,000 (GTC: it is valued at its limit, which fits)",
      { kind: "LIMIT", limit_price: "51000" },
    ],
  ])("fills %s of 0.35 BTC (17,500 USD at the mark), which its limit or trigger alone would not decide", (_w, t) => {
    const h = btcAccount();
    const reply = h.place({ symbol: BTC, side: "BUY", quantity: "0.35", ...t } as Parameters<Harness["place"]>[0]);
    expect(rulesOf(reply)).toEqual([]);
    expect(reply.kind === "created" && reply.order.status).toBe("FILLED");
    expect(positions(h)).toEqual([["BUY", 3_500]]);
  });

  it.each<[string, Record<string, unknown>]>([
    ["a crossed BUY LIMIT at 75,000 (GTC)", { side: "BUY", kind: "LIMIT", limit_price: "75000" }],
    ["a triggered SELL STOP at 75,000 (GTC)", { side: "SELL", kind: "STOP", trigger_price: "75000" }],
  ])("values %s at its own price where higher than the mark: what the book cannot take rests there", (_w, t) => {
    // A thin book (0.01 BTC a level): 0.05 BTC fills at once and 0.34 would rest, reserved at 75,000.
    const h = new Harness().open(PLAN.c10k, "GMX");
    h.quote(BTC, "50000", { depth: 100 });
    const reply = h.place({ symbol: BTC, quantity: "0.39", ...t } as Parameters<Harness["place"]>[0]);
    expect(rulesOf(reply)).toEqual(["exposure_cap"]);
    expect(positions(h)).toEqual([]);
    // 0.26 at 75,000 is 19,500 USD: within the cap, and its margin (9,750 USD) fits.
    const fits = h.place({ symbol: BTC, quantity: "0.26", ...t } as Parameters<Harness["place"]>[0]);
    expect(rulesOf(fits)).toEqual([]);
    expect(marginSnapshot(h.account, h.market).available).toBeGreaterThanOrEqual(0);
  });

  it("values a resting order at its own price: a SELL LIMIT above the mark counts its limit", () => {
    const h = btcAccount();
    // 0.45 BTC at 60,000 is 27,000 USD: above the cap, though 22,500 at the mark.
    const reply = h.place({ symbol: BTC, side: "SELL", kind: "LIMIT", quantity: "0.45", limit_price: "60000" });
    expect(rulesOf(reply)).toEqual(["exposure_cap"]);
  });

  it("values an order on a closed market at its own price (it cannot execute before the open)", () => {
    const h = btcAccount();
    h.quote(BTC, "50000", { depth: 1_000_000_000, open: false });
    const reply = h.place({ symbol: BTC, side: "SELL", kind: "LIMIT", quantity: "0.6", limit_price: "0.1" });
    // 0.6 × 0.1 is 0.06 USD: within every cap; it rests, and its fill at the open is checked then.
    expect(rulesOf(reply)).toEqual([]);
    expect(reply.kind === "created" && reply.order.status).toBe("NEW");
  });
});

describe("amend values the amended order where it executes", () => {
  it("refuses to amend a resting SELL LIMIT into one the mark crosses past the cap (EUR-USD, leverage 30)", () => {
    const h = new Harness().open(PLAN.c10k, "OSTIUM");
    h.quote("EUR-USD", "1", { depth: 1_000_000_000 });
    const placed = h.placed({ symbol: "EUR-USD", side: "SELL", kind: "LIMIT", quantity: "1000", limit_price: "1.2" });
    // 30,000 EUR at 0.5 would count 15,000 USD; it sells at the mark, 30,000 USD, above the cap of 25,000.
    const reply = h.amend({ order_id: placed.order.order_id, quantity: "30000", limit_price: "0.5" });
    expect(reply).toMatchObject({ kind: "error", code: "conflict", fields: { reason: "exposure_cap" } });
    expect(positions(h)).toEqual([]);
    // Within the cap at the mark: amended, and it fills there.
    const fits = h.amend({ order_id: placed.order.order_id, quantity: "20000", limit_price: "0.5" });
    expect(fits).toMatchObject({ kind: "ok" });
    expect(h.order(placed.order.order_id)).toMatchObject({ status: "FILLED", avg_fill_price: 1 });
  });

  it("refuses to amend a resting BUY LIMIT across the mark into more than its margin, valuing what may rest at its limit", () => {
    const h = new Harness().open(PLAN.c10k, "GMX");
    h.quote(BTC, "50000", { depth: 100 });
    const placed = h.placed({ symbol: BTC, side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "40000" });
    // 0.39 at 75,000 needs 14,625 USD of margin; at the mark 9,750 would have fitted.
    const reply = h.amend({ order_id: placed.order.order_id, quantity: "0.39", limit_price: "75000" });
    expect(reply).toMatchObject({ kind: "error", code: "conflict", fields: { reason: "insufficient_margin" } });
    expect(marginSnapshot(h.account, h.market).available).toBeGreaterThanOrEqual(0);
    expect(positions(h)).toEqual([]);
  });

  it("names the amended price when it is what makes the order too large, even with a new quantity", () => {
    const h = btcAccount();
    const placed = h.placed({ symbol: BTC, side: "SELL", kind: "LIMIT", quantity: "0.01", limit_price: "60000" });
    expect(h.amend({ order_id: placed.order.order_id, quantity: "0.02", limit_price: "9000000000" })).toEqual({
      kind: "error",
      code: "invalid_payload",
      fields: { issues: [{ path: "limit_price", message: "is too large" }] },
    });
  });

  it("refuses to amend a resting SELL LIMIT into 0.6 BTC at 0.1 (it would sell 30,000 USD at the mark)", () => {
    const h = btcAccount();
    const placed = h.placed({ symbol: BTC, side: "SELL", kind: "LIMIT", quantity: "0.01", limit_price: "60000" });
    // At the mark it needs 15,000 USD of margin (leverage 2) of the 10,000 there are; at 0.1, 0.03.
    const reply = h.amend({ order_id: placed.order.order_id, quantity: "0.6", limit_price: "0.1" });
    expect(reply).toMatchObject({ kind: "error", code: "conflict", fields: { reason: "insufficient_margin" } });
    expect(positions(h)).toEqual([]);
    expect(h.order(placed.order.order_id)).toMatchObject({ status: "NEW", quantity: 0.01, limit_price: 60000 });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["a quantity", { quantity: "10000000" }, "quantity"],
    ["a limit price (crossed: what would rest counts at it)", { limit_price: "4900000000000" }, "limit_price"],
  ])("refuses %s too large to account exactly with 400 on that field, changing nothing", (_what, change, path) => {
    const h = btcAccount();
    const placed = h.placed({ symbol: BTC, side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "49000" });
    const reply = h.amend({ order_id: placed.order.order_id, ...change });
    expect(reply).toEqual({
      kind: "error",
      code: "invalid_payload",
      fields: { issues: [{ path, message: "is too large" }] },
    });
    expect(h.order(placed.order.order_id)).toMatchObject({ status: "NEW", quantity: 0.01, limit_price: 49000 });
  });
});

describe("an order that must execute at once on a symbol without a price", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["a MARKET", { kind: "MARKET" }, "has no price yet: a MARKET order cannot execute"],
    [
      "an IOC LIMIT",
      { kind: "LIMIT", limit_price: "100", time_in_force: "IOC" },
      "has no price yet: an IOC order cannot execute",
    ],
    [
      "a FOK LIMIT",
      { kind: "LIMIT", limit_price: "100", time_in_force: "FOK" },
      "has no price yet: an FOK order cannot execute",
    ],
  ])("refuses %s with 400 on symbol, keeping nothing", (_what, terms, message) => {
    const h = new Harness().open(PLAN.c10k, "GMX");
    const reply = h.place({ symbol: "SOL-USD", side: "BUY", quantity: "1", ...terms } as Parameters<
      Harness["place"]
    >[0]);
    expect(reply).toEqual({
      kind: "error",
      code: "invalid_payload",
      fields: { issues: [{ path: "symbol", message }] },
    });
    expect(h.account.orders.size).toBe(0);
  });

  it("rests a GTC LIMIT and a STOP until the symbol has a price", () => {
    const h = new Harness().open(PLAN.c10k, "GMX");
    const limit = h.placed({ symbol: "SOL-USD", side: "BUY", kind: "LIMIT", quantity: "1", limit_price: "100" });
    const stop = h.placed({ symbol: "SOL-USD", side: "BUY", kind: "STOP", quantity: "1", trigger_price: "120" });
    expect([limit.order.status, stop.order.status]).toEqual(["NEW", "NEW"]);
  });
});
