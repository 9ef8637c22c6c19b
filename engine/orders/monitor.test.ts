// Scenarios of the monitoring, termination, passing, funding and analytics (docs/risk.md), driven through
// the pure core with scripted prices. A 10K static account: daily limit 500, drawdown allowance 1,000,
// profit target 11,000. GMX charges 0.06% on open and close at zero skew.
import { describe, expect, it } from "vitest";
import { analytics, breaches, fundingReport, violations } from "../accounts/risk-queries.js";
import { positionHistory } from "../accounts/queries.js";
import { replay } from "../core.js";
import { Harness, PLAN, usd } from "../core.testing.js";
import { nextFundingAt } from "../risk/funding.js";

const DAY = 86_400_000;
const RATES = { cryptoPpm: 100, rolloverPpm: 50 };

/** Long 0.1 BTC at 100,000 on GMX (6 USD fee) with a resting BUY LIMIT at 90,000. */
function longTenK(): { h: Harness; restingId: string } {
  const h = new Harness().open(PLAN.c10k);
  h.quote("BTC-USD", "100000");
  h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
  const resting = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "90000" });
  return { h, restingId: resting.order.order_id };
}

const levels = (h: Harness) => breaches(h.account).data.map((b) => `${b.rule}:${b.severity}`);

describe("daily loss into termination", () => {
  it("records info, warning and critical at exactly 50, 80 and 100% of the limit, then terminates", () => {
    const { h, restingId } = longTenK();
    // Loss = 6 + 0.1 × (100,000 − P): 250 at 97,560, 400 at 96,060, 500 at 95,060.
    h.price("BTC-USD", "97560.1");
    expect(levels(h)).toEqual([]);
    h.price("BTC-USD", "97560");
    expect(levels(h)).toEqual(["daily_loss_limit:info"]);
    expect(breaches(h.account).data[0]).toMatchObject({ threshold: 250, value: 250 });
    h.price("BTC-USD", "96060.1");
    expect(levels(h)).toHaveLength(1);
    h.price("BTC-USD", "96060");
    expect(levels(h)).toEqual(["daily_loss_limit:info", "daily_loss_limit:warning"]);
    h.price("BTC-USD", "95060.1");
    expect(h.account.state).toBe("ACTIVE");

    h.price("BTC-USD", "95060");
    // Drawdown used is 500 of 1,000 here: its 50% level is recorded too.
    expect(levels(h)).toEqual([
      "daily_loss_limit:info",
      "daily_loss_limit:warning",
      "daily_loss_limit:critical",
      "drawdown_gate:info",
    ]);
    expect(h.account.state).toBe("TERMINATED");
    expect(h.account.terminated_at).toBe(h.now);
    expect(h.order(restingId)).toMatchObject({ status: "CANCELED" });
    expect(h.account.orders.get(restingId)?.reason).toBe("risk");
    expect(h.account.positions.size).toBe(0);
    expect(h.account.working.size).toBe(0);
    // Closed at the mark: −494 realized, 5.7036 closing fee.
    expect(h.balance).toBe(usd("10000") - usd("6") - usd("494") - usd("5.7036"));
    expect(violations(h.account).data).toEqual([
      expect.objectContaining({ rule: "daily_loss_limit", threshold: 500, value: 500 }),
    ]);

    const after = h.place({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" });
    expect(after.kind === "rejected" && after.violations[0]?.rule).toBe("account_terminated");
    // Nothing more is recorded for a terminated account, whatever the price does.
    h.price("BTC-USD", "80000");
    expect(h.lastEvents).toEqual([]);
  });

  it("records each level once per day, and again after the daily reset", () => {
    const { h } = longTenK();
    h.price("BTC-USD", "97560");
    h.price("BTC-USD", "99000");
    h.price("BTC-USD", "97560");
    expect(levels(h)).toEqual(["daily_loss_limit:info"]);

    h.now += DAY;
    h.price("BTC-USD", "97560");
    // A new day starts at the equity of its first decision: 9,750.
    expect(h.lastEvents[0]).toMatchObject({ type: "DayStarted", day: "2026-11-26", equity: usd("9750") });
    expect(h.account.day_start_equity).toBe(usd("9750"));
    expect(levels(h)).toEqual(["daily_loss_limit:info"]);
    // 250 below the new day's start: the day's 50% again, and the drawdown's (500 of 1,000) first.
    h.price("BTC-USD", "95060");
    expect(levels(h)).toEqual(["daily_loss_limit:info", "daily_loss_limit:info", "drawdown_gate:info"]);
    expect(h.account.state).toBe("ACTIVE");
  });

  it("starts the day on an order too, so the checks use the new day's start", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    h.now += DAY;
    const reply = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "90000" });
    expect(h.lastEvents[0]).toMatchObject({ type: "DayStarted", day: "2026-11-26", equity: usd("10000") });
    // The full day's 500 less the order's own 0.54 USD fee (0.01 BTC at 90,000, 0.06%).
    expect(reply.risk_headroom.daily_loss_remaining).toBe(499.46);
  });
});

