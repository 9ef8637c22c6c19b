// proto → REST JSON for the /v1 records (CONTRACT 3–5): exactly the contract's fields, absent optionals as
// null, never the loader's virtual oneof fields.
import type { Account__Output } from "../../proto/gen/engine/v1/Account.js";
import type { Analytics__Output } from "../../proto/gen/engine/v1/Analytics.js";
import type { Breach__Output } from "../../proto/gen/engine/v1/Breach.js";
import type { ClosedPosition__Output } from "../../proto/gen/engine/v1/ClosedPosition.js";
import type { Fill__Output } from "../../proto/gen/engine/v1/Fill.js";
import type { FundingReport__Output } from "../../proto/gen/engine/v1/FundingReport.js";
import type { Order__Output } from "../../proto/gen/engine/v1/Order.js";
import type { OrderResponse__Output } from "../../proto/gen/engine/v1/OrderResponse.js";
import type { OrderTestResponse__Output } from "../../proto/gen/engine/v1/OrderTestResponse.js";
import type { Position__Output } from "../../proto/gen/engine/v1/Position.js";
import type { RiskHeadroom__Output } from "../../proto/gen/engine/v1/RiskHeadroom.js";
import type { Summary__Output } from "../../proto/gen/engine/v1/Summary.js";
import type { Violation__Output } from "../../proto/gen/engine/v1/Violation.js";
import type { ViolationRecord__Output } from "../../proto/gen/engine/v1/ViolationRecord.js";

export function orderJson(o: Order__Output): Record<string, unknown> {
  return {
    order_id: o.order_id,
    account_id: o.account_id,
    client_id: o.client_id ?? null,
    symbol: o.symbol,
    side: o.side,
    kind: o.kind,
    quantity: o.quantity,
    filled_quantity: o.filled_quantity,
    avg_fill_price: o.avg_fill_price ?? null,
    limit_price: o.limit_price ?? null,
    trigger_price: o.trigger_price ?? null,
    time_in_force: o.time_in_force,
    expire_at: o.expire_at ?? null,
    post_only: o.post_only,
    reduce_only: o.reduce_only,
    index_trigger: o.index_trigger,
    mark_trigger: o.mark_trigger,
    venue: o.venue,
    parent_order_id: o.parent_order_id ?? null,
    position_id: o.position_id ?? null,
    status: o.status,
    created_at: o.created_at,
    updated_at: o.updated_at,
  };
}

export function fillJson(f: Fill__Output): Record<string, unknown> {
  return {
    fill_id: f.fill_id,
    order_id: f.order_id,
    account_id: f.account_id,
    client_id: f.client_id ?? null,
    symbol: f.symbol,
    side: f.side,
    quantity: f.quantity,
    price: f.price,
    fee: f.fee,
    liquidity: f.liquidity,
    venue: f.venue,
    realized_pnl: f.realized_pnl,
    executed_at: f.executed_at,
    // Only on a fill the risk system made (liquidation, termination): docs/risk.md.
    ...(f.reason === undefined || f.reason === null || f.reason === "" ? {} : { reason: f.reason }),
  };
}

export function violationJson(v: Violation__Output): Record<string, unknown> {
  return { rule: v.rule, severity: v.severity, message: v.message };
}

/** The room left under the plan's limits (docs/risk.md); `null` if the engine sent none. */
export function riskHeadroomJson(h: RiskHeadroom__Output | null): Record<string, unknown> | null {
  if (h === null) return null;
  return {
    daily_loss_remaining: h.daily_loss_remaining,
    drawdown_remaining: h.drawdown_remaining,
    symbol_exposure_remaining: h.symbol_exposure_remaining,
    total_exposure_remaining: h.total_exposure_remaining,
  };
}

export function orderResponseJson(r: OrderResponse__Output): Record<string, unknown> {
  if (r.order === null) throw new Error("engine returned no order");
  return {
    order: orderJson(r.order),
    fills: r.fills.map(fillJson),
    violations: r.violations.map(violationJson),
    risk_headroom: riskHeadroomJson(r.risk_headroom),
  };
}

export function orderTestJson(r: OrderTestResponse__Output): Record<string, unknown> {
  return { violations: r.violations.map(violationJson), risk_headroom: riskHeadroomJson(r.risk_headroom) };
}

