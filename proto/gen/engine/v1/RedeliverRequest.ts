// Original file: proto/engine/v1/engine.proto

export interface RedeliverRequest {
  user_id?: string;
  api_key_id?: string;
  delivery_id?: string;
}

export interface RedeliverRequest__Output {
  user_id: string;
  api_key_id: string;
  delivery_id: string;
}
