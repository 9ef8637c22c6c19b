// Original file: proto/wallet/v1/wallet.proto

import type { Long } from "@grpc/proto-loader";

export interface KeyUse {
  key_id?: string;
  at_ms?: number | string | Long;
}

export interface KeyUse__Output {
  key_id: string;
  at_ms: number;
}
