// Original file: proto/engine/v1/engine.proto

import type {
  ClosedPosition as _engine_v1_ClosedPosition,
  ClosedPosition__Output as _engine_v1_ClosedPosition__Output,
} from "../../engine/v1/ClosedPosition.js";

export interface ListClosedPositionsResponse {
  data?: _engine_v1_ClosedPosition[];
  has_more?: boolean;
}

export interface ListClosedPositionsResponse__Output {
  data: _engine_v1_ClosedPosition__Output[];
  has_more: boolean;
}
