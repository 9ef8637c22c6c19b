// The plan's loss limits as numbers (docs/risk.md, "The numbers every rule reads"): drawdown floor and
// allowance, daily loss and limit, profit target, breach levels and headroom. Pure integer arithmetic on
// 1e-8 USD units, shared by the pre-trade checks, the monitoring and the read models.
import type { Plan } from "../basics/plans.js";
import { mulDivRound, PPM } from "../market/units.js";

/**
 * `pct` percent of `units`, rounded half away from zero to the unit (`pct` with up to 4 decimals, as plans
 * give them). Computed in two exact halves (whole millions of units, then the rest) instead of one product:
 * balances × ppm pass 2^53 (200,000 USD × 5% is 1e18), and the BigInt path would run on every order.
 */
export function percentOf(units: number, pct: number): number {
  const ppm = Math.round(pct * 10_000);
  const negative = units < 0;
  const magnitude = negative ? -units : units;
  const millions = Math.floor(magnitude / PPM);
  const rest = magnitude - millions * PPM;
  const product = millions * ppm;
  const result = Number.isSafeInteger(product)
    ? product + mulDivRound(rest, ppm, PPM)
    : mulDivRound(magnitude, ppm, PPM);
  return negative ? -result : result;
}

/** What the limits are computed from (a subset of the account state). */
export interface LimitBasis {
  readonly plan: Pick<Plan, "drawdown_mode" | "max_drawdown_pct" | "daily_loss_pct" | "profit_target_pct">;
  readonly starting_balance: number;
  readonly high_water_mark: number;
  readonly day_start_equity: number;
}

export interface Limits {
  /**
   * What the drawdown is measured from: the starting balance (static), or the high-water mark capped at
   * starting balance + allowance (trailing: the floor trails the high-water mark until it reaches the starting
   * balance, then stays there).
   */
  readonly drawdownReference: number;
  /** How far equity may fall below the reference: pct(starting_balance, max_drawdown_pct), fixed. */
  readonly drawdownAllowance: number;
  /** reference − allowance: equity below it fails the drawdown rule. */
  readonly drawdownFloor: number;
  /** pct(starting_balance, daily_loss_pct). */
  readonly dailyLimit: number;
  /** Equity at which the account passes. */
  readonly profitTarget: number;
}

/**
 * The last limits computed, and what they were computed from. A decision reads the limits of one account
 * several times (the checks, the monitor, the answer's headroom) and they change only with the high-water
 * mark: the same plan object (plans are interned and frozen, basics/account-state.ts), starting balance and
 * high-water mark give the same limits, so the last ones are handed out again.
 */
let lastPlan: LimitBasis["plan"] | undefined;
let lastStartingBalance = 0;
let lastHighWaterMark = 0;
let lastLimits: Limits | undefined;

export function limitsOf(basis: LimitBasis): Limits {
  if (
    lastLimits !== undefined &&
    basis.plan === lastPlan &&
    basis.starting_balance === lastStartingBalance &&
    basis.high_water_mark === lastHighWaterMark
  ) {
    return lastLimits;
  }
  const limits = computeLimits(basis);
  lastPlan = basis.plan;
  lastStartingBalance = basis.starting_balance;
  lastHighWaterMark = basis.high_water_mark;
  lastLimits = limits;
  return limits;
}

function computeLimits(basis: LimitBasis): Limits {
  const { plan } = basis;
  const allowance = percentOf(basis.starting_balance, plan.max_drawdown_pct);
  const reference = drawdownReferenceOf(plan.drawdown_mode, basis.starting_balance, basis.high_water_mark, allowance);
  return Object.freeze({
    drawdownReference: reference,
    drawdownAllowance: allowance,
    drawdownFloor: reference - allowance,
    dailyLimit: percentOf(basis.starting_balance, plan.daily_loss_pct),
    profitTarget: basis.starting_balance + percentOf(basis.starting_balance, plan.profit_target_pct),
  });
}

/**
 * The drawdown reference (docs/risk.md, "drawdown_gate"): the starting balance for a static plan; for a trailing
 * one the high-water mark, until the floor it gives (reference − allowance) reaches the starting balance.
 */
export function drawdownReferenceOf(
  mode: Plan["drawdown_mode"],
  startingBalance: number,
  highWaterMark: number,
  allowance: number,
): number {
  if (mode !== "trailing") return startingBalance;
  return Math.min(highWaterMark, startingBalance + allowance);
}

/** The day's loss so far: day start equity above equity, else 0. */
export function dailyLoss(basis: Pick<LimitBasis, "day_start_equity">, equity: number): number {
  return Math.max(0, basis.day_start_equity - equity);
}

/** How much of the drawdown allowance is used: reference above equity, else 0. */
export function drawdownUsed(limits: Limits, equity: number): number {
  return Math.max(0, limits.drawdownReference - equity);
}

/** Breach levels in order: the share of a limit (in percent) and the severity recorded on reaching it. */
export const BREACH_LEVELS = [
  { percent: 50, severity: "info" },
  { percent: 80, severity: "warning" },
  { percent: 100, severity: "critical" },
] as const;
export type BreachLevel = (typeof BREACH_LEVELS)[number];

/**
 * How many levels `used` of `limit` has reached (0–3): exact integer comparisons, so 50% of a 500 USD limit
 * is reached at 250.00000000 USD and not a unit before. A limit of 0 is reached by any use.
 */
export function levelsReached(used: number, limit: number): number {
  let reached = 0;
  for (const level of BREACH_LEVELS) {
    // used / limit ≥ percent / 100, without division (both sides stay below 2^53 for any real account).
    if (used * 100 >= limit * level.percent) reached++;
  }
  return reached;
}
