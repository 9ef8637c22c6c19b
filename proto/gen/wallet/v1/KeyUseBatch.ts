// Original file: proto/wallet/v1/wallet.proto

import type {
  KeyUse as _wallet_v1_KeyUse,
  KeyUse__Output as _wallet_v1_KeyUse__Output,
} from "../../wallet/v1/KeyUse.js";

export interface KeyUseBatch {
  uses?: _wallet_v1_KeyUse[];
}

export interface KeyUseBatch__Output {
  uses: _wallet_v1_KeyUse__Output[];
}
