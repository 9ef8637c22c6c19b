// Original file: proto/wallet/v1/wallet.proto

export interface ApiKey {
  id?: string;
  key_prefix?: string;
  label?: string;
  permissions?: string[];
  ip_whitelist?: string[];
  webhook_url?: string;
  expires_at?: string;
  created_at?: string;
  last_used_at?: string;
  _webhook_url?: "webhook_url";
  _expires_at?: "expires_at";
  _last_used_at?: "last_used_at";
}

export interface ApiKey__Output {
  id: string;
  key_prefix: string;
  label: string;
  permissions: string[];
  ip_whitelist: string[];
  webhook_url?: string;
  expires_at?: string;
  created_at: string;
  last_used_at?: string;
  _webhook_url?: "webhook_url";
  _expires_at?: "expires_at";
  _last_used_at?: "last_used_at";
}
