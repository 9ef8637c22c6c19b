// Original file: proto/engine/v1/engine.proto

export interface Summary {
  account_id?: string;
  state?: string;
  balance?: number | string;
  equity?: number | string;
  margin_available?: number | string;
  margin_locked?: number | string;
  unrealized_pnl?: number | string;
  realized_pnl_today?: number | string;
  as_of?: string;
}

export interface Summary__Output {
  account_id: string;
  state: string;
  balance: number;
  equity: number;
  margin_available: number;
  margin_locked: number;
  unrealized_pnl: number;
  realized_pnl_today: number;
  as_of: string;
}
