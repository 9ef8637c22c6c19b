// Original file: proto/wallet/v1/wallet.proto

export interface DisableWebhookRequest {
  api_key_id?: string;
}

export interface DisableWebhookRequest__Output {
  api_key_id: string;
}
