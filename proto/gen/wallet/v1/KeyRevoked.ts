// Original file: proto/wallet/v1/wallet.proto

import type { Long } from "@grpc/proto-loader";

export interface KeyRevoked {
  seq?: number | string | Long;
  key_id?: string;
  key_hash?: string;
}

export interface KeyRevoked__Output {
  seq: number;
  key_id: string;
  key_hash: string;
}
