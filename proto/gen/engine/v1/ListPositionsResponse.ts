// Original file: proto/engine/v1/engine.proto

import type {
  Position as _engine_v1_Position,
  Position__Output as _engine_v1_Position__Output,
} from "../../engine/v1/Position.js";

export interface ListPositionsResponse {
  data?: _engine_v1_Position[];
}

export interface ListPositionsResponse__Output {
  data: _engine_v1_Position__Output[];
}
