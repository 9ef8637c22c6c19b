// Original file: proto/engine/v1/engine.proto

export interface Breach {
  breach_id?: string;
  rule?: string;
  severity?: string;
  threshold?: number | string;
  value?: number | string;
  message?: string;
  occurred_at?: string;
}

export interface Breach__Output {
  breach_id: string;
  rule: string;
  severity: string;
  threshold: number;
  value: number;
  message: string;
  occurred_at: string;
}
