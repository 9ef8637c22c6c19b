// Original file: proto/engine/v1/engine.proto

export interface Position {
  position_id?: string;
  symbol?: string;
  side?: string;
  quantity?: number | string;
  entry_price?: number | string;
  mark_price?: number | string;
  unrealized_pnl?: number | string;
  leverage?: number | string;
  venue?: string;
  opened_at?: string;
  margin?: number | string;
  liquidation_price?: number | string;
}

export interface Position__Output {
  position_id: string;
  symbol: string;
  side: string;
  quantity: number;
  entry_price: number;
  mark_price: number;
  unrealized_pnl: number;
  leverage: number;
  venue: string;
  opened_at: string;
  margin: number;
  liquidation_price: number;
}
