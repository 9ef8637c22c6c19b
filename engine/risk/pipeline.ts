// The pre-trade pipeline (docs/risk.md, "Pre-trade checks"): an ordered array of checks, first denial wins.
// Exposure rules are wrapped so reduce-only orders (children and closes included) skip them.
import {
  accountTerminated,
  dailyLossLimit,
  drawdownGate,
  exposureCap,
  exposureRule,
  newsFreeze,
  insufficientMargin,
  marketClosed,
  venueNotAllowed,
  type RiskCheck,
  type RiskInput,
} from "./checks.js";
import type { Violation } from "../basics/risk-types.js";

export const PRE_TRADE_CHECKS: readonly RiskCheck[] = [
  accountTerminated,
  venueNotAllowed,
  marketClosed,
  exposureRule(drawdownGate),
  exposureRule(dailyLossLimit),
  exposureRule(newsFreeze),
  exposureRule(exposureCap),
  exposureRule(insufficientMargin),
];

/**
 * The rules that limit new exposure, checked again when a resting order's fill on a price update would add
 * exposure (docs/risk.md, "Orders after placement"): the venue, then rules 4 to 8 in their order.
 */
export const FILL_CHECKS: readonly RiskCheck[] = [
  venueNotAllowed,
  drawdownGate,
  dailyLossLimit,
  newsFreeze,
  exposureCap,
  insufficientMargin,
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
