// Original file: proto/market/v1/market.proto

export interface PriceUpdate {
  symbol?: string;
  index_price?: number | string;
  mark_price?: number | string;
}

export interface PriceUpdate__Output {
  symbol: string;
  index_price: number;
  mark_price: number;
}
