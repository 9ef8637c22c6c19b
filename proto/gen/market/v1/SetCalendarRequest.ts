// Original file: proto/market/v1/market.proto

import type {
  NewsEvent as _market_v1_NewsEvent,
  NewsEvent__Output as _market_v1_NewsEvent__Output,
} from "../../market/v1/NewsEvent.js";

export interface SetCalendarRequest {
  events?: _market_v1_NewsEvent[];
}

export interface SetCalendarRequest__Output {
  events: _market_v1_NewsEvent__Output[];
}
