// Original file: proto/engine/v1/engine.proto

import type { Long } from "@grpc/proto-loader";

export interface WatchAccountRequest {
  user_id?: string;
  account_id?: string;
  after?: number | string | Long;
  _after?: "after";
}

export interface WatchAccountRequest__Output {
  user_id: string;
  account_id: string;
  after?: number;
  _after?: "after";
}
