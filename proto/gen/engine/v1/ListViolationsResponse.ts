// Original file: proto/engine/v1/engine.proto

import type {
  ViolationRecord as _engine_v1_ViolationRecord,
  ViolationRecord__Output as _engine_v1_ViolationRecord__Output,
} from "../../engine/v1/ViolationRecord.js";

export interface ListViolationsResponse {
  data?: _engine_v1_ViolationRecord[];
}

export interface ListViolationsResponse__Output {
  data: _engine_v1_ViolationRecord__Output[];
}
