// Original file: proto/engine/v1/engine.proto

import type {
  FundingByAssetClass as _engine_v1_FundingByAssetClass,
  FundingByAssetClass__Output as _engine_v1_FundingByAssetClass__Output,
} from "../../engine/v1/FundingByAssetClass.js";
import type {
  FundingPayment as _engine_v1_FundingPayment,
  FundingPayment__Output as _engine_v1_FundingPayment__Output,
} from "../../engine/v1/FundingPayment.js";

export interface FundingReport {
  by_asset_class?: _engine_v1_FundingByAssetClass[];
  data?: _engine_v1_FundingPayment[];
}

export interface FundingReport__Output {
  by_asset_class: _engine_v1_FundingByAssetClass__Output[];
  data: _engine_v1_FundingPayment__Output[];
}
