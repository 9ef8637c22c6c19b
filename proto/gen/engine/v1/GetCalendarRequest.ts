// Original file: proto/engine/v1/engine.proto

export interface GetCalendarRequest {
  from?: string;
  to?: string;
  symbol?: string;
}

export interface GetCalendarRequest__Output {
  from: string;
  to: string;
  symbol: string;
}
