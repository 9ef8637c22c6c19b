// Original file: proto/engine/v1/engine.proto

export interface ListDeliveriesRequest {
  user_id?: string;
  api_key_id?: string;
  limit?: number;
  before?: string;
}

export interface ListDeliveriesRequest__Output {
  user_id: string;
  api_key_id: string;
  limit: number;
  before: string;
}
