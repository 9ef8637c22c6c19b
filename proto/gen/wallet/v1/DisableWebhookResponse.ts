// Original file: proto/wallet/v1/wallet.proto

export interface DisableWebhookResponse {
  disabled?: boolean;
}

export interface DisableWebhookResponse__Output {
  disabled: boolean;
}
