// Original file: proto/engine/v1/engine.proto

export interface ClosedPosition {
  position_id?: string;
  symbol?: string;
  side?: string;
  quantity?: number | string;
  entry_price?: number | string;
  exit_price?: number | string;
  realized_pnl?: number | string;
  fees?: number | string;
  funding?: number | string;
  leverage?: number | string;
  venue?: string;
  opened_at?: string;
  closed_at?: string;
  r_multiple?: number | string;
  _r_multiple?: "r_multiple";
}

export interface ClosedPosition__Output {
  position_id: string;
  symbol: string;
  side: string;
  quantity: number;
  entry_price: number;
  exit_price: number;
  realized_pnl: number;
  fees: number;
  funding: number;
  leverage: number;
  venue: string;
  opened_at: string;
  closed_at: string;
  r_multiple?: number;
  _r_multiple?: "r_multiple";
}
