// The codec of the frames of engine.v1.EngineSession/Open (proto/engine/v1/engine.proto): the stream that
// carries every Engine call between a gateway and an engine. Through kernel/protobuf-message.ts, a frame is
// written into one exactly-sized Buffer and read back into one plain object whose `payload` is a view into the
// frame (no copy).
// Same bytes as protobufjs under kernel/grpc.ts's loader options; kernel/session-codec.test.ts checks both
// directions against it, unknown fields included.
import { decodeMessage, encodeMessage, messageCodec } from "./protobuf-message.js";

/** The stream every Engine call travels on between a gateway and an engine (proto: engine.v1.EngineSession). */
export const ENGINE_SESSION_PATH = "/engine.v1.EngineSession/Open";

export interface SessionRequest {
  id: number;
  method: string;
  payload: Buffer;
  requestId: string;
  traceparent: string;
  /**
   * Milliseconds the caller still gives the call when it sends the frame (a relative budget, as gRPC's
   * grpc-timeout: the hosts' clocks need not agree); 0 when it set no deadline.
   */
  budgetMs: number;
}

export interface SessionReply {
  id: number;
  /** gRPC status code; 0 with `payload`. */
  code: number;
  details: string;
  payload: Buffer;
  /** The error registry's JSON (kernel/errors.ts ERROR_METADATA_KEY's value); "" when none. */
  error: string;
}

const REQUEST = messageCodec<SessionRequest>(
  "uint32 id = 1; string method = 2; bytes payload = 3; string requestId = 4; string traceparent = 5; uint32 budgetMs = 6",
);
const REPLY = messageCodec<SessionReply>(
  "uint32 id = 1; uint32 code = 2; string details = 3; bytes payload = 4; string error = 5",
);

/** Encodes a SessionRequest; fields at their proto3 default (0, "", empty bytes) are left out. */
export const encodeSessionRequest = (frame: SessionRequest): Buffer => encodeMessage(REQUEST, frame);

/** Decodes a SessionRequest; absent fields read as their defaults, unknown fields are skipped. */
export const decodeSessionRequest = (buf: Buffer): SessionRequest => decodeMessage(REQUEST, buf);

/** Encodes a SessionReply; fields at their proto3 default are left out. */
export const encodeSessionReply = (frame: SessionReply): Buffer => encodeMessage(REPLY, frame);

/** Decodes a SessionReply; absent fields read as their defaults, unknown fields are skipped. */
export const decodeSessionReply = (buf: Buffer): SessionReply => decodeMessage(REPLY, buf);
