// Original file: proto/engine/v1/engine.proto

import type {
  Violation as _engine_v1_Violation,
  Violation__Output as _engine_v1_Violation__Output,
} from "../../engine/v1/Violation.js";
import type {
  RiskHeadroom as _engine_v1_RiskHeadroom,
  RiskHeadroom__Output as _engine_v1_RiskHeadroom__Output,
} from "../../engine/v1/RiskHeadroom.js";

export interface OrderTestResponse {
  violations?: _engine_v1_Violation[];
  risk_headroom?: _engine_v1_RiskHeadroom | null;
}

export interface OrderTestResponse__Output {
  violations: _engine_v1_Violation__Output[];
  risk_headroom: _engine_v1_RiskHeadroom__Output | null;
}
