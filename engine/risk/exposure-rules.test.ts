// The exposure rules against the ways around them (docs/risk.md, `exposure_cap` and "Amending"): orders
// stacked against one position, an order that flips a position, amends that grow an order, and stop-losses
// that do not protect the order being checked. 10K plan on OSTIUM: EUR-USD symbol cap 25,000 USD.
import { describe, expect, it } from "vitest";
import { Harness, PLAN } from "../core.testing.js";
import type { PlaceOrderReply } from "../core.js";
import { symbolExposure } from "./exposure.js";

const EUR = "EUR-USD";

function eurAccount(): Harness {
  const h = new Harness().open(PLAN.c10k, "OSTIUM");
  h.quote(EUR, "1", { depth: 1_000_000_000 });
  return h;
}

function rulesOf(reply: PlaceOrderReply): string[] {
  if (reply.kind === "error") throw new Error(`expected an order, got ${JSON.stringify(reply)}`);
  return reply.violations.map((v) => v.rule);
}

/** A high-impact forex event right now: the news freeze holds for EUR-USD. */
function freezeForex(h: Harness): void {
  h.calendar = [
    {
      id: "nfp",
      title: "NFP",
      scheduled_at: new Date(h.now).toISOString(),
      at: h.now,
      symbols: [],
      asset_classes: ["forex"],
    },
  ];
}

const exposureUsd = (h: Harness): number => symbolExposure(h.account, h.market, EUR) / 1e8;

describe("exposure_cap: orders against an open position", () => {
  it("lets the orders on the closing side reduce the position once between them, not once each", () => {
    const h = eurAccount();
    h.placed({ symbol: EUR, side: "BUY", kind: "MARKET", quantity: "20000" });
    const sell = () => h.place({ symbol: EUR, side: "SELL", kind: "LIMIT", quantity: "20000", limit_price: "1.01" });
    // The first only closes the long; the second would leave a short of 20,200 at its price: within 25,000.
    expect(rulesOf(sell())).toEqual([]);
    expect(rulesOf(sell())).toEqual([]);
    // The third would leave a short of 40,400 if all filled: refused, as one fresh SELL of that size is.
    const third = sell();
    expect(third.kind).toBe("rejected");
    expect(rulesOf(third)).toEqual(["exposure_cap"]);
    expect(exposureUsd(h)).toBeLessThanOrEqual(25_000);
  });

  it("counts an order that flips a position at its whole size, so the new position stays within the cap", () => {
    const h = eurAccount();
    h.placed({ symbol: EUR, side: "BUY", kind: "MARKET", quantity: "25000" });
    // Long 25,000 → short 50,000 would be twice the cap.
    const flip = h.place({ symbol: EUR, side: "SELL", kind: "MARKET", quantity: "75000" });
    expect(rulesOf(flip)).toEqual(["exposure_cap"]);
    expect([...h.account.positions.values()].map((p) => [p.side, p.quantity])).toEqual([["BUY", 25_000]]);
    // Long 25,000 → short 25,000 is at the cap: accepted.
    const flat = h.place({ symbol: EUR, side: "SELL", kind: "MARKET", quantity: "50000" });
    expect(rulesOf(flat)).toEqual([]);
    expect([...h.account.positions.values()].map((p) => p.side)).toEqual(["SELL"]);
  });

  it("agrees with the exposure the engine keeps once a flipping LIMIT rests", () => {
    const h = eurAccount();
    h.placed({ symbol: EUR, side: "BUY", kind: "MARKET", quantity: "20000" });
    const resting = h.place({ symbol: EUR, side: "SELL", kind: "LIMIT", quantity: "60000", limit_price: "1.05" });
    // |20,000 − 63,000| = 43,000 > 25,000.
    expect(rulesOf(resting)).toEqual(["exposure_cap"]);
    const fits = h.place({ symbol: EUR, side: "SELL", kind: "LIMIT", quantity: "40000", limit_price: "1.05" });
    expect(rulesOf(fits)).toEqual([]);
    if (fits.kind === "error") throw new Error("unreachable");
    expect(exposureUsd(h)).toBe(25_000 - fits.risk_headroom.symbol_exposure_remaining);
  });

  it("still never blocks an order that only closes (nothing else on its side)", () => {
    const h = eurAccount();
    h.placed({ symbol: EUR, side: "BUY", kind: "MARKET", quantity: "25000" });
    freezeForex(h);
    expect(rulesOf(h.place({ symbol: EUR, side: "SELL", kind: "MARKET", quantity: "25000" }))).toEqual([]);
    expect(h.account.positions.size).toBe(0);
  });
});

