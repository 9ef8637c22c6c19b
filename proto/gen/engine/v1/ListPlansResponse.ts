// Original file: proto/engine/v1/engine.proto

import type { Plan as _engine_v1_Plan, Plan__Output as _engine_v1_Plan__Output } from "../../engine/v1/Plan.js";

export interface ListPlansResponse {
  data?: _engine_v1_Plan[];
}

export interface ListPlansResponse__Output {
  data: _engine_v1_Plan__Output[];
}
