// Original file: proto/engine/v1/engine.proto

import type { Long } from "@grpc/proto-loader";

export interface ListEventsRequest {
  user_id?: string;
  account_id?: string;
  after?: number | string | Long;
  limit?: number;
}

export interface ListEventsRequest__Output {
  user_id: string;
  account_id: string;
  after: number;
  limit: number;
}
