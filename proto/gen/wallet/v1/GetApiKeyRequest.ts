// Original file: proto/wallet/v1/wallet.proto

export interface GetApiKeyRequest {
  user_id?: string;
  id?: string;
}

export interface GetApiKeyRequest__Output {
  user_id: string;
  id: string;
}
