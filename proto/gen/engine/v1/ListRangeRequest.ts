// Original file: proto/engine/v1/engine.proto

export interface ListRangeRequest {
  user_id?: string;
  account_id?: string;
  from?: string;
  to?: string;
  limit?: number;
  after_id?: string;
}

export interface ListRangeRequest__Output {
  user_id: string;
  account_id: string;
  from: string;
  to: string;
  limit: number;
  after_id: string;
}