describe("amending an order", () => {
  it("refuses growing a resting order past the exposure cap with 409 and leaves the order as it was", () => {
    const h = eurAccount();
    const direct = h.place({ symbol: EUR, side: "BUY", kind: "LIMIT", quantity: "100000", limit_price: "0.9" });
    expect(rulesOf(direct)).toEqual(["exposure_cap"]);
    const small = h.placed({ symbol: EUR, side: "BUY", kind: "LIMIT", quantity: "10000", limit_price: "0.9" });
    const amended = h.amend({ order_id: small.order.order_id, quantity: "100000" });
    expect(amended).toMatchObject({
      kind: "error",
      code: "conflict",
      fields: { reason: "exposure_cap", order_id: small.order.order_id, violations: [{ rule: "exposure_cap" }] },
    });
    expect(h.order(small.order.order_id)).toMatchObject({ quantity: 10_000, status: "NEW" });
    expect(exposureUsd(h)).toBe(9_000);
    // Within the cap it goes through, and the engine's exposure follows.
    expect(h.amend({ order_id: small.order.order_id, quantity: "25000" })).toMatchObject({ kind: "ok" });
    expect(exposureUsd(h)).toBe(22_500);
  });

  it("counts the amended order instead of the old one, not on top of it", () => {
    const h = eurAccount();
    const order = h.placed({ symbol: EUR, side: "BUY", kind: "LIMIT", quantity: "20000", limit_price: "0.9" });
    // 18,000 now; moved to 1.2 it would count 24,000 (not 18,000 + 24,000).
    expect(h.amend({ order_id: order.order.order_id, limit_price: "0.95" })).toMatchObject({ kind: "ok" });
    expect(exposureUsd(h)).toBe(19_000);
  });

  it("refuses moving a limit across the mark inside a news freeze, as a new crossing order is", () => {
    const h = eurAccount();
    const resting = h.placed({ symbol: EUR, side: "BUY", kind: "LIMIT", quantity: "10000", limit_price: "0.9" });
    freezeForex(h);
    expect(
      rulesOf(h.place({ symbol: EUR, side: "BUY", kind: "LIMIT", quantity: "10000", limit_price: "1.01" })),
    ).toEqual(["news_freeze"]);
    const moved = h.amend({ order_id: resting.order.order_id, limit_price: "1.01" });
    expect(moved).toMatchObject({ kind: "error", code: "conflict", fields: { reason: "news_freeze" } });
    expect(h.account.positions.size).toBe(0);
    // Lowering the quantity adds nothing: allowed during the freeze.
    expect(h.amend({ order_id: resting.order.order_id, quantity: "5000" })).toMatchObject({ kind: "ok" });
  });
});

