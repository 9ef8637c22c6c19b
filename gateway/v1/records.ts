// proto → REST JSON for the /v1 records (docs/openapi.yaml): exactly the documented fields, absent optionals
// as null, never the loader's virtual oneof fields.
import type { Account__Output } from "../../proto/gen/engine/v1/Account.js";
import type { Analytics__Output } from "../../proto/gen/engine/v1/Analytics.js";
import type { Calendar__Output } from "../../proto/gen/engine/v1/Calendar.js";
import type { ListPlansResponse__Output } from "../../proto/gen/engine/v1/ListPlansResponse.js";
import type { ListTickersResponse__Output } from "../../proto/gen/engine/v1/ListTickersResponse.js";
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
import { fieldsOf } from "../json-fields.js";

export const orderJson = fieldsOf<Order__Output>([
  ["order_id", "account_id", "client_id?"],
  ["symbol", "side", "kind", "quantity", "filled_quantity", "avg_fill_price?"],
  ["limit_price?", "trigger_price?", "time_in_force", "expire_at?"],
  ["post_only", "reduce_only", "index_trigger", "mark_trigger", "venue"],
  ["parent_order_id?", "position_id?", "status", "created_at", "updated_at"],
]);

const fillFields = fieldsOf<Fill__Output>([
  ["fill_id", "order_id", "account_id", "client_id?"],
  ["symbol", "side", "quantity", "price", "fee", "liquidity", "venue"],
  ["realized_pnl", "executed_at"],
]);

export function fillJson(f: Fill__Output): Record<string, unknown> {
  const json = fillFields(f);
  // Only on a fill the risk system made (liquidation, termination): docs/risk.md.
  if (f.reason !== undefined && f.reason !== null && f.reason !== "") json.reason = f.reason;
  return json;
}

export const violationJson = fieldsOf<Violation__Output>([["rule", "severity", "message"]]);

const headroomFields = fieldsOf<RiskHeadroom__Output>([
  ["daily_loss_remaining", "drawdown_remaining"],
  ["symbol_exposure_remaining", "total_exposure_remaining"],
]);

/** The room left under the plan's limits (docs/risk.md); `null` if the engine sent none. */
export function riskHeadroomJson(h: RiskHeadroom__Output | null): Record<string, unknown> | null {
  return h === null ? null : headroomFields(h);
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

type RiskLimits = NonNullable<Account__Output["risk"]>;
const riskFields = fieldsOf<RiskLimits>([
  ["max_drawdown_pct", "drawdown_mode", "daily_loss_pct", "daily_reset", "profit_target_pct"],
  ["max_leverage", "max_symbol_notional", "max_total_notional", "news_freeze"],
]);

const accountFields = fieldsOf<Account__Output>([
  ["account_id", "plan_id", "rules_version", "label?", "state", "default_venue", "allowed_venues"],
  ["balance", "equity", "starting_balance", "high_water_mark", "day_start_equity"],
  ["risk", "created_at", "terminated_at?"],
]);

export function accountJson(a: Account__Output): Record<string, unknown> {
  const json = accountFields(a);
  json.risk = a.risk === null ? null : riskFields(a.risk);
  return json;
}

export const summaryJson = fieldsOf<Summary__Output>([
  ["account_id", "state", "balance", "equity"],
  ["margin_available", "margin_locked", "unrealized_pnl", "realized_pnl_today", "as_of"],
]);

export const positionJson = fieldsOf<Position__Output>([
  ["position_id", "symbol", "side", "quantity", "entry_price", "mark_price", "unrealized_pnl"],
  ["leverage", "venue", "opened_at", "margin", "liquidation_price"],
]);

export const closedPositionJson = fieldsOf<ClosedPosition__Output>([
  ["position_id", "symbol", "side", "quantity", "entry_price", "exit_price"],
  ["realized_pnl", "fees", "funding", "leverage", "venue"],
  ["opened_at", "closed_at", "r_multiple?"],
]);

type AssetClassFunding = FundingReport__Output["by_asset_class"][number];
type FundingPayment = FundingReport__Output["data"][number];
const assetClassFundingJson = fieldsOf<AssetClassFunding>([["asset_class", "received", "paid", "net"]]);
const fundingPaymentJson = fieldsOf<FundingPayment>([
  ["payment_id", "position_id", "symbol", "asset_class", "rate", "amount", "paid_at"],
]);

export function fundingReportJson(r: FundingReport__Output): Record<string, unknown> {
  return { by_asset_class: r.by_asset_class.map(assetClassFundingJson), data: r.data.map(fundingPaymentJson) };
}

export const breachJson = fieldsOf<Breach__Output>([
  ["breach_id", "rule", "severity", "threshold", "value", "message", "occurred_at"],
]);

export const violationRecordJson = fieldsOf<ViolationRecord__Output>([
  ["violation_id", "rule", "threshold", "value", "message", "occurred_at"],
]);

type Exposure = Analytics__Output["exposure"][number];
const exposureJson = fieldsOf<Exposure>([["asset_class", "venue", "notional"]]);
const analyticsFields = fieldsOf<Analytics__Output>([
  ["win_rate?", "avg_r_multiple?", "profit_factor?", "closed_positions", "exposure"],
]);

export function analyticsJson(a: Analytics__Output): Record<string, unknown> {
  const json = analyticsFields(a);
  json.exposure = a.exposure.map(exposureJson);
  return json;
}

type Ticker = ListTickersResponse__Output["data"][number];
export const tickerJson = fieldsOf<Ticker>([
  ["symbol", "base", "quote", "asset_class", "venues"],
  ["max_leverage", "tick_size", "quantity_step", "min_quantity"],
  ["mark_price?", "index_price?", "market_open"],
]);

type Plan = ListPlansResponse__Output["data"][number];
export const planJson = fieldsOf<Plan>([
  ["plan_id", "name", "starting_balance"],
  ["profit_target_pct", "max_drawdown_pct", "drawdown_mode", "daily_loss_pct", "daily_reset"],
  ["max_leverage", "max_symbol_notional", "max_total_notional", "news_freeze"],
  ["allowed_venues", "rules_version"],
]);

type CalendarEvent = Calendar__Output["events"][number];
export const calendarEventJson = fieldsOf<CalendarEvent>([["id", "title", "scheduled_at", "symbols", "asset_classes"]]);
