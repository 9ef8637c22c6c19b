// Original file: proto/engine/v1/engine.proto

import type { Fill as _engine_v1_Fill, Fill__Output as _engine_v1_Fill__Output } from "../../engine/v1/Fill.js";

export interface ListFillsResponse {
  data?: _engine_v1_Fill[];
  has_more?: boolean;
}

export interface ListFillsResponse__Output {
  data: _engine_v1_Fill__Output[];
  has_more: boolean;
}
