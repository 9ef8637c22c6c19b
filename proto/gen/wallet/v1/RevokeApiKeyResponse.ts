// Original file: proto/wallet/v1/wallet.proto

export interface RevokeApiKeyResponse {
  id?: string;
  revoked_at?: string;
}

export interface RevokeApiKeyResponse__Output {
  id: string;
  revoked_at: string;
}
