// The rules an order can be rejected by and the violation record a rejection carries (docs/openapi.yaml,
// `Violation`).
// A violation is data returned by a check, never an exception.

export const RiskRule = {
  drawdown_gate: "drawdown_gate",
  daily_loss_limit: "daily_loss_limit",
  news_freeze: "news_freeze",
  exposure_cap: "exposure_cap",
  insufficient_margin: "insufficient_margin",
  account_terminated: "account_terminated",
  market_closed: "market_closed",
  venue_not_allowed: "venue_not_allowed",
  post_only_would_take: "post_only_would_take",
} as const;
export type RiskRule = (typeof RiskRule)[keyof typeof RiskRule];

export type Severity = "info" | "warning" | "critical";

export interface Violation {
  readonly rule: RiskRule;
  readonly severity: Severity;
  readonly message: string;
}

export function critical(rule: RiskRule, message: string): Violation {
  return { rule, severity: "critical", message };
}

/** The rules monitored against limits: what breaches and hard violations name. */
export type LimitRule = "daily_loss_limit" | "drawdown_gate";

/** A breach level reached (units for amounts). */
export interface Breach {
  readonly breach_id: string;
  readonly rule: LimitRule;
  readonly severity: Severity;
  /** The amount the level stands at (units): 50, 80 or 100% of the limit. */
  readonly threshold: number;
  /** The loss or drawdown that reached it (units). */
  readonly value: number;
  readonly message: string;
  readonly occurred_at: number;
}

/** The rules that limit new exposure, checked again when a resting order's fill would add some. */
export const EXPOSURE_RULES = [
  "drawdown_gate",
  "daily_loss_limit",
  "news_freeze",
  "exposure_cap",
  "insufficient_margin",
  "venue_not_allowed",
] as const;
export type ExposureRule = (typeof EXPOSURE_RULES)[number];

export function isExposureRule(rule: RiskRule): rule is ExposureRule {
  return (EXPOSURE_RULES as readonly string[]).includes(rule);
}

/**
 * A hard rule that failed and terminated the account, or an exposure rule that refused the adding part of a
 * resting order's fill (units for amounts).
 */
export interface RuleViolation {
  readonly violation_id: string;
  readonly rule: LimitRule | ExposureRule;
  /** The limit (units); 0 for a refused fill. */
  readonly threshold: number;
  /** The loss or drawdown that reached it (units); 0 for a refused fill. */
  readonly value: number;
  readonly message: string;
  readonly occurred_at: number;
}

/** One funding payment (units; amount > 0 received). */
export interface FundingPayment {
  readonly payment_id: string;
  readonly position_id: string;
  /** "SYMBOL|VENUE" of the position. */
  readonly position_key: string;
  readonly symbol: string;
  readonly asset_class: string;
  /** Parts per million of the notional, signed like the amount. */
  readonly rate_ppm: number;
  readonly amount: number;
  readonly paid_at: number;
}

/** The room an order leaves under the plan's limits, in USD (JSON numbers), each at least 0. */
export interface RiskHeadroom {
  daily_loss_remaining: number;
  drawdown_remaining: number;
  symbol_exposure_remaining: number;
  total_exposure_remaining: number;
}
