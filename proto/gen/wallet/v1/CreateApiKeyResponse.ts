// Original file: proto/wallet/v1/wallet.proto

import type {
  ApiKey as _wallet_v1_ApiKey,
  ApiKey__Output as _wallet_v1_ApiKey__Output,
} from "../../wallet/v1/ApiKey.js";

export interface CreateApiKeyResponse {
  api_key?: _wallet_v1_ApiKey | null;
  key?: string;
  secret?: string;
  webhook_secret?: string;
  _webhook_secret?: "webhook_secret";
}

export interface CreateApiKeyResponse__Output {
  api_key: _wallet_v1_ApiKey__Output | null;
  key: string;
  secret: string;
  webhook_secret?: string;
  _webhook_secret?: "webhook_secret";
}
