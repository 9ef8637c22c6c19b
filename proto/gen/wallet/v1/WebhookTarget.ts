// Original file: proto/wallet/v1/wallet.proto

import type { Long } from "@grpc/proto-loader";

export interface WebhookTarget {
  api_key_id?: string;
  user_id?: string;
  url?: string;
  secret?: string;
  expires_at_ms?: number | string | Long;
}

export interface WebhookTarget__Output {
  api_key_id: string;
  user_id: string;
  url: string;
  secret: string;
  expires_at_ms: number;
}