describe("daily_loss_limit: which stop-losses protect an order", () => {
  it("ignores a HELD child stop of another order on a flat account", () => {
    const worst = (withChild: boolean): string[] => {
      const h = new Harness().open(PLAN.c10k, "GMX");
      h.quote("BTC-USD", "50000", { depth: 1_000_000_000 });
      const parent = h.placed({
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: "0.01",
        limit_price: "45000",
      });
      if (withChild) {
        const child = h.placed({
          symbol: "BTC-USD",
          side: "SELL",
          kind: "STOP",
          quantity: "0.01",
          trigger_price: "10000",
          parent_order_id: parent.order.order_id,
        });
        expect(child.order.status).toBe("HELD");
      }
      const tested = h.test({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
      if (tested.kind !== "tested") throw new Error(JSON.stringify(tested));
      return tested.violations.map((v) => v.rule);
    };
    expect(worst(false)).toEqual([]);
    expect(worst(true)).toEqual([]);
  });
});

describe("the exposure rules at fill time", () => {
  /** 10K on GMX, long 2 ETH at 2,500, a crypto event one minute away (inside the 2-minute freeze). */
  function longEthBeforeNews(): Harness {
    const h = new Harness().open(PLAN.c10k, "GMX");
    h.quote("ETH-USD", "2500");
    h.placed({ symbol: "ETH-USD", side: "BUY", kind: "MARKET", quantity: "2" });
    const at = h.now + 60_000;
    h.calendar = [
      { id: "cpi", title: "CPI", scheduled_at: new Date(at).toISOString(), at, symbols: [], asset_classes: ["crypto"] },
    ];
    return h;
  }

  it("does not let a resting order open, inside a news freeze, the exposure it only closed when placed", () => {
    const h = longEthBeforeNews();
    expect(rulesOf(h.place({ symbol: "ETH-USD", side: "SELL", kind: "MARKET", quantity: "4" }))).toEqual([
      "news_freeze",
    ]);
    const limit = h.placed({ symbol: "ETH-USD", side: "SELL", kind: "LIMIT", quantity: "2", limit_price: "2510" });
    h.close({ symbol: "ETH-USD" });
    expect(h.account.positions.size).toBe(0);
    h.price("ETH-USD", "2510");
    // The whole fill would open a 2 ETH short: none of it executes, the order goes with the rule as its reason.
    expect(h.account.positions.size).toBe(0);
    expect(h.order(limit.order.order_id)).toMatchObject({ status: "CANCELED", filled_quantity: 0 });
    expect(h.account.orders.get(limit.order.order_id)?.reason).toBe("news_freeze");
    expect(h.account.violations).toEqual([expect.objectContaining({ rule: "news_freeze", threshold: 0, value: 0 })]);
    const cancel = h.outbox.at(-1);
    expect(cancel?.type).toBe("order.cancel");
    expect(JSON.parse(cancel?.data ?? "{}")).toMatchObject({ status: "CANCELED", reason: "news_freeze" });
    expect(h.account.state).toBe("ACTIVE");
  });

  it("executes the reducing part of a fill and refuses only the part that would add exposure", () => {
    const h = longEthBeforeNews();
    // SELL 3 with 2 ETH long: 2 close it (always allowed), the third would open a short inside the freeze.
    h.calendar = [];
    const limit = h.placed({ symbol: "ETH-USD", side: "SELL", kind: "LIMIT", quantity: "3", limit_price: "2510" });
    const at = h.now + 60_000;
    h.calendar = [
      { id: "cpi", title: "CPI", scheduled_at: new Date(at).toISOString(), at, symbols: [], asset_classes: ["crypto"] },
    ];
    h.price("ETH-USD", "2510");
    expect(h.order(limit.order.order_id)).toMatchObject({ status: "CANCELED", filled_quantity: 2 });
    expect(h.account.orders.get(limit.order.order_id)?.reason).toBe("news_freeze");
    expect(h.account.positions.size).toBe(0);
  });

  it("checks a triggered FOK's whole adding part before any of it fills: refused, it fills nothing", () => {
    // 10K on GMX (daily limit 500): long 0.1 BTC bought at 100,000 (fee 6), the mark at 95,078 → 498.20 used.
    const h = new Harness().open(PLAN.c10k, "GMX");
    h.quote("BTC-USD", "100000", { depth: 1_000_000 });
    h.quote("ETH-USD", "2500", { depth: 1000 });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    const stop = h.placed({
      symbol: "ETH-USD",
      side: "BUY",
      kind: "STOP",
      quantity: "2",
      trigger_price: "2510",
      time_in_force: "FOK",
    });
    h.price("BTC-USD", "95078", { depth: 1_000_000 });
    // Triggered with 1.80 left: one 1 ETH level's fee (1.506) fits, both levels' (3.012 and a tick) do not.
    h.price("ETH-USD", "2510", { depth: 1000 });
    expect(h.order(stop.order.order_id)).toMatchObject({ status: "CANCELED", filled_quantity: 0 });
    expect(h.account.orders.get(stop.order.order_id)?.reason).toBe("daily_loss_limit");
    expect(h.account.positions.has("ETH-USD:GMX")).toBe(false);
  });
});
