// Original file: proto/wallet/v1/wallet.proto

export interface ValidateApiKeyRequest {
  key?: string;
  secret?: string;
  ip?: string;
  permission?: string;
}

export interface ValidateApiKeyRequest__Output {
  key: string;
  secret: string;
  ip: string;
  permission: string;
}
