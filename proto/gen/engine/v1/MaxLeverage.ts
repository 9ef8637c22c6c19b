// Original file: proto/engine/v1/engine.proto

export interface MaxLeverage {
  crypto?: number | string;
  forex?: number | string;
  commodities?: number | string;
  indices?: number | string;
}

export interface MaxLeverage__Output {
  crypto: number;
  forex: number;
  commodities: number;
  indices: number;
}
