import { describe, expect, it } from "vitest";
import type { AccountState } from "../basics/account-state.js";
import { createMarketView, setQuote } from "../market/book.js";
import { CATALOGUE } from "../market/catalogue.js";
import { notionalOf, tickerUnits } from "../market/units.js";
import { Harness, PLAN } from "../core.testing.js";
import type { Order } from "../basics/order-types.js";
import {
  accountTerminated,
  exposureRule,
  insufficientMargin,
  marketClosed,
  venueNotAllowed,
  type RiskCheck,
  type RiskInput,
} from "./checks.js";
import { riskInput } from "./input.js";
import { firstViolation, PRE_TRADE_CHECKS } from "./pipeline.js";
import { critical } from "../basics/risk-types.js";

const WEDNESDAY = Date.parse("2026-11-25T12:00:00.000Z");
const SATURDAY = Date.parse("2026-11-28T12:00:00.000Z");

function stateOf(planId: string): AccountState {
  return new Harness().open(planId).account;
}

function input(patch: {
  state?: AccountState;
  now?: number;
  order?: Partial<Order>;
  symbol?: string;
  exposure?: number;
}): RiskInput {
  const market = createMarketView();
  const symbol = patch.symbol ?? "BTC-USD";
  const spec = CATALOGUE.byKey(symbol);
  if (spec === undefined) throw new Error(symbol);
  const quote = setQuote(market, symbol, { mark: 1_000_000, index: 1_000_000 });
  const order = {
    symbol,
    side: "BUY",
    kind: "MARKET",
    venue: "OSTIUM",
    reduce_only: false,
    quantity: patch.exposure ?? 0,
    limit_price: null,
    ...patch.order,
  } as Order;
  return riskInput({
    state: patch.state ?? stateOf(PLAN.c10k),
    market,
    now: patch.now ?? WEDNESDAY,
    calendar: [],
    spec,
    quote,
    order,
    exposureSteps: patch.exposure ?? 0,
    priceTicks: 1_000_000,
    leverage: 2,
    countedNotional: notionalOf(1_000_000, patch.exposure ?? 0, tickerUnits(spec).unitsPerTickStep),
  });
}

describe("the pre-trade checks", () => {
  it("run in the documented order", () => {
    expect(PRE_TRADE_CHECKS.slice(0, 3)).toEqual([accountTerminated, venueNotAllowed, marketClosed]);
    // The rest are exposure rules (wrapped): drawdown_gate, daily_loss_limit, news_freeze, exposure_cap,
    // insufficient_margin, in that order — shown by which one answers an order that breaks all of them.
    expect(PRE_TRADE_CHECKS).toHaveLength(8);
  });

  it("deny a terminated account", () => {
    const state = { ...stateOf(PLAN.c10k), state: "TERMINATED" as const };
    expect(accountTerminated(input({ state }))?.rule).toBe("account_terminated");
    expect(accountTerminated(input({}))).toBeUndefined();
  });

  it.each<[string, string, Partial<Order>, string | undefined]>([
    ["a venue the plan allows", PLAN.c10k, { venue: "GMX" }, undefined],
    ["a venue the plan does not allow", PLAN.c100kOstium, { venue: "GMX" }, "venue_not_allowed"],
    ["a venue that does not list the symbol", PLAN.c10k, { venue: "GMX", symbol: "EUR-USD" }, "venue_not_allowed"],
  ])("judge %s", (_label, planId, order, rule) => {
    const symbol = order.symbol ?? "BTC-USD";
    expect(venueNotAllowed(input({ state: stateOf(planId), order, symbol }))?.rule).toBe(rule);
  });

  it.each<[string, number, string, Partial<Order>, string | undefined]>([
    ["a forex MARKET on a Saturday", SATURDAY, "EUR-USD", { kind: "MARKET" }, "market_closed"],
    ["a forex LIMIT on a Saturday (it rests)", SATURDAY, "EUR-USD", { kind: "LIMIT" }, undefined],
    ["a crypto MARKET on a Saturday", SATURDAY, "BTC-USD", { kind: "MARKET" }, undefined],
    ["a forex MARKET on a Wednesday", WEDNESDAY, "EUR-USD", { kind: "MARKET" }, undefined],
  ])("judge %s", (_label, now, symbol, order, rule) => {
    expect(marketClosed(input({ now, symbol, order: { ...order, symbol } }))?.rule).toBe(rule);
  });

  it("deny an order whose margin and taker fee exceed what is available", () => {
    // 10K plan, BTC at 100000.0, leverage 2, OSTIUM taker 0.10%:
    // 0.1998 BTC needs 9,990 + 19.98 = 10,009.98 USD; 0.1997 needs 9,985 + 19.97 = 10,004.97 USD.
    expect(insufficientMargin(input({ exposure: 1_990 }))).toBeUndefined();
    expect(insufficientMargin(input({ exposure: 1_998 }))).toEqual(
      critical("insufficient_margin", "the order needs 10009.98 USD of margin; 10000 USD is available"),
    );
  });

  it("let orders that cannot add exposure skip the exposure rules", () => {
    const denyAll: RiskCheck = () => critical("exposure_cap", "always");
    const check = exposureRule(denyAll);
    // Reduce-only, or adding nothing beyond the opposite position: exempt.
    expect(check(input({ order: { reduce_only: true }, exposure: 5 }))).toBeUndefined();
    expect(check(input({ exposure: 0 }))).toBeUndefined();
    expect(check(input({ exposure: 1 }))?.rule).toBe("exposure_cap");
  });

  it("stop at the first denial", () => {
    const state = { ...stateOf(PLAN.c100kOstium), state: "TERMINATED" as const };
    const violation = firstViolation(input({ state, order: { venue: "GMX" }, exposure: 100_000 }));
    expect(violation?.rule).toBe("account_terminated");
    // 100 BTC at 100,000: its 6,000 USD fee alone is past the 5,000 USD daily limit, which is checked first.
    expect(firstViolation(input({ order: { venue: "GMX" }, exposure: 100_000 }))?.rule).toBe("daily_loss_limit");
    // 2.5 BTC: within the fee, the day and the 250,000 USD symbol cap, but 125,000 USD of margin.
    expect(firstViolation(input({ order: { venue: "GMX" }, exposure: 2_500 }))?.rule).toBe("insufficient_margin");
    expect(firstViolation(input({ order: { venue: "GMX" }, exposure: 1 }))).toBeUndefined();
  });
});
