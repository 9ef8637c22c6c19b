// Original file: proto/engine/v1/engine.proto

import type { Order as _engine_v1_Order, Order__Output as _engine_v1_Order__Output } from "../../engine/v1/Order.js";
import type { Fill as _engine_v1_Fill, Fill__Output as _engine_v1_Fill__Output } from "../../engine/v1/Fill.js";
import type {
  Violation as _engine_v1_Violation,
  Violation__Output as _engine_v1_Violation__Output,
} from "../../engine/v1/Violation.js";
import type {
  FlattenIssue as _engine_v1_FlattenIssue,
  FlattenIssue__Output as _engine_v1_FlattenIssue__Output,
} from "../../engine/v1/FlattenIssue.js";

export interface FlattenClose {
  position_id?: string;
  symbol?: string;
  venue?: string;
  order?: _engine_v1_Order | null;
  fills?: _engine_v1_Fill[];
  violations?: _engine_v1_Violation[];
  issues?: _engine_v1_FlattenIssue[];
  kept_orders?: _engine_v1_Order[];
}

export interface FlattenClose__Output {
  position_id: string;
  symbol: string;
  venue: string;
  order: _engine_v1_Order__Output | null;
  fills: _engine_v1_Fill__Output[];
  violations: _engine_v1_Violation__Output[];
  issues: _engine_v1_FlattenIssue__Output[];
  kept_orders: _engine_v1_Order__Output[];
}
