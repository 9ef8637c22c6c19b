// Original file: proto/wallet/v1/wallet.proto

import type {
  WebhookTarget as _wallet_v1_WebhookTarget,
  WebhookTarget__Output as _wallet_v1_WebhookTarget__Output,
} from "../../wallet/v1/WebhookTarget.js";

export interface GetWebhookTargetsResponse {
  targets?: _wallet_v1_WebhookTarget[];
}

export interface GetWebhookTargetsResponse__Output {
  targets: _wallet_v1_WebhookTarget__Output[];
}
