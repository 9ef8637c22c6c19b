// The challenge plans an account can be opened on, shipped as data (plans.json) and validated once at
// start. A plan fixes the account's starting balance and every risk limit the engine enforces on it;
// `rules_version` names the rule set so a later change to a plan is visible in audits.
import { z } from "zod";
import plansJson from "./plans.json" with { type: "json" };
import { parseShippedTable, refuseRepeats, type ShippedTable } from "../market/shipped-table.js";
import { AssetClass, Venue } from "../market/types.js";

export const DrawdownMode = {
  /** The floor stays at starting balance minus the allowance. */
  static: "static",
  /** The floor follows the equity high-water mark up (never down). */
  trailing: "trailing",
} as const;
export type DrawdownMode = (typeof DrawdownMode)[keyof typeof DrawdownMode];

/** Daily limits reset at midnight UTC. */
export const DAILY_RESET = "00:00Z";

const percent = z.number().positive().max(100);
const wholeDollars = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const leverage = z.number().positive();
const minutes = z
  .number()
  .int()
  .min(0)
  .max(24 * 60);

const maxLeverageSchema = z.strictObject({
  [AssetClass.crypto]: leverage,
  [AssetClass.forex]: leverage,
  [AssetClass.commodities]: leverage,
  [AssetClass.indices]: leverage,
});

const planSchema = z
  .strictObject({
    plan_id: z.uuid(),
    name: z.string().min(1),
    starting_balance: wholeDollars,
    profit_target_pct: percent,
    max_drawdown_pct: percent,
    drawdown_mode: z.enum(DrawdownMode),
    daily_loss_pct: percent,
    daily_reset: z.literal(DAILY_RESET),
    max_leverage: maxLeverageSchema,
    max_symbol_notional: wholeDollars,
    max_total_notional: wholeDollars,
    news_freeze: z.strictObject({ minutes_before: minutes, minutes_after: minutes }),
    allowed_venues: z.array(z.enum(Venue)).min(1),
    rules_version: z.string().regex(/^\d{4}-\d{2}-\d{2}\.\d+$/, "must look like 2026-11-01.1"),
  })
  .superRefine((plan, ctx) => {
    if (plan.max_symbol_notional > plan.max_total_notional) {
      ctx.addIssue({ code: "custom", path: ["max_symbol_notional"], message: "must not exceed max_total_notional" });
    }
    if (plan.daily_loss_pct > plan.max_drawdown_pct) {
      ctx.addIssue({ code: "custom", path: ["daily_loss_pct"], message: "must not exceed max_drawdown_pct" });
    }
    refuseRepeats(ctx, plan.allowed_venues, "allowed_venues", "venue");
  });

/** One challenge plan, field for field as docs/openapi.yaml's `Plan` lists it, `rules_version` included. */
export type Plan = Readonly<z.infer<typeof planSchema>>;

/** The plans in catalogue order, each found by its `plan_id`. */
export type PlanCatalogue = ShippedTable<Plan>;

/** Validates raw plan data; throws an Error listing every problem. */
export function parsePlans(raw: unknown): PlanCatalogue {
  return parseShippedTable(raw, planSchema, "plan_id", "plan catalogue");
}

/** The shipped plans, validated when this module is first imported (at process start). */
export const PLANS: PlanCatalogue = parsePlans(plansJson);
