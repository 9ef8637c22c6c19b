// The quiet band must never call an update quiet that the full check would not: random accounts (one or
// two symbols, positions, resting limits, stops, breaches already recorded), random marks.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { quietUpdate } from "../core.js";
import { Harness, PLAN } from "../core.testing.js";
import { quietBand } from "./quiet-band.js";

type Op =
  | { t: "market"; symbol: "BTC-USD" | "ETH-USD"; side: "BUY" | "SELL"; qty: number }
  | { t: "limit"; side: "BUY" | "SELL"; offset: number }
  | { t: "stop"; side: "BUY" | "SELL"; offset: number }
  | { t: "move"; mark: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    t: fc.constant("market" as const),
    symbol: fc.constantFrom("BTC-USD" as const, "BTC-USD" as const, "ETH-USD" as const),
    side: fc.constantFrom("BUY" as const, "SELL" as const),
    qty: fc.integer({ min: 1, max: 80 }),
  }),
  fc.record({
    t: fc.constant("limit" as const),
    side: fc.constantFrom("BUY" as const, "SELL" as const),
    offset: fc.integer({ min: 1, max: 5_000 }),
  }),
  fc.record({
    t: fc.constant("stop" as const),
    side: fc.constantFrom("BUY" as const, "SELL" as const),
    offset: fc.integer({ min: 1, max: 5_000 }),
  }),
  fc.record({ t: fc.constant("move" as const), mark: fc.integer({ min: 90_000, max: 110_000 }) }),
);

function build(plan: string, ops: readonly Op[]): Harness {
  const h = new Harness().open(plan);
  h.quote("BTC-USD", "100000");
  h.quote("ETH-USD", "2500");
  let mark = 100_000;
  for (const o of ops) {
    if (h.account.state === "TERMINATED") break;
    if (o.t === "move") {
      mark = o.mark;
      h.price("BTC-USD", String(mark));
    } else if (o.t === "market") {
      const quantity = o.symbol === "BTC-USD" ? (o.qty / 1000).toFixed(3) : (o.qty / 10).toFixed(1);
      h.place({ symbol: o.symbol, side: o.side, kind: "MARKET", quantity });
    } else if (o.t === "limit") {
      const price = o.side === "BUY" ? mark - o.offset : mark + o.offset;
      h.place({ symbol: "BTC-USD", side: o.side, kind: "LIMIT", quantity: "0.001", limit_price: String(price) });
    } else {
      const price = o.side === "BUY" ? mark + o.offset : mark - o.offset;
      h.place({ symbol: "BTC-USD", side: o.side, kind: "STOP", quantity: "0.001", trigger_price: String(price) });
    }
  }
  return h;
}

describe("quiet band", () => {
  it("is sound: inside the band the full check finds nothing to do either", () => {
    let banded = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(PLAN.c10k, PLAN.c200k),
        fc.array(op, { maxLength: 25 }),
        fc.array(fc.integer({ min: 85_000, max: 115_000 }), { minLength: 1, maxLength: 20 }),
        (plan, ops, marks) => {
          const h = build(plan, ops);
          const state = h.account;
          const band = quietBand(state, h.market);
          if (band === undefined) return;
          banded++;
          const symbols = new Set(["BTC-USD"]);
          for (const mark of marks) {
            h.quote("BTC-USD", String(mark)); // whole dollars: mark × 10 ticks of 0.1
            const ctx = { now: h.now, market: h.market, nextId: h.nextId, calendar: [] };
            const inBand =
              band.symbol === "" ||
              (band.symbol !== "BTC-USD" ? true : mark * 10 >= band.low && mark * 10 <= band.high);
            if (inBand && h.now < band.until) expect(quietUpdate(state, symbols, ctx, false)).toBe(true);
          }
        },
      ),
      { numRuns: 400, seed: 20261122 },
    );
    expect(banded).toBeGreaterThan(100);
  });

  it("is tight for a single position: one tick past either edge the full check has work", () => {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    const band = quietBand(h.account, h.market);
    if (band === undefined) throw new Error("expected a band");
    // Below: the day's 50% (250 USD, reached at 97,560). Above: a new high-water mark past 100,060.
    expect(band).toMatchObject({ symbol: "BTC-USD", low: 975_601, high: 1_000_600 });
    const check = (mark: number) => {
      const quote = h.market.quotes.get("BTC-USD");
      if (quote === undefined) throw new Error("no quote");
      quote.mark = mark;
      return quietUpdate(h.account, new Set(["BTC-USD"]), { now: h.now, market: h.market, nextId: h.nextId }, false);
    };
    expect([check(band.low - 1), check(band.low), check(band.high), check(band.high + 1)]).toEqual([
      false,
      true,
      true,
      false,
    ]);
  });

  it("has none from a mark outside it: a day starting past a level is not quiet on another symbol's update", () => {
    // 10K static: long 0.1 BTC at 100,000 (6 USD fee); day 1 ends 306 down, day 2 at 94,500 (556 down: the
    // drawdown's 50%, 500 of 1,000, recorded). Day 3 starts on an order (no monitor), which clears the levels.
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    h.price("BTC-USD", "97000");
    h.now += 86_400_000;
    h.price("BTC-USD", "94500");
    h.now += 86_400_000;
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "50000" });
    expect(h.account.drawdown_levels).toBe(0);
    expect(quietBand(h.account, h.market)).toBeUndefined();
    // The first update after that, of another symbol: the day's drawdown level is due at once.
    h.price("ETH-USD", "2500");
    const recorded = h.lastEvents.map((e) =>
      e.type === "BreachRecorded" ? `${e.breach.rule}:${e.breach.severity}` : e.type,
    );
    expect(recorded).toEqual(["drawdown_gate:info"]);
  });
});
