// Original file: proto/engine/v1/engine.proto

export interface Violation {
  rule?: string;
  severity?: string;
  message?: string;
}

export interface Violation__Output {
  rule: string;
  severity: string;
  message: string;
}
