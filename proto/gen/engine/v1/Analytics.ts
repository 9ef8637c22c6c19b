// Original file: proto/engine/v1/engine.proto

import type {
  Exposure as _engine_v1_Exposure,
  Exposure__Output as _engine_v1_Exposure__Output,
} from "../../engine/v1/Exposure.js";

export interface Analytics {
  win_rate?: number | string;
  avg_r_multiple?: number | string;
  profit_factor?: number | string;
  closed_positions?: number;
  exposure?: _engine_v1_Exposure[];
  _win_rate?: "win_rate";
  _avg_r_multiple?: "avg_r_multiple";
  _profit_factor?: "profit_factor";
}

export interface Analytics__Output {
  win_rate?: number;
  avg_r_multiple?: number;
  profit_factor?: number;
  closed_positions: number;
  exposure: _engine_v1_Exposure__Output[];
  _win_rate?: "win_rate";
  _avg_r_multiple?: "avg_r_multiple";
  _profit_factor?: "profit_factor";
}
