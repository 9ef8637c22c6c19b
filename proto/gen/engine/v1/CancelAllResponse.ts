// Original file: proto/engine/v1/engine.proto

import type { Order as _engine_v1_Order, Order__Output as _engine_v1_Order__Output } from "../../engine/v1/Order.js";

export interface CancelAllResponse {
  data?: _engine_v1_Order[];
}

export interface CancelAllResponse__Output {
  data: _engine_v1_Order__Output[];
}
