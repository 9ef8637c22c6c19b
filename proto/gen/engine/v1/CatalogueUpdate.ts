// Original file: proto/engine/v1/engine.proto

import type {
  Ticker as _engine_v1_Ticker,
  Ticker__Output as _engine_v1_Ticker__Output,
} from "../../engine/v1/Ticker.js";
import type { Plan as _engine_v1_Plan, Plan__Output as _engine_v1_Plan__Output } from "../../engine/v1/Plan.js";
import type {
  Calendar as _engine_v1_Calendar,
  Calendar__Output as _engine_v1_Calendar__Output,
} from "../../engine/v1/Calendar.js";

export interface CatalogueUpdate {
  whole?: boolean;
  tickers?: _engine_v1_Ticker[];
  plans?: _engine_v1_Plan[];
  calendar?: _engine_v1_Calendar | null;
}

export interface CatalogueUpdate__Output {
  whole: boolean;
  tickers: _engine_v1_Ticker__Output[];
  plans: _engine_v1_Plan__Output[];
  calendar: _engine_v1_Calendar__Output | null;
}
