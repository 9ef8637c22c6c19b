// Original file: proto/wallet/v1/wallet.proto

export interface WebhookTarget {
  api_key_id?: string;
  user_id?: string;
  url?: string;
  secret?: string;
}

export interface WebhookTarget__Output {
  api_key_id: string;
  user_id: string;
  url: string;
  secret: string;
}
