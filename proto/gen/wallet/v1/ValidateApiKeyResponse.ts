// Original file: proto/wallet/v1/wallet.proto

import type { Long } from "@grpc/proto-loader";

export interface ValidateApiKeyResponse {
  valid?: boolean;
  user_id?: string;
  key_id?: string;
  permissions?: string[];
  expires_at_ms?: number | string | Long;
  code?: string;
  ip_whitelist?: string[];
}

export interface ValidateApiKeyResponse__Output {
  valid: boolean;
  user_id: string;
  key_id: string;
  permissions: string[];
  expires_at_ms: number;
  code: string;
  ip_whitelist: string[];
}
