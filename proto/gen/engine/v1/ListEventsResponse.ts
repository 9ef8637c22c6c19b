// Original file: proto/engine/v1/engine.proto

import type {
  WebhookEvent as _engine_v1_WebhookEvent,
  WebhookEvent__Output as _engine_v1_WebhookEvent__Output,
} from "../../engine/v1/WebhookEvent.js";

export interface ListEventsResponse {
  events?: _engine_v1_WebhookEvent[];
  has_more?: boolean;
}

export interface ListEventsResponse__Output {
  events: _engine_v1_WebhookEvent__Output[];
  has_more: boolean;
}
