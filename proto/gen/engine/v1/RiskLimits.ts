// Original file: proto/engine/v1/engine.proto

import type {
  MaxLeverage as _engine_v1_MaxLeverage,
  MaxLeverage__Output as _engine_v1_MaxLeverage__Output,
} from "../../engine/v1/MaxLeverage.js";
import type {
  NewsFreeze as _engine_v1_NewsFreeze,
  NewsFreeze__Output as _engine_v1_NewsFreeze__Output,
} from "../../engine/v1/NewsFreeze.js";

export interface RiskLimits {
  max_drawdown_pct?: number | string;
  drawdown_mode?: string;
  daily_loss_pct?: number | string;
  profit_target_pct?: number | string;
  max_leverage?: _engine_v1_MaxLeverage | null;
  max_symbol_notional?: number | string;
  max_total_notional?: number | string;
  news_freeze?: _engine_v1_NewsFreeze | null;
  daily_reset?: string;
}

export interface RiskLimits__Output {
  max_drawdown_pct: number;
  drawdown_mode: string;
  daily_loss_pct: number;
  profit_target_pct: number;
  max_leverage: _engine_v1_MaxLeverage__Output | null;
  max_symbol_notional: number;
  max_total_notional: number;
  news_freeze: _engine_v1_NewsFreeze__Output | null;
  daily_reset: string;
}
