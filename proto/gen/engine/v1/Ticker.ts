// Original file: proto/engine/v1/engine.proto

export interface Ticker {
  symbol?: string;
  base?: string;
  quote?: string;
  asset_class?: string;
  venues?: string[];
  max_leverage?: number | string;
  tick_size?: number | string;
  quantity_step?: number | string;
  min_quantity?: number | string;
  mark_price?: number | string;
  index_price?: number | string;
  market_open?: boolean;
  _mark_price?: "mark_price";
  _index_price?: "index_price";
}

export interface Ticker__Output {
  symbol: string;
  base: string;
  quote: string;
  asset_class: string;
  venues: string[];
  max_leverage: number;
  tick_size: number;
  quantity_step: number;
  min_quantity: number;
  mark_price?: number;
  index_price?: number;
  market_open: boolean;
  _mark_price?: "mark_price";
  _index_price?: "index_price";
}
