// Original file: proto/wallet/v1/wallet.proto

import type {
  ApiKey as _wallet_v1_ApiKey,
  ApiKey__Output as _wallet_v1_ApiKey__Output,
} from "../../wallet/v1/ApiKey.js";

export interface ListApiKeysResponse {
  api_keys?: _wallet_v1_ApiKey[];
}

export interface ListApiKeysResponse__Output {
  api_keys: _wallet_v1_ApiKey__Output[];
}
