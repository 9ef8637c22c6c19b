// Original file: proto/engine/v1/engine.proto

export interface Exposure {
  asset_class?: string;
  venue?: string;
  notional?: number | string;
}

export interface Exposure__Output {
  asset_class: string;
  venue: string;
  notional: number;
}
