// Original file: proto/engine/v1/engine.proto

export interface FundingByAssetClass {
  asset_class?: string;
  received?: number | string;
  paid?: number | string;
  net?: number | string;
}

export interface FundingByAssetClass__Output {
  asset_class: string;
  received: number;
  paid: number;
  net: number;
}
