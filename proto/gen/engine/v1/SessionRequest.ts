// Original file: proto/engine/v1/engine.proto

export interface SessionRequest {
  id?: number;
  method?: string;
  payload?: Buffer | Uint8Array | string;
  request_id?: string;
  traceparent?: string;
  budget_ms?: number;
}

export interface SessionRequest__Output {
  id: number;
  method: string;
  payload: Buffer;
  request_id: string;
  traceparent: string;
  budget_ms: number;
}
