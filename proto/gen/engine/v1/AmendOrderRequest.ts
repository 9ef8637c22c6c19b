// Original file: proto/engine/v1/engine.proto

export interface AmendOrderRequest {
  user_id?: string;
  order_id?: string;
  trigger_price?: string;
  limit_price?: string;
  quantity?: string;
  _trigger_price?: "trigger_price";
  _limit_price?: "limit_price";
  _quantity?: "quantity";
}

export interface AmendOrderRequest__Output {
  user_id: string;
  order_id: string;
  trigger_price?: string;
  limit_price?: string;
  quantity?: string;
  _trigger_price?: "trigger_price";
  _limit_price?: "limit_price";
  _quantity?: "quantity";
}
