// Original file: proto/engine/v1/engine.proto

export interface NewsFreeze {
  minutes_before?: number;
  minutes_after?: number;
}

export interface NewsFreeze__Output {
  minutes_before: number;
  minutes_after: number;
}
