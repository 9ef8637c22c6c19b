// Original file: proto/wallet/v1/wallet.proto

export interface RevokeApiKeyRequest {
  user_id?: string;
  id?: string;
}

export interface RevokeApiKeyRequest__Output {
  user_id: string;
  id: string;
}
