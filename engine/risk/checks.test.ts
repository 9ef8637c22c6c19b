// Each limit rule at, just under and just over its threshold (docs/risk.md), on a 10K static account:
// drawdown floor 9,000 USD, daily limit 500 USD, symbol cap 25,000 USD, total cap 50,000 USD, news freeze
// 2 minutes before and after.
import { describe, expect, it } from "vitest";
import type { AccountState } from "../basics/account-state.js";
import { CATALOGUE } from "../market/catalogue.js";
import { parseCalendar, type NewsEvent } from "../market/calendar.js";
import { notionalOf, tickerUnits } from "../market/units.js";
import { Harness, PLAN, usd } from "../core.testing.js";
import type { Order } from "../basics/order-types.js";
import {
  dailyLossLimit,
  drawdownGate,
  exposureCap,
  freezingEvent,
  newsFreeze,
  worstCase,
  type RiskInput,
} from "./checks.js";
import { riskInput } from "./input.js";

const UNIT = 1;

/** A RiskInput for a BUY of `steps` BTC steps (0.001 BTC) at `price` ticks (0.1 USD) on a harness account. */
function inputFor(h: Harness, patch: { steps?: number; price?: number; side?: "BUY" | "SELL"; symbol?: string } = {}) {
  const symbol = patch.symbol ?? "BTC-USD";
  const spec = CATALOGUE.byKey(symbol);
  if (spec === undefined) throw new Error(symbol);
  const order = {
    symbol,
    side: patch.side ?? "BUY",
    quantity: patch.steps ?? 1,
    kind: "LIMIT",
    limit_price: patch.price ?? 1_000_000,
    venue: "GMX",
    reduce_only: false,
  } as Order;
  return riskInput({
    state: h.account,
    market: h.market,
    now: h.now,
    calendar: h.calendar,
    spec,
    quote: h.market.quotes.get(symbol),
    order,
    exposureSteps: patch.steps ?? 1,
    priceTicks: patch.price ?? 1_000_000,
    leverage: 2,
    countedNotional: notionalOf(patch.price ?? 1_000_000, patch.steps ?? 1, tickerUnits(spec).unitsPerTickStep),
  });
}

function tenK(): Harness {
  const h = new Harness().open(PLAN.c10k);
  h.quote("BTC-USD", "100000");
  return h;
}

/** The same input with equity, day start and fee set directly. */
function withNumbers(input: RiskInput, numbers: { equity?: number; dayStart?: number; fee?: number }): RiskInput {
  const state: AccountState = { ...input.state, day_start_equity: numbers.dayStart ?? input.state.day_start_equity };
  return {
    ...input,
    state,
    margin: { ...input.margin, equity: numbers.equity ?? input.margin.equity },
    openingFee: numbers.fee ?? input.openingFee,
  };
}

describe("drawdown_gate: equity less the order's fee against the floor", () => {
  const floor = usd("9000");
  it.each([
    ["one unit under the floor", floor + usd("0.5") - UNIT, "drawdown_gate"],
    ["exactly at the floor", floor + usd("0.5"), undefined],
    ["one unit over the floor", floor + usd("0.5") + UNIT, undefined],
  ])("%s", (_name, equity, rule) => {
    const input = withNumbers(inputFor(tenK()), { equity, fee: usd("0.5"), dayStart: equity });
    expect(input.limits.drawdownFloor).toBe(floor);
    expect(drawdownGate(input)?.rule).toBe(rule);
  });

  it("trailing plans measure from the high-water mark", () => {
    const h = new Harness().open(PLAN.c200k);
    h.quote("BTC-USD", "100000");
    const floorAt = (high: string): number => {
      const raised: AccountState = { ...h.account, high_water_mark: usd(high) };
      const input = { ...inputFor(h), state: raised };
      return riskInput({ ...input, state: raised, calendar: [], countedNotional: 0 }).limits.drawdownFloor;
    };
    // 200K trailing, 5%: the floor trails the mark by 10,000 (5% of the start), until it reaches 200,000.
    expect(floorAt("205000")).toBe(usd("195000"));
    expect(floorAt("210000")).toBe(usd("200000"));
    expect(floorAt("250000")).toBe(usd("200000"));
  });
});

