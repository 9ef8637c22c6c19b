// Original file: proto/engine/v1/engine.proto

import type {
  RiskLimits as _engine_v1_RiskLimits,
  RiskLimits__Output as _engine_v1_RiskLimits__Output,
} from "../../engine/v1/RiskLimits.js";

export interface Account {
  account_id?: string;
  plan_id?: string;
  label?: string;
  state?: string;
  default_venue?: string;
  allowed_venues?: string[];
  balance?: number | string;
  equity?: number | string;
  starting_balance?: number | string;
  high_water_mark?: number | string;
  day_start_equity?: number | string;
  risk?: _engine_v1_RiskLimits | null;
  created_at?: string;
  terminated_at?: string;
  rules_version?: string;
  _label?: "label";
  _terminated_at?: "terminated_at";
}

export interface Account__Output {
  account_id: string;
  plan_id: string;
  label?: string;
  state: string;
  default_venue: string;
  allowed_venues: string[];
  balance: number;
  equity: number;
  starting_balance: number;
  high_water_mark: number;
  day_start_equity: number;
  risk: _engine_v1_RiskLimits__Output | null;
  created_at: string;
  terminated_at?: string;
  rules_version: string;
  _label?: "label";
  _terminated_at?: "terminated_at";
}
