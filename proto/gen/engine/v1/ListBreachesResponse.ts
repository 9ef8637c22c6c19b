// Original file: proto/engine/v1/engine.proto

import type {
  Breach as _engine_v1_Breach,
  Breach__Output as _engine_v1_Breach__Output,
} from "../../engine/v1/Breach.js";

export interface ListBreachesResponse {
  data?: _engine_v1_Breach[];
}

export interface ListBreachesResponse__Output {
  data: _engine_v1_Breach__Output[];
}
