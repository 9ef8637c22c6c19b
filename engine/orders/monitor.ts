// Monitoring after every price update, fill and funding payment (docs/risk.md, "Monitoring, breaches and
// termination"): the day's start, liquidation of positions past their liquidation price, the high-water mark,
// breach levels of the daily loss limit and of the drawdown allowance, termination on a hard rule's 100%, and
// passing at the profit target (flat, on the balance). Emits events only when something changes, so a quiet
// account costs one equity computation.
import { AccountStatus } from "../basics/account-state.js";
import { unitsToDecimalString as usd } from "../market/units.js";
import { closeAtMark } from "./forced-close.js";
import { cancelOrder } from "./lifecycle.js";
import type { Run } from "../basics/run.js";
import { utcDate, utcDayStart } from "../basics/time.js";
import {
  BREACH_LEVELS,
  dailyLoss,
  drawdownReferenceOf,
  drawdownUsed,
  levelsReached,
  limitsOf,
  percentOf,
} from "../risk/limits.js";
import { equityAtReset, marginSnapshot, unrealizedOf } from "../risk/margin.js";
import { liquidate, positionsToLiquidate } from "./liquidation.js";
import type { LimitRule } from "../basics/risk-types.js";

const RULE_NAMES: Record<LimitRule, string> = {
  daily_loss_limit: "daily loss",
  drawdown_gate: "maximum drawdown",
};

/** Records every level of `rule` reached beyond `from` (a jump past several records each). */
function recordLevels(run: Run, rule: LimitRule, from: number, reached: number, used: number, limit: number): void {
  for (let level = from; level < reached; level++) {
    const entry = BREACH_LEVELS[level];
    if (entry === undefined) return;
    const { percent, severity } = entry;
    const threshold = percentOf(limit, percent);
    run.emit({
      type: "BreachRecorded",
      at: run.now,
      breach: {
        breach_id: run.nextId(),
        rule,
        severity,
        threshold,
        value: used,
        message: `${RULE_NAMES[rule]} at ${usd(used)} USD reached ${percent}% of the ${usd(limit)} USD limit`,
        occurred_at: run.now,
      },
    });
  }
}

/** Cancels every working order (risk), closes every position at the mark, then marks the account TERMINATED. */
export function terminate(run: Run, rule: LimitRule, limit: number, value: number): void {
  // Newest first: children (placed after their parents) are canceled by the risk system themselves, not as
  // a consequence of their parent's cancel.
  for (const orderId of [...run.state.working.keys()].reverse()) cancelOrder(run, orderId, "risk");
  for (const position of [...run.state.positions.values()]) closeAtMark(run, position, "termination");
  run.emit({
    type: "AccountTerminated",
    at: run.now,
    violation: {
      violation_id: run.nextId(),
      rule,
      threshold: limit,
      value,
      message: `${RULE_NAMES[rule]} of ${usd(value)} USD reached the ${usd(limit)} USD limit: account terminated`,
      occurred_at: run.now,
    },
  });
}

/**
 * The first decision at or after the daily reset, before anything else of it: the day that ended is judged at
 * the equity of the marks in force at the reset (a loss made before the reset counts against it, even when no
 * decision saw it then), and the new day starts at that equity. A price that arrives with the decision is the
 * new day's. A terminated account starts no day.
 */
export function startDay(run: Run): void {
  if (terminated(run)) return;
  const equity = equityAtReset(run.state, run.market, utcDayStart(run.dayAt));
  judge(run, equity);
  if (terminated(run)) return;
  run.emit({ type: "DayStarted", at: run.now, day: utcDate(run.dayAt), equity });
}

const terminated = (run: Run): boolean => run.state.state === AccountStatus.TERMINATED;

/**
 * Monitors the account as the decision has left it. Returns the equity it judged when it emitted nothing (the
 * state is then exactly the one judged: a caller valuing it again can take that figure), undefined otherwise.
 */
export function monitor(run: Run): number | undefined {
  if (terminated(run)) return undefined;
  const emitted = run.emitted;
  if (run.dayAt >= run.state.next_day_at) startDay(run);
  if (terminated(run)) return undefined;
  // Positions past their liquidation price are closed first; the limits are judged on what is left.
  liquidate(run);
  const equity = marginSnapshot(run.state, run.market).equity;
  judge(run, equity);
  return run.emitted === emitted ? equity : undefined;
}

/** The high-water mark, breach levels, termination and passing at `equity`, against the current day. */
function judge(run: Run, equity: number): void {
  if (terminated(run)) return;
  if (equity > run.state.high_water_mark) run.emit({ type: "HighWaterMarkRaised", at: run.now, value: equity });
  const state = run.state;
  const limits = limitsOf(state);

  const loss = dailyLoss(state, equity);
  const daily = levelsReached(loss, limits.dailyLimit);
  recordLevels(run, "daily_loss_limit", state.daily_levels, daily, loss, limits.dailyLimit);
  const used = drawdownUsed(limits, equity);
  const drawdown = levelsReached(used, limits.drawdownAllowance);
  recordLevels(run, "drawdown_gate", run.state.drawdown_levels, drawdown, used, limits.drawdownAllowance);

  const last = BREACH_LEVELS.length;
  if (drawdown >= last) {
    terminate(run, "drawdown_gate", limits.drawdownAllowance, used);
    return;
  }
  if (daily >= last) {
    terminate(run, "daily_loss_limit", limits.dailyLimit, loss);
    return;
  }
  if (passes(state, limits.profitTarget)) run.emit({ type: "AccountPassed", at: run.now });
}

/**
 * Whether an ACTIVE account passes: flat (no open position), with its balance (realized P&L, fees and funding)
 * at or above the profit target (docs/risk.md, "Passing"). Open profit never passes an account.
 */
function passes(state: Run["state"], profitTarget: number): boolean {
  return state.state === AccountStatus.ACTIVE && state.positions.size === 0 && state.balance >= profitTarget;
}

/**
 * Whether `monitor` would emit anything for this state at these marks (a new high, a breach level, a
 * termination, passing). False lets a price update skip the whole decision for a quiet account.
 */
export function monitorWouldAct(state: Run["state"], market: Run["market"]): boolean {
  if (state.state === AccountStatus.TERMINATED) return false;
  if (positionsToLiquidate(state, market).length > 0) return true;
  const equity = state.balance + unrealizedOf(state, market);
  if (equity > state.high_water_mark) return true;
  const { plan, starting_balance: starting } = state;
  const dailyLimit = percentOf(starting, plan.daily_loss_pct);
  if (levelsReached(Math.max(0, state.day_start_equity - equity), dailyLimit) > state.daily_levels) return true;
  const allowance = percentOf(starting, plan.max_drawdown_pct);
  const reference = drawdownReferenceOf(plan.drawdown_mode, starting, state.high_water_mark, allowance);
  if (levelsReached(Math.max(0, reference - equity), allowance) > state.drawdown_levels) return true;
  return passes(state, starting + percentOf(starting, plan.profit_target_pct));
}
