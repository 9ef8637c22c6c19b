// Original file: proto/engine/v1/engine.proto

export interface CancelAllRequest {
  user_id?: string;
  account_id?: string;
  symbol?: string;
}

export interface CancelAllRequest__Output {
  user_id: string;
  account_id: string;
  symbol: string;
}
