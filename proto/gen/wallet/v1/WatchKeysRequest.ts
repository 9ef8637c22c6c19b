// Original file: proto/wallet/v1/wallet.proto

import type {
  KeyUseBatch as _wallet_v1_KeyUseBatch,
  KeyUseBatch__Output as _wallet_v1_KeyUseBatch__Output,
} from "../../wallet/v1/KeyUseBatch.js";
import type { Long } from "@grpc/proto-loader";

export interface WatchKeysRequest {
  ping?: number | string | Long;
  ack?: number | string | Long;
  used?: _wallet_v1_KeyUseBatch | null;
  kind?: "ping" | "ack" | "used";
}

export interface WatchKeysRequest__Output {
  ping?: number;
  ack?: number;
  used?: _wallet_v1_KeyUseBatch__Output | null;
  kind?: "ping" | "ack" | "used";
}