describe("the daily reset", () => {
  const BEFORE_MIDNIGHT = Date.parse("2026-11-25T23:59:59.000Z");
  const AFTER_MIDNIGHT = Date.parse("2026-11-26T00:00:01.000Z");

  /** Long 0.1 BTC at 100,000 on GMX (6 USD fee), the mark 100,000 one second before midnight. */
  function longAtMidnight(): Harness {
    const h = new Harness(BEFORE_MIDNIGHT - 60_000).open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    h.now = BEFORE_MIDNIGHT;
    h.price("BTC-USD", "100000");
    return h;
  }

  it("starts the day at the marks in force at the reset: a loss in the first update after it counts in full", () => {
    const h = longAtMidnight();
    h.now = AFTER_MIDNIGHT;
    h.price("BTC-USD", "94000");
    // The day starts at 9,994 (the 100,000 mark), not 9,394 (the new one): 600 lost, over the 500 limit.
    expect(h.lastEvents[0]).toMatchObject({ type: "DayStarted", day: "2026-11-26", equity: usd("9994") });
    expect(levels(h)).toEqual([
      "daily_loss_limit:info",
      "daily_loss_limit:warning",
      "daily_loss_limit:critical",
      "drawdown_gate:info",
    ]);
    expect(h.account.state).toBe("TERMINATED");
    expect(violations(h.account).data).toEqual([
      expect.objectContaining({ rule: "daily_loss_limit", threshold: 500, value: 600 }),
    ]);
    expect(replay(h.journal)).toEqual(h.account);
  });

  it("counts a price stamped exactly 00:00:00.000 as the new day's first, not the reset's mark", () => {
    const h = longAtMidnight();
    h.now = Date.parse("2026-11-26T00:00:00.000Z");
    h.price("BTC-USD", "94000");
    expect(h.lastEvents[0]).toMatchObject({ type: "DayStarted", day: "2026-11-26", equity: usd("9994") });
    expect(h.account.state).toBe("TERMINATED");
  });

  it("judges a loss made before the reset against the day that ended, though no decision saw it then", () => {
    const h = longAtMidnight();
    // The mark falls to 95,000 before midnight, and the account is not decided at that update (say its commit
    // failed); the next decision comes after midnight, at the same marks.
    h.quote("BTC-USD", "95000");
    h.now = AFTER_MIDNIGHT;
    h.run({ type: "MarketUpdate" });
    // 10,000 − 6 − 500 = 9,494: the old day's 500 loss, critical, and the account ends on that day's limit.
    expect(levels(h)).toEqual([
      "daily_loss_limit:info",
      "daily_loss_limit:warning",
      "daily_loss_limit:critical",
      "drawdown_gate:info",
    ]);
    expect(h.account.state).toBe("TERMINATED");
    expect(h.account.day).toBe("2026-11-25");
    expect(violations(h.account).data).toEqual([
      expect.objectContaining({ rule: "daily_loss_limit", threshold: 500, value: 506 }),
    ]);
  });

  it("starts the day at the reset's marks when an order, not a price, is the first decision after it", () => {
    const h = longAtMidnight();
    h.now = AFTER_MIDNIGHT;
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "90000" });
    expect(h.account.day_start_equity).toBe(usd("9994"));
  });
});

