// Original file: proto/engine/v1/engine.proto

export interface FlattenIssue {
  path?: string;
  message?: string;
}

export interface FlattenIssue__Output {
  path: string;
  message: string;
}
