// Original file: proto/engine/v1/engine.proto

export interface Order {
  order_id?: string;
  account_id?: string;
  client_id?: string;
  symbol?: string;
  side?: string;
  kind?: string;
  quantity?: number | string;
  filled_quantity?: number | string;
  avg_fill_price?: number | string;
  limit_price?: number | string;
  trigger_price?: number | string;
  time_in_force?: string;
  expire_at?: string;
  post_only?: boolean;
  reduce_only?: boolean;
  index_trigger?: boolean;
  mark_trigger?: boolean;
  venue?: string;
  parent_order_id?: string;
  position_id?: string;
  status?: string;
  created_at?: string;
  updated_at?: string;
  _client_id?: "client_id";
  _avg_fill_price?: "avg_fill_price";
  _limit_price?: "limit_price";
  _trigger_price?: "trigger_price";
  _expire_at?: "expire_at";
  _parent_order_id?: "parent_order_id";
  _position_id?: "position_id";
}

export interface Order__Output {
  order_id: string;
  account_id: string;
  client_id?: string;
  symbol: string;
  side: string;
  kind: string;
  quantity: number;
  filled_quantity: number;
  avg_fill_price?: number;
  limit_price?: number;
  trigger_price?: number;
  time_in_force: string;
  expire_at?: string;
  post_only: boolean;
  reduce_only: boolean;
  index_trigger: boolean;
  mark_trigger: boolean;
  venue: string;
  parent_order_id?: string;
  position_id?: string;
  status: string;
  created_at: string;
  updated_at: string;
  _client_id?: "client_id";
  _avg_fill_price?: "avg_fill_price";
  _limit_price?: "limit_price";
  _trigger_price?: "trigger_price";
  _expire_at?: "expire_at";
  _parent_order_id?: "parent_order_id";
  _position_id?: "position_id";
}