describe("trailing drawdown", () => {
  it("trails the high-water mark by the plan's share of the starting balance, and terminates at that floor", () => {
    // 200K trailing, 5%: allowance 10,000 whatever the profit; daily limit 6,000. Long 1 BTC at 100,000: 60 fee.
    const h = new Harness().open(PLAN.c200k);
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "1" });
    h.price("BTC-USD", "105000");
    expect(h.account.high_water_mark).toBe(usd("204940"));
    h.price("BTC-USD", "103000");
    expect(h.account.high_water_mark).toBe(usd("204940"));
    // Floor 204,940 − 10,000 = 194,940 (not 204,940 × 0.95 = 194,693): equity 199,940 + (P − 100,000) reaches
    // it at 95,000.
    h.price("BTC-USD", "95000.1");
    expect(h.account.state).toBe("ACTIVE");
    h.price("BTC-USD", "95000");
    expect(h.account.state).toBe("TERMINATED");
    expect(violations(h.account).data[0]).toMatchObject({ rule: "drawdown_gate", threshold: 10000, value: 10000 });
    expect(h.account.high_water_mark).toBe(usd("204940"));
  });

  it("stops trailing once the floor reaches the starting balance, and terminates there", () => {
    // 50K trailing, 6%: allowance 3,000, daily limit 2,000. Long 1 BTC at 100,000 on GMX: 60 fee.
    const h = new Harness().open("33aa1931-7dae-48e8-a43d-6edd7cc47131");
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "1" });
    // Equity 49,940 + (P − 100,000): a high of 59,940 at 110,000. The floor is 50,000, not 59,940 − 3,000.
    h.price("BTC-USD", "110000");
    expect(h.account.high_water_mark).toBe(usd("59940"));
    // Equity 55,940: 4,000 under the high (past a 3,000 allowance from the high, or 6% of it, 3,596.40), but
    // above the floor and no loss on the day (it started at 50,000): nothing recorded.
    h.price("BTC-USD", "106000");
    expect(h.account.state).toBe("ACTIVE");
    expect(levels(h)).toEqual([]);
    // The gate reads the same floor: an order adding exposure passes every check.
    const tested = h.test({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" });
    expect(tested.kind === "tested" && tested.violations).toEqual([]);
    // Equity reaches the floor, 50,000, at 100,060.
    h.price("BTC-USD", "100060.1");
    expect(h.account.state).toBe("ACTIVE");
    h.price("BTC-USD", "100060");
    expect(h.account.state).toBe("TERMINATED");
    expect(violations(h.account).data[0]).toMatchObject({ rule: "drawdown_gate", threshold: 3000, value: 3000 });
  });
});

