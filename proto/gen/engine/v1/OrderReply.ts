// Original file: proto/engine/v1/engine.proto

import type { Order as _engine_v1_Order, Order__Output as _engine_v1_Order__Output } from "../../engine/v1/Order.js";

export interface OrderReply {
  order?: _engine_v1_Order | null;
}

export interface OrderReply__Output {
  order: _engine_v1_Order__Output | null;
}
