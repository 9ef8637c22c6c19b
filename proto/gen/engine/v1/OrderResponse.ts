// Original file: proto/engine/v1/engine.proto

import type { Order as _engine_v1_Order, Order__Output as _engine_v1_Order__Output } from "../../engine/v1/Order.js";
import type { Fill as _engine_v1_Fill, Fill__Output as _engine_v1_Fill__Output } from "../../engine/v1/Fill.js";
import type {
  Violation as _engine_v1_Violation,
  Violation__Output as _engine_v1_Violation__Output,
} from "../../engine/v1/Violation.js";
import type {
  RiskHeadroom as _engine_v1_RiskHeadroom,
  RiskHeadroom__Output as _engine_v1_RiskHeadroom__Output,
} from "../../engine/v1/RiskHeadroom.js";

export interface OrderResponse {
  order?: _engine_v1_Order | null;
  fills?: _engine_v1_Fill[];
  violations?: _engine_v1_Violation[];
  outcome?: string;
  risk_headroom?: _engine_v1_RiskHeadroom | null;
}

export interface OrderResponse__Output {
  order: _engine_v1_Order__Output | null;
  fills: _engine_v1_Fill__Output[];
  violations: _engine_v1_Violation__Output[];
  outcome: string;
  risk_headroom: _engine_v1_RiskHeadroom__Output | null;
}
