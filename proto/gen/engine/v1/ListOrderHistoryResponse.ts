// Original file: proto/engine/v1/engine.proto

import type { Order as _engine_v1_Order, Order__Output as _engine_v1_Order__Output } from "../../engine/v1/Order.js";

export interface ListOrderHistoryResponse {
  data?: _engine_v1_Order[];
  has_more?: boolean;
}

export interface ListOrderHistoryResponse__Output {
  data: _engine_v1_Order__Output[];
  has_more: boolean;
}
