// Original file: proto/wallet/v1/wallet.proto

export interface ListApiKeysRequest {
  user_id?: string;
}

export interface ListApiKeysRequest__Output {
  user_id: string;
}
