// Original file: proto/engine/v1/engine.proto

export interface WatchTickersRequest {
  symbols?: string[];
}

export interface WatchTickersRequest__Output {
  symbols: string[];
}
