// Original file: proto/engine/v1/engine.proto

import type { Order as _engine_v1_Order, Order__Output as _engine_v1_Order__Output } from "../../engine/v1/Order.js";
import type {
  FlattenClose as _engine_v1_FlattenClose,
  FlattenClose__Output as _engine_v1_FlattenClose__Output,
} from "../../engine/v1/FlattenClose.js";
import type {
  Position as _engine_v1_Position,
  Position__Output as _engine_v1_Position__Output,
} from "../../engine/v1/Position.js";

export interface FlattenResponse {
  canceled?: _engine_v1_Order[];
  closes?: _engine_v1_FlattenClose[];
  positions?: _engine_v1_Position[];
}

export interface FlattenResponse__Output {
  canceled: _engine_v1_Order__Output[];
  closes: _engine_v1_FlattenClose__Output[];
  positions: _engine_v1_Position__Output[];
}
