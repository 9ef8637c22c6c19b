// Original file: proto/engine/v1/engine.proto

export interface ClientOrderRef {
  user_id?: string;
  account_id?: string;
  client_id?: string;
}

export interface ClientOrderRef__Output {
  user_id: string;
  account_id: string;
  client_id: string;
}
