// Original file: proto/engine/v1/engine.proto

export interface AccountRef {
  user_id?: string;
  account_id?: string;
}

export interface AccountRef__Output {
  user_id: string;
  account_id: string;
}
