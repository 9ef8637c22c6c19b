// Original file: proto/engine/v1/engine.proto

import type {
  DeliveryAttempt as _engine_v1_DeliveryAttempt,
  DeliveryAttempt__Output as _engine_v1_DeliveryAttempt__Output,
} from "../../engine/v1/DeliveryAttempt.js";
import type { Long } from "@grpc/proto-loader";

export interface Delivery {
  delivery_id?: string;
  event_id?: string;
  event_type?: string;
  account_id?: string;
  sequence?: number | string | Long;
  url?: string;
  status?: string;
  attempts?: number;
  next_attempt_at?: string;
  last_status_code?: number;
  last_error?: string;
  last_latency_ms?: number;
  created_at?: string;
  updated_at?: string;
  attempt_log?: _engine_v1_DeliveryAttempt[];
  _next_attempt_at?: "next_attempt_at";
  _last_status_code?: "last_status_code";
  _last_error?: "last_error";
  _last_latency_ms?: "last_latency_ms";
}

export interface Delivery__Output {
  delivery_id: string;
  event_id: string;
  event_type: string;
  account_id: string;
  sequence: number;
  url: string;
  status: string;
  attempts: number;
  next_attempt_at?: string;
  last_status_code?: number;
  last_error?: string;
  last_latency_ms?: number;
  created_at: string;
  updated_at: string;
  attempt_log: _engine_v1_DeliveryAttempt__Output[];
  _next_attempt_at?: "next_attempt_at";
  _last_status_code?: "last_status_code";
  _last_error?: "last_error";
  _last_latency_ms?: "last_latency_ms";
}