export function accountJson(a: Account__Output): Record<string, unknown> {
  const risk = a.risk;
  return {
    account_id: a.account_id,
    plan_id: a.plan_id,
    rules_version: a.rules_version,
    label: a.label ?? null,
    state: a.state,
    default_venue: a.default_venue,
    allowed_venues: a.allowed_venues,
    balance: a.balance,
    equity: a.equity,
    starting_balance: a.starting_balance,
    high_water_mark: a.high_water_mark,
    day_start_equity: a.day_start_equity,
    risk:
      risk === null
        ? null
        : {
            max_drawdown_pct: risk.max_drawdown_pct,
            drawdown_mode: risk.drawdown_mode,
            daily_loss_pct: risk.daily_loss_pct,
            daily_reset: risk.daily_reset,
            profit_target_pct: risk.profit_target_pct,
            max_leverage: risk.max_leverage,
            max_symbol_notional: risk.max_symbol_notional,
            max_total_notional: risk.max_total_notional,
            news_freeze: risk.news_freeze,
          },
    created_at: a.created_at,
    terminated_at: a.terminated_at ?? null,
  };
}

export function summaryJson(s: Summary__Output): Record<string, unknown> {
  return {
    account_id: s.account_id,
    state: s.state,
    balance: s.balance,
    equity: s.equity,
    margin_available: s.margin_available,
    margin_locked: s.margin_locked,
    unrealized_pnl: s.unrealized_pnl,
    realized_pnl_today: s.realized_pnl_today,
    as_of: s.as_of,
  };
}

export function positionJson(p: Position__Output): Record<string, unknown> {
  return {
    position_id: p.position_id,
    symbol: p.symbol,
    side: p.side,
    quantity: p.quantity,
    entry_price: p.entry_price,
    mark_price: p.mark_price,
    unrealized_pnl: p.unrealized_pnl,
    leverage: p.leverage,
    venue: p.venue,
    opened_at: p.opened_at,
    margin: p.margin,
    liquidation_price: p.liquidation_price,
  };
}

export function closedPositionJson(p: ClosedPosition__Output): Record<string, unknown> {
  return {
    position_id: p.position_id,
    symbol: p.symbol,
    side: p.side,
    quantity: p.quantity,
    entry_price: p.entry_price,
    exit_price: p.exit_price,
    realized_pnl: p.realized_pnl,
    fees: p.fees,
    funding: p.funding,
    leverage: p.leverage,
    venue: p.venue,
    opened_at: p.opened_at,
    closed_at: p.closed_at,
    r_multiple: p.r_multiple ?? null,
  };
}

export function fundingReportJson(r: FundingReport__Output): Record<string, unknown> {
  return {
    by_asset_class: r.by_asset_class.map((c) => ({
      asset_class: c.asset_class,
      received: c.received,
      paid: c.paid,
      net: c.net,
    })),
    data: r.data.map((p) => ({
      payment_id: p.payment_id,
      position_id: p.position_id,
      symbol: p.symbol,
      asset_class: p.asset_class,
      rate: p.rate,
      amount: p.amount,
      paid_at: p.paid_at,
    })),
  };
}

export function breachJson(b: Breach__Output): Record<string, unknown> {
  return {
    breach_id: b.breach_id,
    rule: b.rule,
    severity: b.severity,
    threshold: b.threshold,
    value: b.value,
    message: b.message,
    occurred_at: b.occurred_at,
  };
}

export function violationRecordJson(v: ViolationRecord__Output): Record<string, unknown> {
  return {
    violation_id: v.violation_id,
    rule: v.rule,
    threshold: v.threshold,
    value: v.value,
    message: v.message,
    occurred_at: v.occurred_at,
  };
}

export function analyticsJson(a: Analytics__Output): Record<string, unknown> {
  return {
    win_rate: a.win_rate ?? null,
    avg_r_multiple: a.avg_r_multiple ?? null,
    profit_factor: a.profit_factor ?? null,
    closed_positions: a.closed_positions,
    exposure: a.exposure.map((e) => ({ asset_class: e.asset_class, venue: e.venue, notional: e.notional })),
  };
}