describe("profit target", () => {
  it("is not reached by open profit: a spike far past the target leaves the account ACTIVE", () => {
    const { h } = longTenK();
    // Equity 9,994 + 0.1 × 20,000 = 11,994, the target 11,000: open profit only.
    h.price("BTC-USD", "120000");
    expect(h.account.state).toBe("ACTIVE");
    expect(h.lastEvents.some((e) => e.type === "AccountPassed")).toBe(false);
    // The spike fades: the account is judged on what it realizes.
    h.price("BTC-USD", "100000");
    expect(h.account.state).toBe("ACTIVE");
  });

  it("passes on the balance once flat: a partial close at a profit does not, the close of the rest does", () => {
    const { h } = longTenK();
    h.price("BTC-USD", "120000");
    // Half closed: balance 9,994 + 1,000 − 3.60 fee = 10,990.40, a position still open.
    h.close({ symbol: "BTC-USD", quantity: "0.05" });
    expect(h.account.state).toBe("ACTIVE");
    // The rest: balance 10,990.40 + 1,000 − 3.60 = 11,986.80 ≥ 11,000, flat.
    h.close({ symbol: "BTC-USD" });
    expect(h.balance).toBe(usd("11986.8"));
    expect(h.account.state).toBe("PASSED");
    expect(h.account.passed_at).toBe(h.now);
    expect(h.lastEvents.filter((e) => e.type === "AccountPassed")).toHaveLength(1);
    // Trading goes on, and passing is recorded once.
    expect(h.place({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.05" }).kind).toBe("created");
    h.close({ symbol: "BTC-USD" });
    expect(h.lastEvents.some((e) => e.type === "AccountPassed")).toBe(false);
  });

  it("needs the balance at the target after the closing fee: a tick short does not pass, at it does", () => {
    const closedAt = (price: string): Harness => {
      const h = new Harness().open(PLAN.c10k);
      h.quote("BTC-USD", "100000");
      h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
      h.price("BTC-USD", price);
      h.close({ symbol: "BTC-USD" });
      return h;
    };
    // Balance 9,994 + 0.1 × (P − 100,000) − 0.0006 × 0.1 × P.
    const short = closedAt("110126");
    expect(short.balance).toBe(usd("10999.99244"));
    expect(short.account.state).toBe("ACTIVE");
    const reached = closedAt("110126.1");
    expect(reached.balance).toBe(usd("11000.002434"));
    expect(reached.account.state).toBe("PASSED");
  });
});

describe("funding", () => {
  it("charges the larger side in crypto, rollover on both sides elsewhere, and reconciles with the balance", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { index: "99000" });
    h.quote("EUR-USD", "1");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" }); // pays: mark above index
    h.placed({ symbol: "EUR-USD", side: "SELL", kind: "MARKET", quantity: 10_000, venue: "OSTIUM" }); // rollover
    const start = h.balance;
    for (let i = 0; i < 3; i++) h.funding(RATES);
    // BTC: 10,000 × 0.01% = 1.00 paid per interval; EUR: 10,000 × 0.005% = 0.50 paid per interval.
    const report = fundingReport(h.account);
    expect(report.data).toHaveLength(6);
    expect(report.data[0]).toMatchObject({ symbol: "BTC-USD", asset_class: "crypto", rate: -0.0001, amount: -1 });
    expect(report.by_asset_class).toEqual([
      { asset_class: "crypto", received: 0, paid: 3, net: -3 },
      { asset_class: "forex", received: 0, paid: 1.5, net: -1.5 },
    ]);
    expect(h.balance).toBe(start - usd("4.5"));

    // The mark below the index turns it round: the long receives.
    h.quote("BTC-USD", "100000", { index: "101000" });
    h.funding(RATES);
    expect(fundingReport(h.account).data.find((r) => r.amount > 0)).toMatchObject({ amount: 1, rate: 0.0001 });
    // Equal mark and index: nothing for crypto.
    h.quote("BTC-USD", "100000");
    expect(h.funding(RATES).filter((e) => e.type === "FundingPaid")).toHaveLength(1);

    // Closed, the position carries its funding into the history row, and the balance reconciles.
    h.close({ symbol: "BTC-USD" });
    const row = positionHistory(h.account, h.market, { from: null, to: null, limit: 10 }).data[0];
    expect(row?.funding).toBe(-2);
    let realized = 0;
    let fees = 0;
    for (const fill of h.account.fills) {
      realized += fill.realized_pnl;
      fees += fill.fee;
    }
    const funding = h.account.funding.reduce((sum, p) => sum + p.amount, 0);
    expect(h.balance).toBe(usd("10000") + realized - fees + funding);
  });
});

describe("rollover and market hours", () => {
  it("charges rollover only at boundaries its market is open at: 15 a week for forex, 21 for crypto funding", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { index: "99000" });
    h.quote("EUR-USD", "1");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    h.placed({ symbol: "EUR-USD", side: "SELL", kind: "MARKET", quantity: 10_000, venue: "OSTIUM" });
    // Every 8-hour boundary of one week, from Wednesday 16:00 on.
    const first = nextFundingAt(h.now, 8 * 3_600_000);
    for (let i = 0; i < 21; i++) {
      h.now = first + i * 8 * 3_600_000;
      h.funding(RATES, h.now);
    }
    const paid = fundingReport(h.account).data;
    const forex = paid.filter((p) => p.symbol === "EUR-USD").map((p) => p.paid_at);
    expect(paid.filter((p) => p.symbol === "BTC-USD")).toHaveLength(21);
    expect(forex).toHaveLength(15);
    // Forex trades Sunday 22:00 to Friday 22:00: Friday 16:00 is charged, Saturday 00:00 to Sunday 16:00 not,
    // Monday 00:00 is.
    expect(forex).toContain("2026-11-27T16:00:00.000Z");
    for (const closed of ["2026-11-28T00:00", "2026-11-28T08:00", "2026-11-28T16:00", "2026-11-29T00:00"]) {
      expect(forex).not.toContain(`${closed}:00.000Z`);
    }
    expect(forex).not.toContain("2026-11-29T16:00:00.000Z");
    expect(forex).toContain("2026-11-30T00:00:00.000Z");
  });

  it("reads the market hours at the boundary, not when a retried tick runs", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("EUR-USD", "1");
    h.placed({ symbol: "EUR-USD", side: "SELL", kind: "MARKET", quantity: 10_000, venue: "OSTIUM" });
    // Friday 16:00 (open), retried at 22:00:05 (closed): charged. Saturday 00:00's boundary retried on
    // Monday: not charged.
    const friday = Date.parse("2026-11-27T16:00:00.000Z");
    h.now = Date.parse("2026-11-27T22:00:05.000Z");
    h.funding(RATES, friday);
    expect(fundingReport(h.account).data).toHaveLength(1);
    h.now = Date.parse("2026-11-30T01:00:00.000Z");
    h.funding(RATES, Date.parse("2026-11-28T00:00:00.000Z"));
    expect(fundingReport(h.account).data).toHaveLength(1);
  });
});

