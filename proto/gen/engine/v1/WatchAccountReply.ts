// Original file: proto/engine/v1/engine.proto

import type {
  WebhookEvent as _engine_v1_WebhookEvent,
  WebhookEvent__Output as _engine_v1_WebhookEvent__Output,
} from "../../engine/v1/WebhookEvent.js";
import type { Long } from "@grpc/proto-loader";

export interface WatchAccountReply {
  event?: _engine_v1_WebhookEvent | null;
  after?: number | string | Long;
}

export interface WatchAccountReply__Output {
  event: _engine_v1_WebhookEvent__Output | null;
  after: number;
}
