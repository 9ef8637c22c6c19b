// Original file: proto/engine/v1/engine.proto

export interface PlaceOrderRequest {
  user_id?: string;
  account_id?: string;
  symbol?: string;
  side?: string;
  kind?: string;
  quantity?: string;
  limit_price?: string;
  trigger_price?: string;
  time_in_force?: string;
  expire_at?: string;
  post_only?: boolean;
  reduce_only?: boolean;
  index_trigger?: boolean;
  mark_trigger?: boolean;
  client_id?: string;
  venue?: string;
  parent_order_id?: string;
  position_id?: string;
  request_id?: string;
  _limit_price?: "limit_price";
  _trigger_price?: "trigger_price";
  _time_in_force?: "time_in_force";
  _expire_at?: "expire_at";
  _post_only?: "post_only";
  _reduce_only?: "reduce_only";
  _index_trigger?: "index_trigger";
  _mark_trigger?: "mark_trigger";
  _client_id?: "client_id";
  _venue?: "venue";
  _parent_order_id?: "parent_order_id";
  _position_id?: "position_id";
  _request_id?: "request_id";
}

export interface PlaceOrderRequest__Output {
  user_id: string;
  account_id: string;
  symbol: string;
  side: string;
  kind: string;
  quantity: string;
  limit_price?: string;
  trigger_price?: string;
  time_in_force?: string;
  expire_at?: string;
  post_only?: boolean;
  reduce_only?: boolean;
  index_trigger?: boolean;
  mark_trigger?: boolean;
  client_id?: string;
  venue?: string;
  parent_order_id?: string;
  position_id?: string;
  request_id?: string;
  _limit_price?: "limit_price";
  _trigger_price?: "trigger_price";
  _time_in_force?: "time_in_force";
  _expire_at?: "expire_at";
  _post_only?: "post_only";
  _reduce_only?: "reduce_only";
  _index_trigger?: "index_trigger";
  _mark_trigger?: "mark_trigger";
  _client_id?: "client_id";
  _venue?: "venue";
  _parent_order_id?: "parent_order_id";
  _position_id?: "position_id";
  _request_id?: "request_id";
}
