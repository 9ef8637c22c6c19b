// The rules an order can be rejected by and the violation record a rejection carries (CONTRACT section 4).
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
