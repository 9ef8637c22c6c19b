// Original file: proto/engine/v1/engine.proto

import type { Long } from "@grpc/proto-loader";

export interface WebhookEvent {
  id?: string;
  type?: string;
  created_at?: string;
  account_id?: string;
  sequence?: number | string | Long;
  data_json?: string;
}

export interface WebhookEvent__Output {
  id: string;
  type: string;
  created_at: string;
  account_id: string;
  sequence: number;
  data_json: string;
}
