// Original file: proto/engine/v1/engine.proto

export interface RiskHeadroom {
  daily_loss_remaining?: number | string;
  drawdown_remaining?: number | string;
  symbol_exposure_remaining?: number | string;
  total_exposure_remaining?: number | string;
}

export interface RiskHeadroom__Output {
  daily_loss_remaining: number;
  drawdown_remaining: number;
  symbol_exposure_remaining: number;
  total_exposure_remaining: number;
}
