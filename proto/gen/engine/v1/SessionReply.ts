// Original file: proto/engine/v1/engine.proto

export interface SessionReply {
  id?: number;
  code?: number;
  details?: string;
  payload?: Buffer | Uint8Array | string;
  error?: string;
}

export interface SessionReply__Output {
  id: number;
  code: number;
  details: string;
  payload: Buffer;
  error: string;
}