describe("daily_loss_limit: the day's loss and the order's worst case", () => {
  const limit = usd("500");
  const dayStart = usd("10000");
  it.each([
    ["loss one unit under the limit, fee fits exactly", dayStart - (limit - 1), 1, undefined],
    ["loss one unit under the limit, fee one unit too many", dayStart - (limit - 1), 2, "daily_loss_limit"],
    ["loss exactly at the limit", dayStart - limit, 0, "daily_loss_limit"],
    ["loss over the limit", dayStart - limit - 1, 0, "daily_loss_limit"],
    ["a gain", dayStart + usd("100"), 1, undefined],
  ])("%s", (_name, equity, fee, rule) => {
    const input = withNumbers(inputFor(tenK()), { equity, dayStart, fee });
    expect(input.limits.dailyLimit).toBe(limit);
    expect(dailyLossLimit(input)?.rule).toBe(rule);
  });

  it("counts the whole order's slippage through the book when it executes at once", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { depth: 10 });
    // A BUY of 0.003 BTC up to 100,000.2: 0.001 at each of the mark, +0.1 and +0.2: 0.0003 USD of slippage
    // (0.001 × 0.1 + 0.001 × 0.2) on top of its opening fee.
    const input = inputFor(h, { steps: 30, price: 1_000_002 });
    expect(worstCase(input)).toBe(input.openingFee + usd("0.0003"));
  });

  it("counts the loss to the nearest stop-loss protecting the position the order adds to", () => {
    const h = tenK();
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
    h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "90000",
      reduce_only: true,
    });
    h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "95000",
      reduce_only: true,
    });
    // Adding 0.01 BTC at 100,000: the 95,000 stop fires first: 50 USD, + 0.60 open fee + 0.57 close fee.
    const input = inputFor(h, { steps: 100, price: 1_000_000 });
    expect(worstCase(input)).toBe(usd("50") + usd("0.6") + usd("0.57"));
    // A stop-loss on the other venue, or a SELL order, does not protect this BUY.
    expect(worstCase(inputFor(h, { steps: 10, side: "SELL" }))).toBe(
      inputFor(h, { steps: 10, side: "SELL" }).openingFee,
    );
    // With 120 USD of the day left: a stop 100 USD away passes, 130 USD away does not (docs/risk.md example).
    const left = (stopAt: string) => {
      const g = tenK();
      g.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" });
      g.placed({
        symbol: "BTC-USD",
        side: "SELL",
        kind: "STOP",
        quantity: "0.001",
        trigger_price: stopAt,
        reduce_only: true,
      });
      const base = inputFor(g, { steps: 100, price: 500_000 });
      return dailyLossLimit(withNumbers(base, { dayStart: usd("10000"), equity: usd("9620") }))?.rule;
    };
    expect(left("40000")).toBeUndefined();
    expect(left("37000")).toBe("daily_loss_limit");
  });
});