describe("funding boundaries", () => {
  it("pays each boundary once: a retried tick pays nothing more, and a position opened after it is not charged", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "101000", { index: "100000" });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    const boundary = h.now + 1_000;
    h.now = boundary + 5;
    const start = h.balance;
    expect(h.funding(RATES, boundary).filter((e) => e.type === "FundingPaid")).toHaveLength(1);
    expect(h.account.funded_through).toBe(boundary);
    const paid = h.balance;
    expect(paid).toBeLessThan(start);
    // The same boundary again (the tick failed on another shard and is tried again): nothing.
    h.now += 5_000;
    expect(h.funding(RATES, boundary).filter((e) => e.type === "FundingPaid")).toHaveLength(0);
    expect(h.balance).toBe(paid);
    // The next boundary pays again; a position opened after that boundary is not charged for it.
    const next = h.now + 1_000;
    h.now = next + 1;
    h.quote("ETH-USD", "2510", { index: "2500" });
    h.placed({ symbol: "ETH-USD", side: "BUY", kind: "MARKET", quantity: "1" });
    const events = h.funding(RATES, next).filter((e) => e.type === "FundingPaid");
    expect(events.map((e) => (e.type === "FundingPaid" ? e.payment.symbol : ""))).toEqual(["BTC-USD"]);
    expect(h.account.funded_through).toBe(next);
  });

  it("a boundary survives replay: the rebuilt account still refuses to be paid twice", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "101000", { index: "100000" });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    const boundary = h.now + 1_000;
    h.now = boundary;
    h.funding(RATES, boundary);
    h.now += 1;
    expect(replay(h.journal).funded_through).toBe(boundary);
  });
});

