// Original file: proto/wallet/v1/wallet.proto

export interface CreateApiKeyRequest {
  user_id?: string;
  label?: string;
  permissions?: string[];
  ip_whitelist?: string[];
  webhook_url?: string;
  expires_at?: string;
  _webhook_url?: "webhook_url";
  _expires_at?: "expires_at";
}

export interface CreateApiKeyRequest__Output {
  user_id: string;
  label: string;
  permissions: string[];
  ip_whitelist: string[];
  webhook_url?: string;
  expires_at?: string;
  _webhook_url?: "webhook_url";
  _expires_at?: "expires_at";
}
