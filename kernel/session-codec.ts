// A hand-written codec for the frames of engine.v1.EngineSession/Open (proto/engine/v1/engine.proto): the
// stream that carries every Engine call between a gateway and an engine. A frame is written into one
// exactly-sized Buffer and read back into one plain object whose `payload` is a view into the frame (no copy).
// Same bytes as protobufjs under kernel/grpc.ts's loader options; kernel/session-codec.test.ts checks both
// directions against it, unknown fields included.
import {
  LEN,
  Reader,
  VARINT,
  stringFieldSize,
  utf8Length,
  varint32Size,
  writeBytes,
  writeString,
  writeVarint32,
} from "./protobuf-wire.js";

/** The stream every Engine call travels on between a gateway and an engine (proto: engine.v1.EngineSession). */
export const ENGINE_SESSION_PATH = "/engine.v1.EngineSession/Open";

export interface SessionRequest {
  id: number;
  method: string;
  payload: Buffer;
  requestId: string;
  traceparent: string;
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

const ID = (1 << 3) | VARINT;
const REQ_METHOD = (2 << 3) | LEN;
const REQ_PAYLOAD = (3 << 3) | LEN;
const REQ_REQUEST_ID = (4 << 3) | LEN;
const REQ_TRACEPARENT = (5 << 3) | LEN;
const REP_CODE = (2 << 3) | VARINT;
const REP_DETAILS = (3 << 3) | LEN;
const REP_PAYLOAD = (4 << 3) | LEN;
const REP_ERROR = (5 << 3) | LEN;

const EMPTY = Buffer.alloc(0);

const bytesFieldSize = (length: number): number => 1 + varint32Size(length) + length;

/** Encodes a SessionRequest; fields at their proto3 default (0, "", empty bytes) are left out. */
export function encodeSessionRequest(frame: SessionRequest): Buffer {
  const { id, method, payload, requestId, traceparent } = frame;
  const methodBytes = utf8Length(method);
  const requestIdBytes = utf8Length(requestId);
  const traceparentBytes = utf8Length(traceparent);
  let size = id === 0 ? 0 : 1 + varint32Size(id);
  if (methodBytes !== 0) size += stringFieldSize(methodBytes);
  if (payload.length !== 0) size += bytesFieldSize(payload.length);
  if (requestIdBytes !== 0) size += stringFieldSize(requestIdBytes);
  if (traceparentBytes !== 0) size += stringFieldSize(traceparentBytes);
  const buf = Buffer.allocUnsafe(size);
  let pos = 0;
  if (id !== 0) {
    buf[pos++] = ID;
    pos = writeVarint32(buf, pos, id);
  }
  if (methodBytes !== 0) pos = writeString(buf, pos, REQ_METHOD, method, methodBytes);
  if (payload.length !== 0) pos = writeBytes(buf, pos, REQ_PAYLOAD, payload);
  if (requestIdBytes !== 0) pos = writeString(buf, pos, REQ_REQUEST_ID, requestId, requestIdBytes);
  if (traceparentBytes !== 0) writeString(buf, pos, REQ_TRACEPARENT, traceparent, traceparentBytes);
  return buf;
}

/** Decodes a SessionRequest; absent fields read as their defaults, unknown fields are skipped. */
export function decodeSessionRequest(buf: Buffer): SessionRequest {
  const out: SessionRequest = { id: 0, method: "", payload: EMPTY, requestId: "", traceparent: "" };
  const reader = new Reader(buf, buf.length);
  while (reader.pos < reader.end) {
    const tag = reader.varint();
    switch (tag) {
      case ID:
        out.id = reader.varint();
        break;
      case REQ_METHOD:
        out.method = reader.string();
        break;
      case REQ_PAYLOAD:
        out.payload = reader.bytes();
        break;
      case REQ_REQUEST_ID:
        out.requestId = reader.string();
        break;
      case REQ_TRACEPARENT:
        out.traceparent = reader.string();
        break;
      default:
        reader.skip(tag & 7, tag >>> 3);
    }
  }
  return out;
}

/** Encodes a SessionReply; fields at their proto3 default are left out. */
export function encodeSessionReply(frame: SessionReply): Buffer {
  const { id, code, details, payload, error } = frame;
  const detailsBytes = utf8Length(details);
  const errorBytes = utf8Length(error);
  let size = id === 0 ? 0 : 1 + varint32Size(id);
  if (code !== 0) size += 1 + varint32Size(code);
  if (detailsBytes !== 0) size += stringFieldSize(detailsBytes);
  if (payload.length !== 0) size += bytesFieldSize(payload.length);
  if (errorBytes !== 0) size += stringFieldSize(errorBytes);
  const buf = Buffer.allocUnsafe(size);
  let pos = 0;
  if (id !== 0) {
    buf[pos++] = ID;
    pos = writeVarint32(buf, pos, id);
  }
  if (code !== 0) {
    buf[pos++] = REP_CODE;
    pos = writeVarint32(buf, pos, code);
  }
  if (detailsBytes !== 0) pos = writeString(buf, pos, REP_DETAILS, details, detailsBytes);
  if (payload.length !== 0) pos = writeBytes(buf, pos, REP_PAYLOAD, payload);
  if (errorBytes !== 0) writeString(buf, pos, REP_ERROR, error, errorBytes);
  return buf;
}

/** Decodes a SessionReply; absent fields read as their defaults, unknown fields are skipped. */
export function decodeSessionReply(buf: Buffer): SessionReply {
  const out: SessionReply = { id: 0, code: 0, details: "", payload: EMPTY, error: "" };
  const reader = new Reader(buf, buf.length);
  while (reader.pos < reader.end) {
    const tag = reader.varint();
    switch (tag) {
      case ID:
        out.id = reader.varint();
        break;
      case REP_CODE:
        out.code = reader.varint();
        break;
      case REP_DETAILS:
        out.details = reader.string();
        break;
      case REP_PAYLOAD:
        out.payload = reader.bytes();
        break;
      case REP_ERROR:
        out.error = reader.string();
        break;
      default:
        reader.skip(tag & 7, tag >>> 3);
    }
  }
  return out;
}
