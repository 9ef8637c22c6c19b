// Original file: proto/engine/v1/engine.proto

import type {
  MaxLeverage as _engine_v1_MaxLeverage,
  MaxLeverage__Output as _engine_v1_MaxLeverage__Output,
} from "../../engine/v1/MaxLeverage.js";
import type {
  NewsFreeze as _engine_v1_NewsFreeze,
  NewsFreeze__Output as _engine_v1_NewsFreeze__Output,
} from "../../engine/v1/NewsFreeze.js";

export interface Plan {
  plan_id?: string;
  name?: string;
  starting_balance?: number | string;
  profit_target_pct?: number | string;
  max_drawdown_pct?: number | string;
  drawdown_mode?: string;
  daily_loss_pct?: number | string;
  daily_reset?: string;
  max_leverage?: _engine_v1_MaxLeverage | null;
  max_symbol_notional?: number | string;
  max_total_notional?: number | string;
  news_freeze?: _engine_v1_NewsFreeze | null;
  allowed_venues?: string[];
  rules_version?: string;
}

export interface Plan__Output {
  plan_id: string;
  name: string;
  starting_balance: number;
  profit_target_pct: number;
  max_drawdown_pct: number;
  drawdown_mode: string;
  daily_loss_pct: number;
  daily_reset: string;
  max_leverage: _engine_v1_MaxLeverage__Output | null;
  max_symbol_notional: number;
  max_total_notional: number;
  news_freeze: _engine_v1_NewsFreeze__Output | null;
  allowed_venues: string[];
  rules_version: string;
}
