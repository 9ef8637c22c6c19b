// Original file: proto/engine/v1/engine.proto

import type {
  Delivery as _engine_v1_Delivery,
  Delivery__Output as _engine_v1_Delivery__Output,
} from "../../engine/v1/Delivery.js";

export interface ListDeliveriesResponse {
  deliveries?: _engine_v1_Delivery[];
  has_more?: boolean;
}

export interface ListDeliveriesResponse__Output {
  deliveries: _engine_v1_Delivery__Output[];
  has_more: boolean;
}