describe("news_freeze: minutes_before ≤ t − event ≤ minutes_after, both ends inclusive", () => {
  const at = Date.parse("2026-11-25T13:30:00.000Z");
  const calendar = (): NewsEvent[] => {
    const parsed = parseCalendar(
      [
        { id: "nfp", title: "NFP", scheduled_at: "2026-11-25T13:30:00Z", symbols: [], asset_classes: ["forex"] },
        {
          id: "btc",
          title: "BTC event",
          scheduled_at: "2026-11-25T13:30:00Z",
          symbols: ["BTC-USD"],
          asset_classes: [],
        },
      ],
      CATALOGUE,
    );
    if ("issues" in parsed) throw new Error("bad calendar");
    return parsed.ok;
  };
  const minute = 60_000;
  it.each([
    ["one ms before the window", at - 2 * minute - 1, false],
    ["the window's first instant", at - 2 * minute, true],
    ["the event itself", at, true],
    ["the window's last instant", at + 2 * minute, true],
    ["one ms after the window", at + 2 * minute + 1, false],
  ])("%s", (_name, now, frozen) => {
    const h = tenK();
    h.calendar = calendar();
    h.now = now;
    expect(newsFreeze(inputFor(h))?.rule).toBe(frozen ? "news_freeze" : undefined);
  });

  it("affects named symbols and whole asset classes, nothing else", () => {
    const spec = (symbol: string) => {
      const found = CATALOGUE.byKey(symbol);
      if (found === undefined) throw new Error(symbol);
      return found;
    };
    const window = { minutes_before: 2, minutes_after: 2 };
    expect(freezingEvent(calendar(), spec("EUR-USD"), at, window)?.id).toBe("nfp");
    expect(freezingEvent(calendar(), spec("BTC-USD"), at, window)?.id).toBe("btc");
    expect(freezingEvent(calendar(), spec("ETH-USD"), at, window)).toBeUndefined();
    expect(freezingEvent(calendar(), spec("XAU-USD"), at, window)).toBeUndefined();
  });

  it("never blocks a reduce-only order (the pipeline exempts it)", () => {
    const h = tenK();
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
    h.calendar = calendar();
    h.now = at;
    const refused = h.place({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" });
    expect(refused.kind === "rejected" && refused.violations[0]?.rule).toBe("news_freeze");
    expect(h.close({ symbol: "BTC-USD" }).kind).toBe("created");
  });
});

describe("exposure_cap: position plus working orders that could add exposure", () => {
  /** 10K account, forex on OSTIUM (leverage 30, so margin is not what binds): symbol cap 25,000 USD. */
  function forex(): Harness {
    const h = tenK();
    for (const symbol of ["EUR-USD", "GBP-USD", "AUD-USD"]) h.quote(symbol, "1.1");
    return h;
  }
  const rest = (h: Harness, symbol: string, side: "BUY" | "SELL", quantity: number, price: string) =>
    h.placed({ symbol, side, kind: "LIMIT", quantity, limit_price: price, venue: "OSTIUM" });
  const eur = (h: Harness, units: number, side: "BUY" | "SELL" = "BUY", symbol = "EUR-USD") =>
    inputFor(h, { symbol, side, steps: units, price: 100_000 });

  it.each([
    // A resting BUY of 18,000 EUR at 1.0 already counts 18,000 USD (at its own price, not the mark).
    ["one unit under the cap", 6_999, usd("24999"), undefined],
    ["exactly at the cap", 7_000, usd("25000"), undefined],
    ["one unit over the cap", 7_001, usd("25001"), "exposure_cap"],
  ])("%s", (_name, units, exposure, rule) => {
    const h = forex();
    rest(h, "EUR-USD", "BUY", 18_000, "1");
    const input = eur(h, units);
    expect(input.symbolExposure).toBe(exposure);
    expect(exposureCap(input)?.rule).toBe(rule);
  });

  it("counts the larger of the all-buys-fill and all-sells-fill outcomes", () => {
    const h = forex();
    h.quote("EUR-USD", "1");
    h.placed({ symbol: "EUR-USD", side: "BUY", kind: "MARKET", quantity: 10_000, venue: "OSTIUM" }); // long 10,000
    rest(h, "EUR-USD", "SELL", 30_000, "1.1"); // 33,000 of sells
    // Long 10,000 − 33,000 of sells: a 23,000 short if every sell filled.
    expect(eur(h, 0, "SELL").symbolExposure).toBe(usd("23000"));
    expect(exposureCap(eur(h, 2_000, "SELL"))).toBeUndefined();
    expect(exposureCap(eur(h, 2_001, "SELL"))?.rule).toBe("exposure_cap");
    // Buys first reduce the long's opposite outcome: 10,000 + 15,000 = 25,000 is still within the cap.
    expect(exposureCap(eur(h, 15_000, "BUY"))).toBeUndefined();
  });

  it("caps the total over symbols", () => {
    const h = forex();
    rest(h, "EUR-USD", "BUY", 22_500, "1");
    rest(h, "GBP-USD", "BUY", 22_500, "1");
    // 45,000 of 50,000 used: 5,000 AUD fits exactly, one more unit does not (its own symbol is far from 25,000).
    const fits = eur(h, 5_000, "BUY", "AUD-USD");
    expect(fits.totalExposure).toBe(usd("50000"));
    expect(exposureCap(fits)).toBeUndefined();
    expect(exposureCap(eur(h, 5_001, "BUY", "AUD-USD"))?.message).toMatch(/total exposure/);
  });

  it("stops counting an order once it is canceled or filled", () => {
    const h = forex();
    const order = rest(h, "EUR-USD", "BUY", 18_000, "1").order;
    expect(eur(h, 0).symbolExposure).toBe(usd("18000"));
    h.cancel(order.order_id);
    expect(eur(h, 0).symbolExposure).toBe(0);
    expect(h.account.order_exposure.get("EUR-USD")).toEqual({ buy: 0, sell: 0 });
  });
});

describe("daily_loss_limit: a crossing LIMIT's stop distance", () => {
  it("measures the loss to the protecting stop from the mark it fills from, not from its limit", () => {
    // 10K on GMX (limit 500): long 0.1 BTC at 100,000 (fee 6), a stop-loss at 90,000, the mark 96,260 → 120 left.
    const h = new Harness().open(PLAN.c10k, "GMX");
    h.quote("BTC-USD", "100000", { depth: 1_000_000 });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.1",
      trigger_price: "90000",
      reduce_only: true,
    });
    h.price("BTC-USD", "96260", { depth: 1_000_000 });
    // BUY 0.01 LIMIT 105,000 fills from 96,260: 62.60 to the stop and fees, not 150 from its limit.
    const tested = h.test({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "105000" });
    if (tested.kind === "error") throw new Error(`expected a test result, got ${JSON.stringify(tested)}`);
    expect(tested.violations).toEqual([]);
  });
});
