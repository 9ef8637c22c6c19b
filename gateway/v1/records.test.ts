// proto → REST JSON of the risk records (docs/openapi.yaml): exactly the documented fields, unset proto3
// optionals as null (a set 0 stays 0), never the loader's virtual oneof fields.
import { describe, expect, it } from "vitest";
import type { Analytics__Output } from "../../proto/gen/engine/v1/Analytics.js";
import type { Order__Output } from "../../proto/gen/engine/v1/Order.js";
import type { OrderResponse__Output } from "../../proto/gen/engine/v1/OrderResponse.js";
import {
  analyticsJson,
  breachJson,
  fundingReportJson,
  orderResponseJson,
  orderTestJson,
  riskHeadroomJson,
  violationRecordJson,
} from "./records.js";

const HEADROOM = {
  daily_loss_remaining: 499.7,
  drawdown_remaining: 999.7,
  symbol_exposure_remaining: 24_500,
  total_exposure_remaining: 0,
};

const ORDER: Order__Output = {
  order_id: "0190b7a4-1f00-7000-8000-000000000001",
  account_id: "0190b7a4-1f00-7000-8000-000000000002",
  symbol: "BTC-USD",
  side: "BUY",
  kind: "MARKET",
  quantity: 0.01,
  filled_quantity: 0.01,
  avg_fill_price: 50_000,
  time_in_force: "IOC",
  post_only: false,
  reduce_only: false,
  index_trigger: false,
  mark_trigger: false,
  venue: "GMX",
  status: "FILLED",
  created_at: "2026-11-22T14:05:00.000Z",
  updated_at: "2026-11-22T14:05:00.000Z",
  _avg_fill_price: "avg_fill_price",
};

const response = (risk_headroom: OrderResponse__Output["risk_headroom"]): OrderResponse__Output => ({
  order: ORDER,
  fills: [],
  violations: [],
  outcome: "created",
  risk_headroom,
});

describe("risk_headroom in order responses", () => {
  it("is an object with the four numbers, 0 included", () => {
    const json = orderResponseJson(response(HEADROOM));
    expect(Object.keys(json)).toEqual(["order", "fills", "violations", "risk_headroom"]);
    expect(json.risk_headroom).toEqual(HEADROOM);
    expect(riskHeadroomJson(HEADROOM)).not.toBe(HEADROOM);
  });

  it("is null when the engine sent none", () => {
    expect(orderResponseJson(response(null)).risk_headroom).toBeNull();
    expect(riskHeadroomJson(null)).toBeNull();
  });

  it("answers a test order with exactly violations and risk_headroom", () => {
    const violation = { rule: "insufficient_margin", severity: "critical", message: "needs more margin" };
    expect(orderTestJson({ violations: [violation], risk_headroom: HEADROOM })).toEqual({
      violations: [violation],
      risk_headroom: HEADROOM,
    });
    expect(orderTestJson({ violations: [], risk_headroom: null })).toEqual({ violations: [], risk_headroom: null });
  });
});

describe("analyticsJson", () => {
  it("writes unset optionals as null and drops the virtual oneof fields", () => {
    const none: Analytics__Output = { closed_positions: 0, exposure: [] };
    expect(analyticsJson(none)).toEqual({
      win_rate: null,
      avg_r_multiple: null,
      profit_factor: null,
      closed_positions: 0,
      exposure: [],
    });
  });

  it("keeps a set 0 (no winner) apart from unset (no loser)", () => {
    const losing: Analytics__Output = {
      win_rate: 0,
      avg_r_multiple: -0.5,
      profit_factor: 0,
      closed_positions: 2,
      exposure: [{ asset_class: "crypto", venue: "GMX", notional: 1_040 }],
      _win_rate: "win_rate",
      _avg_r_multiple: "avg_r_multiple",
      _profit_factor: "profit_factor",
    };
    expect(analyticsJson(losing)).toEqual({
      win_rate: 0,
      avg_r_multiple: -0.5,
      profit_factor: 0,
      closed_positions: 2,
      exposure: [{ asset_class: "crypto", venue: "GMX", notional: 1_040 }],
    });
    const winning: Analytics__Output = { ...losing, win_rate: 1, profit_factor: undefined, _profit_factor: undefined };
    expect(analyticsJson(winning)).toMatchObject({ win_rate: 1, profit_factor: null });
  });
});

describe("the risk lists", () => {
  it("map funding, breaches and violations field for field", () => {
    const payment = {
      payment_id: "0190b7a4-1f00-7000-8000-000000000003",
      position_id: "0190b7a4-1f00-7000-8000-000000000004",
      symbol: "BTC-USD",
      asset_class: "crypto",
      rate: -0.0001,
      amount: -0.5,
      paid_at: "2026-11-22T16:00:00.000Z",
    };
    const byClass = { asset_class: "crypto", received: 0, paid: 0.5, net: -0.5 };
    expect(fundingReportJson({ by_asset_class: [byClass], data: [payment] })).toEqual({
      by_asset_class: [byClass],
      data: [payment],
    });

    const breach = {
      breach_id: "0190b7a4-1f00-7000-8000-000000000005",
      rule: "daily_loss_limit",
      severity: "warning",
      threshold: 400,
      value: 401.25,
      message: "the day's loss reached 80% of the limit",
      occurred_at: "2026-11-22T14:06:00.000Z",
    };
    expect(breachJson(breach)).toEqual(breach);
    const violation = {
      violation_id: "0190b7a4-1f00-7000-8000-000000000006",
      rule: "drawdown_gate",
      threshold: 1_000,
      value: 1_000.5,
      message: "equity fell to the drawdown floor",
      occurred_at: "2026-11-22T14:07:00.000Z",
    };
    expect(violationRecordJson(violation)).toEqual(violation);
  });
});
