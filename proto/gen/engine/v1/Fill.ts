// Original file: proto/engine/v1/engine.proto

export interface Fill {
  fill_id?: string;
  order_id?: string;
  account_id?: string;
  client_id?: string;
  symbol?: string;
  side?: string;
  quantity?: number | string;
  price?: number | string;
  fee?: number | string;
  liquidity?: string;
  venue?: string;
  realized_pnl?: number | string;
  executed_at?: string;
  reason?: string;
  _client_id?: "client_id";
  _reason?: "reason";
}

export interface Fill__Output {
  fill_id: string;
  order_id: string;
  account_id: string;
  client_id?: string;
  symbol: string;
  side: string;
  quantity: number;
  price: number;
  fee: number;
  liquidity: string;
  venue: string;
  realized_pnl: number;
  executed_at: string;
  reason?: string;
  _client_id?: "client_id";
  _reason?: "reason";
}
