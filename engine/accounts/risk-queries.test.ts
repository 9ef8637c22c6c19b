// The R multiple of docs/risk.md, "Analytics": "R = realized P&L / initial risk", where the realized P&L is the
// history row's own `realized_pnl` (before fees and funding). Win rate and profit factor stay on the net
// P&L (docs/risk.md, "Analytics"). A 10K static account on GMX: 0.06% fee on open and on close.
import { describe, expect, it } from "vitest";
import { Harness, PLAN } from "../core.testing.js";
import { positionHistory } from "./queries.js";
import { analytics, ratio4, rMultiple } from "./risk-queries.js";

const RATES = { cryptoPpm: 100, rolloverPpm: 50 };
const all = { from: null, to: null, limit: 10 };

/** The worked example of docs/risk.md, "Analytics": a win with a stop-loss, a loss without one. */
function twoTrades(): Harness {
  const h = new Harness().open(PLAN.c10k);
  // Long 0.1 BTC at 100,000 (fee 6), first stop-loss at 99,000: initial risk 0.1 × 1,000 = 100.
  // The mark above the index makes the long pay 10,000 × 0.01% = 1 per funding tick: 2 paid.
  h.quote("BTC-USD", "100000", { index: "99000" });
  h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
  h.placed({
    symbol: "BTC-USD",
    side: "SELL",
    kind: "STOP",
    quantity: "0.1",
    trigger_price: "99000",
    reduce_only: true,
  });
  h.funding(RATES);
  h.funding(RATES);
  // Closed at 102,000 (fee 6.12): realized 200, fees 12.12, funding −2, net 185.88.
  h.quote("BTC-USD", "102000");
  h.close({ symbol: "BTC-USD" });

  // Long 1 ETH at 2,500 (fee 1.5), no stop-loss: initial risk 1% of 10,000 = 100. The mark below the
  // index makes the long receive 2,500 × 0.01% = 0.25. Closed at 2,400 (fee 1.44): realized −100, fees
  // 2.94, funding 0.25, net −102.69.
  h.quote("ETH-USD", "2500", { index: "2510" });
  h.placed({ symbol: "ETH-USD", side: "BUY", kind: "MARKET", quantity: "1" });
  h.funding(RATES);
  h.quote("ETH-USD", "2400");
  h.close({ symbol: "ETH-USD" });
  return h;
}

describe("ratios to 4 decimals", () => {
  it("round exact halves away from zero on both sides, from the integers (no float error)", () => {
    expect(ratio4(3, 20_000)).toBe(0.0002);
    expect(ratio4(-3, 20_000)).toBe(-0.0002);
    expect(ratio4(3, -20_000)).toBe(-0.0002);
    expect(ratio4(1, 3)).toBe(0.3333);
    expect(ratio4(2, 3)).toBe(0.6667);
    expect(ratio4(-2, 3)).toBe(-0.6667);
    expect(ratio4(0, 7)).toBe(0);
    expect(ratio4(Number.MAX_SAFE_INTEGER, 3)).toBe(Number((BigInt(Number.MAX_SAFE_INTEGER) * 10_000n) / 3n) / 10_000);
  });
});

describe("R multiple", () => {
  it("is the row's realized P&L over the initial risk, fees and funding left out", () => {
    const h = twoTrades();
    const rows = positionHistory(h.account, h.market, all).data;
    expect(
      rows.map(({ symbol, realized_pnl, fees, funding, r_multiple }) => [
        symbol,
        realized_pnl,
        fees,
        funding,
        r_multiple,
      ]),
    ).toEqual([
      // Net P&L would give 185.88 / 100 = 1.8588 and −102.69 / 100 = −1.0269.
      ["BTC-USD", 200, 12.12, -2, 2],
      ["ETH-USD", -100, 2.94, 0.25, -1],
    ]);
    for (const row of rows) expect(row.r_multiple).toBe(row.realized_pnl / 100);
    expect(h.account.closed_positions.map((closed) => rMultiple(h.account, h.market, closed))).toEqual([2, -1]);
  });

  it("averages into avg_r_multiple, while win rate and profit factor read the net P&L", () => {
    const h = twoTrades();
    expect(analytics(h.account, h.market)).toEqual({
      win_rate: 0.5,
      // (2 − 1) / 2; net P&L would give (1.8588 − 1.0269) / 2 = 0.41595.
      avg_r_multiple: 0.5,
      // 185.88 / 102.69, on the net P&L as docs/risk.md defines it.
      profit_factor: 1.8101,
      closed_positions: 2,
      exposure: [],
    });
  });

  it("counts a gross win eaten by fees as a positive R but not as a win", () => {
    const h = new Harness().open(PLAN.c10k);
    // Long 0.1 BTC at 100,000, closed at 100,100: realized 10, fees 6 + 6.006 = 12.006, net −2.006.
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    h.quote("BTC-USD", "100100");
    h.close({ symbol: "BTC-USD" });
    const [row] = positionHistory(h.account, h.market, all).data;
    expect(row).toMatchObject({ realized_pnl: 10, fees: 12.006, funding: 0, r_multiple: 0.1 });
    expect(analytics(h.account, h.market)).toMatchObject({ win_rate: 0, avg_r_multiple: 0.1, profit_factor: 0 });
  });
});
