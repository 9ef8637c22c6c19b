// Original file: proto/wallet/v1/wallet.proto

import type {
  KeyRevoked as _wallet_v1_KeyRevoked,
  KeyRevoked__Output as _wallet_v1_KeyRevoked__Output,
} from "../../wallet/v1/KeyRevoked.js";
import type { Long } from "@grpc/proto-loader";

export interface WatchKeysEvent {
  pong?: number | string | Long;
  revoked?: _wallet_v1_KeyRevoked | null;
  kind?: "pong" | "revoked";
}

export interface WatchKeysEvent__Output {
  pong?: number;
  revoked?: _wallet_v1_KeyRevoked__Output | null;
  kind?: "pong" | "revoked";
}
