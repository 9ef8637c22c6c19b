// Original file: proto/engine/v1/engine.proto

export interface DeliveryAttempt {
  attempt?: number;
  started_at?: string;
  status_code?: number;
  error?: string;
  latency_ms?: number;
  _status_code?: "status_code";
  _error?: "error";
}

export interface DeliveryAttempt__Output {
  attempt: number;
  started_at: string;
  status_code?: number;
  error?: string;
  latency_ms: number;
  _status_code?: "status_code";
  _error?: "error";
}
