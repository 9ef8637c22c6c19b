// Original file: proto/wallet/v1/wallet.proto

export interface GetWebhookTargetsRequest {
  user_ids?: string[];
  key_ids?: string[];
}

export interface GetWebhookTargetsRequest__Output {
  user_ids: string[];
  key_ids: string[];
}
