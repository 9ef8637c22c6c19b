// Original file: proto/engine/v1/engine.proto

import type {
  Ticker as _engine_v1_Ticker,
  Ticker__Output as _engine_v1_Ticker__Output,
} from "../../engine/v1/Ticker.js";

export interface ListTickersResponse {
  data?: _engine_v1_Ticker[];
}

export interface ListTickersResponse__Output {
  data: _engine_v1_Ticker__Output[];
}
