import { describe, expect, it } from "vitest";
import { DrawdownMode, PLANS, parsePlans, type Plan } from "./plans.js";

const CONTRACT_FIELDS = [
  "plan_id",
  "name",
  "starting_balance",
  "profit_target_pct",
  "max_drawdown_pct",
  "drawdown_mode",
  "daily_loss_pct",
  "daily_reset",
  "max_leverage",
  "max_symbol_notional",
  "max_total_notional",
  "news_freeze",
  "allowed_venues",
  "rules_version",
].sort();

describe("the shipped plans", () => {
  const plans = PLANS.rows;

  it("offer several challenge sizes", () => {
    expect(new Set(plans.map((p) => p.starting_balance)).size).toBeGreaterThanOrEqual(4);
  });

  it("include both static and trailing drawdown", () => {
    expect(new Set(plans.map((p) => p.drawdown_mode))).toEqual(new Set(Object.values(DrawdownMode)));
  });

  it("carry exactly the contract's fields", () => {
    for (const plan of plans) expect(Object.keys(plan).sort()).toEqual(CONTRACT_FIELDS);
  });

  it("have distinct UUID ids that look the same every start", () => {
    const ids = plans.map((p) => p.plan_id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("reset daily limits at midnight UTC", () => {
    expect(plans.every((p) => p.daily_reset === "00:00Z")).toBe(true);
  });

  it("finds a plan by id", () => {
    const first = plans[0];
    expect(first).toBeDefined();
    if (first !== undefined) expect(PLANS.byKey(first.plan_id)).toBe(first);
    expect(PLANS.byKey("00000000-0000-4000-8000-000000000000")).toBeUndefined();
  });
});

describe("plan validation", () => {
  const valid = PLANS.rows[0] as Plan;

  it("accepts a copy of a shipped plan", () => {
    expect(parsePlans([valid]).rows).toEqual([valid]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["a plan_id that is not a UUID", { plan_id: "challenge-50k" }, "plan_id"],
    ["an unknown drawdown mode", { drawdown_mode: "relative" }, "drawdown_mode"],
    ["a zero starting balance", { starting_balance: 0 }, "starting_balance"],
    ["a percent above 100", { profit_target_pct: 150 }, "profit_target_pct"],
    ["another daily reset", { daily_reset: "17:00Z" }, "daily_reset"],
    ["a missing asset class leverage", { max_leverage: { crypto: 2, forex: 30, commodities: 20 } }, "indices"],
    ["a symbol cap above the total cap", { max_symbol_notional: 10_000_000 }, "must not exceed max_total_notional"],
    ["a daily loss above the drawdown", { daily_loss_pct: 50, max_drawdown_pct: 10 }, "daily_loss_pct"],
    ["an unknown venue", { allowed_venues: ["BINANCE"] }, "allowed_venues"],
    ["no venue", { allowed_venues: [] }, "allowed_venues"],
    ["a venue named twice", { allowed_venues: ["GMX", "GMX"] }, "allowed_venues: must not repeat a venue"],
    ["a malformed rules version", { rules_version: "v1" }, "rules_version"],
    ["an unknown field", { currency: "USD" }, "currency"],
  ])("rejects %s", (_label, patch, message) => {
    expect(() => parsePlans([{ ...valid, ...patch }])).toThrow(message);
  });

  it("rejects a duplicate plan_id", () => {
    expect(() => parsePlans([valid, valid])).toThrow("duplicate plan_id");
  });
});