describe("analytics", () => {
  it("win rate, R multiples from the first stop-loss or 1% of the start, profit factor and exposure", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    h.quote("ETH-USD", "2500");
    expect(analytics(h.account, h.market)).toEqual({
      win_rate: null,
      avg_r_multiple: null,
      profit_factor: null,
      closed_positions: 0,
      exposure: [],
    });
    // A win with a stop-loss at 99,000: risk 100, realized 200 → R 2 (net 200 − 6 − 6.12 = 187.88).
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.1",
      trigger_price: "99000",
      reduce_only: true,
    });
    h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.1",
      trigger_price: "98000",
      reduce_only: true,
    });
    h.quote("BTC-USD", "102000");
    h.close({ symbol: "BTC-USD" });
    // A loss without one: realized −100 over 1% of 10,000 → R −1 (net −100 − 6 − 5.94 = −111.94).
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    h.quote("BTC-USD", "99000");
    h.close({ symbol: "BTC-USD" });
    // Open: 1 ETH on OSTIUM at 2,500.
    h.placed({ symbol: "ETH-USD", side: "BUY", kind: "MARKET", quantity: "1", venue: "OSTIUM" });

    const history = positionHistory(h.account, h.market, { from: null, to: null, limit: 10 }).data;
    expect(history.map((r) => r.r_multiple)).toEqual([2, -1]);
    expect(analytics(h.account, h.market)).toEqual({
      win_rate: 0.5,
      avg_r_multiple: 0.5,
      profit_factor: Math.round((187.88 / 111.94) * 10_000) / 10_000,
      closed_positions: 2,
      exposure: [{ asset_class: "crypto", venue: "OSTIUM", notional: 2500 }],
    });
  });
});

describe("order test and headroom", () => {
  it("answers the checks and the headroom without placing anything or spending the client_id", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    const before = h.account.seq;
    const tested = h.test({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1", client_id: "t-1" });
    expect(tested).toEqual({
      kind: "tested",
      violations: [],
      // 0.1 BTC at 100,000: 6 USD fee; 10,000 of the 25,000 symbol cap and 50,000 total cap.
      risk_headroom: {
        daily_loss_remaining: 494,
        drawdown_remaining: 994,
        symbol_exposure_remaining: 15000,
        total_exposure_remaining: 40000,
      },
    });
    expect(h.lastEvents).toEqual([]);
    expect(h.account.seq).toBe(before);
    const refused = h.test({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.3" });
    expect(refused.kind === "tested" && refused.violations[0]?.rule).toBe("exposure_cap");
    // The client_id was not spent: the real order with it is new.
    const placed = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1", client_id: "t-1" });
    expect(placed.kind).toBe("created");
    expect(placed.risk_headroom).toEqual(tested.kind === "tested" ? tested.risk_headroom : undefined);
  });
});

describe("termination details and funding times", () => {
  it("cancels a parent's HELD children as the risk system, not as a consequence of the parent", () => {
    const { h } = longTenK();
    const parent = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "85000" });
    const child = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "80000",
      parent_order_id: parent.order.order_id,
    });
    expect(child.order.status).toBe("HELD");
    h.price("BTC-USD", "95060");
    expect(h.account.state).toBe("TERMINATED");
    expect(h.account.orders.get(child.order.order_id)?.reason).toBe("risk");
    expect(h.account.orders.get(parent.order.order_id)?.reason).toBe("risk");
  });

  it("pays funding at fixed UTC times: multiples of the interval since the epoch", () => {
    const eightHours = 8 * 3_600_000;
    expect(nextFundingAt(Date.parse("2026-11-25T07:59:59.999Z"), eightHours)).toBe(Date.parse("2026-11-25T08:00:00Z"));
    expect(nextFundingAt(Date.parse("2026-11-25T08:00:00.000Z"), eightHours)).toBe(Date.parse("2026-11-25T16:00:00Z"));
    expect(nextFundingAt(Date.parse("2026-11-25T23:30:00.000Z"), eightHours)).toBe(Date.parse("2026-11-26T00:00:00Z"));
  });
});
