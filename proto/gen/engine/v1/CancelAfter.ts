// Original file: proto/engine/v1/engine.proto

export interface CancelAfter {
  account_id?: string;
  armed?: boolean;
  timeout_ms?: number;
  deadline?: string;
  _timeout_ms?: "timeout_ms";
  _deadline?: "deadline";
}

export interface CancelAfter__Output {
  account_id: string;
  armed: boolean;
  timeout_ms?: number;
  deadline?: string;
  _timeout_ms?: "timeout_ms";
  _deadline?: "deadline";
}
