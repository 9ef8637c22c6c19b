// A position that stays open while it is traded in and out keeps lifetime totals for its history row
// (Position.opened_notional / closed_notional). Past 2^53 money units of turnover (≈ 90M USD) such totals leave
// the safe integers; were they numbers, every fill on the position would throw inside `apply` and it could not be
// reduced, closed, or closed by the risk system. They are BigInt, and the history row's average prices stay exact.
import { describe, expect, it } from "vitest";
import { positionHistory } from "../accounts/queries.js";
import { Harness, PLAN } from "../core.testing.js";

function attempt(run: () => unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}

describe("lifetime totals of a long-lived position", () => {
  it("keeps trading and closing a position after ~90M USD of turnover on it", () => {
    const h = new Harness().open(PLAN.c200k, "OSTIUM");
    const depth = { depth: 10_000_000 };
    // A residual long of 1,000 EUR stays open throughout.
    h.quote("EUR-USD", "1", depth);
    h.placed({ symbol: "EUR-USD", side: "BUY", kind: "MARKET", quantity: "1000" });
    // Round trips of 399,000 EUR (the 200K plan's symbol cap is 400,000 USD), each sold 1% higher: profitable, so
    // no loss rule is ever near (the account passes its target and trading goes on).
    let failure: { round: number; error: string } | undefined;
    for (let round = 0; round < 240 && failure === undefined; round++) {
      h.quote("EUR-USD", "1", depth);
      const up = attempt(() => h.place({ symbol: "EUR-USD", side: "BUY", kind: "MARKET", quantity: "399000" }));
      if (!up.ok) failure = { round, error: up.error };
      else expect(up.value).toMatchObject({ kind: "created", order: { status: "FILLED" } });
      if (failure !== undefined) break;
      h.quote("EUR-USD", "1.01", depth);
      const down = attempt(() => h.place({ symbol: "EUR-USD", side: "SELL", kind: "MARKET", quantity: "399000" }));
      if (!down.ok) failure = { round, error: down.error };
      else expect(down.value).toMatchObject({ kind: "created", order: { status: "FILLED" } });
    }
    const close = attempt(() => h.close({ symbol: "EUR-USD" }));
    // Expected: every order above was decided, and the position can still be closed.
    expect({ failure, close: close.ok ? "ok" : close.error }).toEqual({ failure: undefined, close: "ok" });
    // 1,000 + 240 × 399,000 EUR bought at 1 and sold at 1.01: the row's averages, exact past 2^53 units.
    const row = positionHistory(h.account, h.market, { from: null, to: null, limit: 10 }).data[0];
    expect(row).toMatchObject({ symbol: "EUR-USD", quantity: 1_000 + 240 * 399_000, entry_price: 1, exit_price: 1.01 });
  });
});
