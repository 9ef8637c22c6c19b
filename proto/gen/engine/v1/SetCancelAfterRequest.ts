// Original file: proto/engine/v1/engine.proto

export interface SetCancelAfterRequest {
  user_id?: string;
  account_id?: string;
  timeout_ms?: number;
}

export interface SetCancelAfterRequest__Output {
  user_id: string;
  account_id: string;
  timeout_ms: number;
}
