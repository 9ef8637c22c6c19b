// Original file: proto/engine/v1/engine.proto

export interface OrderRef {
  user_id?: string;
  order_id?: string;
}

export interface OrderRef__Output {
  user_id: string;
  order_id: string;
}
