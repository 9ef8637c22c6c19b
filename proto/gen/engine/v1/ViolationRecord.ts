// Original file: proto/engine/v1/engine.proto

export interface ViolationRecord {
  violation_id?: string;
  rule?: string;
  threshold?: number | string;
  value?: number | string;
  message?: string;
  occurred_at?: string;
}

export interface ViolationRecord__Output {
  violation_id: string;
  rule: string;
  threshold: number;
  value: number;
  message: string;
  occurred_at: string;
}
