// The pre-trade pipeline (docs/engine.md, placement rule 5): an ordered array of checks, first denial wins.
// Exposure rules are wrapped so reduce-only orders skip them. Issue 4 inserts drawdown_gate,
// daily_loss_limit, news_freeze and exposure_cap before insufficient_margin, one line each.
import {
  accountTerminated,
  exposureRule,
  insufficientMargin,
  marketClosed,
  venueNotAllowed,
  type RiskCheck,
  type RiskInput,
} from "./checks.js";
import type { Violation } from "./types.js";

export const PRE_TRADE_CHECKS: readonly RiskCheck[] = [
  accountTerminated,
  venueNotAllowed,
  marketClosed,
  exposureRule(insufficientMargin),
];

/** The first violation of the pipeline, or undefined when the order passes. */
export function firstViolation(
  input: RiskInput,
  checks: readonly RiskCheck[] = PRE_TRADE_CHECKS,
): Violation | undefined {
  for (const check of checks) {
    const violation = check(input);
    if (violation !== undefined) return violation;
  }
  return undefined;
}
