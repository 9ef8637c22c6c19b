// Original file: proto/engine/v1/engine.proto

export interface ListTickersRequest {}

export interface ListTickersRequest__Output {}
