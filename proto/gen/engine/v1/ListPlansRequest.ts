// Original file: proto/engine/v1/engine.proto

export interface ListPlansRequest {}

export interface ListPlansRequest__Output {}
