import { describe, expect, it } from "vitest";
import { usdToUnits } from "../market/units.js";
import { dailyLoss, drawdownUsed, levelsReached, limitsOf, percentOf, type LimitBasis } from "./limits.js";

const usd = (value: number): number => Math.round(value * 100_000_000);

function basis(patch: Partial<LimitBasis> & { mode?: "static" | "trailing" } = {}): LimitBasis {
  return {
    plan: {
      drawdown_mode: patch.mode ?? "static",
      max_drawdown_pct: 10,
      daily_loss_pct: 5,
      profit_target_pct: 8,
    },
    starting_balance: usdToUnits(10_000),
    high_water_mark: patch.high_water_mark ?? usdToUnits(10_000),
    day_start_equity: patch.day_start_equity ?? usdToUnits(10_000),
  };
}

describe("percentOf", () => {
  it.each([
    [10_000, 10, 1_000],
    [10_000, 5, 500],
    [10_000, 2.5, 250],
    [10_000, 0.0001, 0.01],
    [12_345.67, 10, 1_234.567],
  ])("%f × %f%% = %f", (amount, pct, expected) => {
    expect(percentOf(usd(amount), pct)).toBe(usd(expected));
  });

  it("rounds half away from zero to the unit", () => {
    expect(percentOf(5, 10)).toBe(1); // 0.5 → 1
    expect(percentOf(4, 10)).toBe(0); // 0.4 → 0
  });
});

describe("limits", () => {
  it("static: floor from the starting balance, whatever the high-water mark", () => {
    const limits = limitsOf(basis({ high_water_mark: usd(12_000) }));
    expect(limits.drawdownReference).toBe(usd(10_000));
    expect(limits.drawdownFloor).toBe(usd(9_000));
    expect(limits.dailyLimit).toBe(usd(500));
    expect(limits.profitTarget).toBe(usd(10_800));
  });

  it("trailing: the allowance is the plan's share of the starting balance, whatever the high-water mark", () => {
    const limits = limitsOf(basis({ mode: "trailing", high_water_mark: usd(10_400) }));
    expect(limits.drawdownReference).toBe(usd(10_400));
    expect(limits.drawdownAllowance).toBe(usd(1_000));
    expect(limits.drawdownFloor).toBe(usd(9_400));
    // The daily limit stays a share of the starting balance.
    expect(limits.dailyLimit).toBe(usd(500));
  });

  it("trailing: the floor stops trailing once it reaches the starting balance", () => {
    // At a high-water mark of 11,000 the floor reaches 10,000 and stays there however far the mark rises.
    for (const high of [11_000, 11_000.00000001, 12_000, 50_000]) {
      const limits = limitsOf(basis({ mode: "trailing", high_water_mark: usd(high) }));
      expect(limits.drawdownAllowance).toBe(usd(1_000));
      expect(limits.drawdownFloor).toBe(usd(10_000));
      expect(limits.drawdownReference).toBe(usd(11_000));
    }
    // One unit before, it still trails.
    expect(limitsOf(basis({ mode: "trailing", high_water_mark: usd(11_000) - 1 })).drawdownFloor).toBe(usd(10_000) - 1);
  });

  it("daily loss counts only a loss, and drawdown only equity below the reference", () => {
    const b = basis({ day_start_equity: usd(10_200) });
    expect(dailyLoss(b, usd(10_300))).toBe(0);
    expect(dailyLoss(b, usd(10_200))).toBe(0);
    expect(dailyLoss(b, usd(9_900.5))).toBe(usd(299.5));
    const limits = limitsOf(b);
    expect(drawdownUsed(limits, usd(10_500))).toBe(0);
    expect(drawdownUsed(limits, usd(9_400))).toBe(usd(600));
  });
});

describe("breach levels at, just under and just over each threshold", () => {
  const limit = usd(500);
  it.each([
    ["nothing used", 0, 0],
    ["one unit under 50%", usd(250) - 1, 0],
    ["exactly 50%", usd(250), 1],
    ["one unit over 50%", usd(250) + 1, 1],
    ["one unit under 80%", usd(400) - 1, 1],
    ["exactly 80%", usd(400), 2],
    ["one unit under 100%", limit - 1, 2],
    ["exactly 100%", limit, 3],
    ["over 100%", limit + usd(1_000), 3],
  ])("%s", (_name, used, levels) => {
    expect(levelsReached(used, limit)).toBe(levels);
  });

  it("a zero limit is reached by any use", () => {
    expect(levelsReached(0, 0)).toBe(3);
  });
});

describe("percentOf without BigInt", () => {
  it("agrees with exact BigInt arithmetic, rounding half away from zero", () => {
    const exact = (units: bigint, ppm: bigint): bigint => {
      const negative = units < 0n;
      const m = negative ? -units : units;
      let q = (m * ppm) / 1_000_000n;
      if (((m * ppm) % 1_000_000n) * 2n >= 1_000_000n) q += 1n;
      return negative ? -q : q;
    };
    const cases: [number, number][] = [
      [20_000_000_000_000, 5],
      [20_000_000_000_001, 3.0001],
      [999_999, 50],
      [1_500_000, 33.3333],
      [-20_000_000_000_123, 10],
      [123_456_789_012_345, 0.0001],
      [5, 10],
    ];
    for (const [units, pct] of cases) {
      expect(percentOf(units, pct)).toBe(Number(exact(BigInt(units), BigInt(Math.round(pct * 10_000)))));
    }
  });
});

describe("limitsOf handing out the last limits again", () => {
  it("answers the same frozen limits for the same plan, starting balance and high-water mark, fresh ones otherwise", () => {
    const plan = Object.freeze(basis({ mode: "trailing" }).plan);
    const at = (patch: Partial<LimitBasis>): LimitBasis => ({ ...basis(), plan, ...patch });
    const first = limitsOf(at({}));
    expect(Object.isFrozen(first)).toBe(true);
    // The day's start does not enter the limits: the same object.
    expect(limitsOf(at({ day_start_equity: usd(9_000) }))).toBe(first);
    const raised = limitsOf(at({ high_water_mark: usd(10_500) }));
    expect(raised).not.toBe(first);
    expect(raised).toEqual(limitsOf(basis({ mode: "trailing", high_water_mark: usd(10_500) })));
    expect(raised.drawdownFloor).toBe(first.drawdownFloor + usd(500));
    // Each of the three keys alone differs from the last call's: fresh limits every time.
    expect(limitsOf(at({}))).toEqual(first);
    const tighter = { ...plan, max_drawdown_pct: 4, daily_loss_pct: 2 };
    expect(limitsOf(at({ plan: tighter }))).toMatchObject({ drawdownAllowance: usd(400), dailyLimit: usd(200) });
    expect(limitsOf(at({}))).toEqual(first);
    expect(limitsOf(at({ starting_balance: usdToUnits(20_000) })).dailyLimit).toBe(usd(1_000));
    expect(limitsOf(at({}))).toEqual(first);
    expect(limitsOf(at({ high_water_mark: usd(10_500) }))).toEqual(raised);
  });
});
