// A hand-written protobuf codec for the hottest call in the system, wallet.v1.Wallet/ValidateApiKey, and the
// service definition and client factory that plug it in. proto-loader encodes through protobufjs (fromObject,
// a Writer that allocates an operation list, toObject with defaults): several µs and a dozen objects per
// message on each side. This codec writes each message into one exactly-sized Buffer and reads it back into
// one plain object, with the same result as proto-loader under kernel/grpc.ts's loader options (keepCase,
// longs: Number, defaults: true). Wire format: proto/wallet/v1/wallet.proto; kernel/wallet-codec.test.ts
// checks both directions against protobufjs, unknown fields included. Every other method keeps proto-loader.
import * as grpc from "@grpc/grpc-js";
import type { Long } from "@grpc/proto-loader";
import { loadWalletProto } from "./grpc.js";
import { LEN, Reader, VARINT, stringFieldSize, utf8Length, writeString, writeVarint32 } from "./protobuf-wire.js";
import type { WalletClient, WalletDefinition } from "../proto/gen/wallet/v1/Wallet.js";
import type {
  ValidateApiKeyRequest,
  ValidateApiKeyRequest__Output,
} from "../proto/gen/wallet/v1/ValidateApiKeyRequest.js";
import type {
  ValidateApiKeyResponse,
  ValidateApiKeyResponse__Output,
} from "../proto/gen/wallet/v1/ValidateApiKeyResponse.js";

const TWO_32 = 4_294_967_296;
const TWO_63 = 9_223_372_036_854_775_808;

// int64 as two unsigned 32-bit halves, kept in module state so encoding allocates nothing.
let int64Lo = 0;
let int64Hi = 0;

/**
 * Splits an int64 field value into `int64Lo`/`int64Hi` (two's complement), as protobufjs's fromObject does
 * for a number (Long.fromNumber: NaN is 0, fractions truncate, out-of-range values saturate), a decimal
 * string or a Long.
 */
function splitInt64(value: number | string | Long): void {
  if (typeof value === "number") {
    let n = Number.isNaN(value) ? 0 : Math.trunc(value);
    if (n >= TWO_63) {
      int64Lo = 0xffff_ffff;
      int64Hi = 0x7fff_ffff;
      return;
    }
    if (n <= -TWO_63) {
      int64Lo = 0;
      int64Hi = 0x8000_0000;
      return;
    }
    const negative = n < 0;
    if (negative) n = -n;
    let lo = n % TWO_32;
    let hi = (n - lo) / TWO_32;
    if (negative) {
      lo = ~lo + 1;
      hi = ~hi + (lo >>> 0 === 0 ? 1 : 0);
    }
    int64Lo = lo >>> 0;
    int64Hi = hi >>> 0;
    return;
  }
  const big = BigInt.asUintN(
    64,
    typeof value === "string" ? BigInt(value) : (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0),
  );
  int64Lo = Number(big & 0xffff_ffffn);
  int64Hi = Number(big >> 32n);
}

function varint64Size(lo: number, hi: number): number {
  let size = 1;
  while (hi !== 0 || lo > 0x7f) {
    lo = ((lo >>> 7) | (hi << 25)) >>> 0;
    hi >>>= 7;
    size++;
  }
  return size;
}

function writeVarint64(buf: Buffer, pos: number, lo: number, hi: number): number {
  while (hi !== 0) {
    buf[pos++] = (lo & 0x7f) | 0x80;
    lo = ((lo >>> 7) | (hi << 25)) >>> 0;
    hi >>>= 7;
  }
  return writeVarint32(buf, pos, lo);
}

/** Signed int64 (`lo`, `hi` unsigned halves) as a number, as protobufjs's LongBits.toNumber does. */
function int64ToNumber(lo: number, hi: number): number {
  if (hi >>> 31 === 0) return lo + hi * TWO_32;
  lo = (~lo + 1) >>> 0;
  hi = ~hi >>> 0;
  if (lo === 0) hi = (hi + 1) >>> 0;
  return -(lo + hi * TWO_32);
}

// ---------------------------------------------------------------- ValidateApiKeyRequest

// Tags: field number << 3 | wire type.
const REQ_KEY = (1 << 3) | LEN;
const REQ_SECRET = (2 << 3) | LEN;
const REQ_IP = (3 << 3) | LEN;
const REQ_PERMISSION = (4 << 3) | LEN;

/** Encodes a ValidateApiKeyRequest; empty fields are left out (proto3 default values). */
export function encodeValidateRequest(request: ValidateApiKeyRequest): Buffer {
  const { key, secret, ip, permission } = request;
  const keyBytes = utf8Length(key);
  const secretBytes = utf8Length(secret);
  const ipBytes = utf8Length(ip);
  const permissionBytes = utf8Length(permission);
  let size = 0;
  if (keyBytes !== 0) size += stringFieldSize(keyBytes);
  if (secretBytes !== 0) size += stringFieldSize(secretBytes);
  if (ipBytes !== 0) size += stringFieldSize(ipBytes);
  if (permissionBytes !== 0) size += stringFieldSize(permissionBytes);
  const buf = Buffer.allocUnsafe(size);
  let pos = 0;
  if (keyBytes !== 0) pos = writeString(buf, pos, REQ_KEY, key ?? "", keyBytes);
  if (secretBytes !== 0) pos = writeString(buf, pos, REQ_SECRET, secret ?? "", secretBytes);
  if (ipBytes !== 0) pos = writeString(buf, pos, REQ_IP, ip ?? "", ipBytes);
  if (permissionBytes !== 0) writeString(buf, pos, REQ_PERMISSION, permission ?? "", permissionBytes);
  return buf;
}

/** Decodes a ValidateApiKeyRequest with every field present (defaults: true); unknown fields are skipped. */
export function decodeValidateRequest(buf: Buffer): ValidateApiKeyRequest__Output {
  const out: ValidateApiKeyRequest__Output = { key: "", secret: "", ip: "", permission: "" };
  const reader = new Reader(buf, buf.length);
  while (reader.pos < reader.end) {
    const tag = reader.varint();
    switch (tag) {
      case REQ_KEY:
        out.key = reader.string();
        break;
      case REQ_SECRET:
        out.secret = reader.string();
        break;
      case REQ_IP:
        out.ip = reader.string();
        break;
      case REQ_PERMISSION:
        out.permission = reader.string();
        break;
      default:
        reader.skip(tag & 7, tag >>> 3);
    }
  }
  return out;
}

// ---------------------------------------------------------------- ValidateApiKeyResponse

const RES_VALID = (1 << 3) | VARINT;
const RES_USER_ID = (2 << 3) | LEN;
const RES_KEY_ID = (3 << 3) | LEN;
const RES_PERMISSIONS = (4 << 3) | LEN;
const RES_EXPIRES_AT_MS = (5 << 3) | VARINT;
const RES_CODE = (6 << 3) | LEN;
const RES_IP_WHITELIST = (7 << 3) | LEN;

/** Size of a repeated string field; every element is written, empty ones included. */
function repeatedSize(values: readonly string[] | null | undefined): number {
  if (values === undefined || values === null) return 0;
  let size = 0;
  for (const value of values) size += stringFieldSize(utf8Length(value));
  return size;
}

function writeRepeated(buf: Buffer, pos: number, tag: number, values: readonly string[] | null | undefined): number {
  if (values === undefined || values === null) return pos;
  for (const value of values) pos = writeString(buf, pos, tag, value, utf8Length(value));
  return pos;
}

/**
 * Encodes a ValidateApiKeyResponse. Scalars at their default (false, "", 0) are left out; repeated fields
 * write every element.
 */
export function encodeValidateResponse(response: ValidateApiKeyResponse): Buffer {
  const { valid, user_id, key_id, permissions, expires_at_ms, code, ip_whitelist } = response;
  const userIdBytes = utf8Length(user_id);
  const keyIdBytes = utf8Length(key_id);
  const codeBytes = utf8Length(code);
  let size = valid === true ? 2 : 0;
  if (userIdBytes !== 0) size += stringFieldSize(userIdBytes);
  if (keyIdBytes !== 0) size += stringFieldSize(keyIdBytes);
  size += repeatedSize(permissions);
  let hasExpiry = false;
  if (expires_at_ms !== undefined && expires_at_ms !== null && expires_at_ms !== 0) {
    splitInt64(expires_at_ms);
    hasExpiry = int64Lo !== 0 || int64Hi !== 0;
    if (hasExpiry) size += 1 + varint64Size(int64Lo, int64Hi);
  }
  if (codeBytes !== 0) size += stringFieldSize(codeBytes);
  size += repeatedSize(ip_whitelist);

  const buf = Buffer.allocUnsafe(size);
  let pos = 0;
  if (valid === true) {
    buf[pos++] = RES_VALID;
    buf[pos++] = 1;
  }
  if (userIdBytes !== 0) pos = writeString(buf, pos, RES_USER_ID, user_id ?? "", userIdBytes);
  if (keyIdBytes !== 0) pos = writeString(buf, pos, RES_KEY_ID, key_id ?? "", keyIdBytes);
  pos = writeRepeated(buf, pos, RES_PERMISSIONS, permissions);
  if (hasExpiry) {
    buf[pos++] = RES_EXPIRES_AT_MS;
    pos = writeVarint64(buf, pos, int64Lo, int64Hi);
  }
  if (codeBytes !== 0) pos = writeString(buf, pos, RES_CODE, code ?? "", codeBytes);
  writeRepeated(buf, pos, RES_IP_WHITELIST, ip_whitelist);
  return buf;
}

/** Bytes of frozen responses already encoded; weak keys, so they go with their response objects. */
const encodedResponses = new WeakMap<object, Buffer>();

/**
 * `encodeValidateResponse`, but a frozen response (one that cannot change) is encoded once and its bytes
 * reused: the wallet answers a key's validations with the same frozen object (wallet/server.ts). grpc-js copies
 * the returned bytes into its own frame, so the kept Buffer is never handed out for writing. The lists of a
 * frozen response must not change either (the wallet freezes them).
 */
export function encodeValidateResponseOnce(response: ValidateApiKeyResponse): Buffer {
  if (!Object.isFrozen(response)) return encodeValidateResponse(response);
  let bytes = encodedResponses.get(response);
  if (bytes === undefined) {
    bytes = encodeValidateResponse(response);
    encodedResponses.set(response, bytes);
  }
  return bytes;
}

/** Decodes a ValidateApiKeyResponse with every field present (defaults: true); unknown fields are skipped. */
export function decodeValidateResponse(buf: Buffer): ValidateApiKeyResponse__Output {
  const out: ValidateApiKeyResponse__Output = {
    valid: false,
    user_id: "",
    key_id: "",
    permissions: [],
    expires_at_ms: 0,
    code: "",
    ip_whitelist: [],
  };
  const reader = new Reader(buf, buf.length);
  while (reader.pos < reader.end) {
    const tag = reader.varint();
    switch (tag) {
      case RES_VALID:
        out.valid = (reader.varint() | reader.hi) !== 0;
        break;
      case RES_USER_ID:
        out.user_id = reader.string();
        break;
      case RES_KEY_ID:
        out.key_id = reader.string();
        break;
      case RES_PERMISSIONS:
        out.permissions.push(reader.string());
        break;
      case RES_EXPIRES_AT_MS: {
        const lo = reader.varint();
        out.expires_at_ms = int64ToNumber(lo, reader.hi);
        break;
      }
      case RES_CODE:
        out.code = reader.string();
        break;
      case RES_IP_WHITELIST:
        out.ip_whitelist.push(reader.string());
        break;
      default:
        reader.skip(tag & 7, tag >>> 3);
    }
  }
  return out;
}

// ---------------------------------------------------------------- service definition and client

/** Rejects what protobufjs's serializer rejects too: anything but a plain object. */
function requireObject(value: unknown, type: string): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`Failed to serialize message: expected object with ${type} structure`);
  }
}

/**
 * The Wallet service definition as proto-loader builds it, with ValidateApiKey's four (de)serializers
 * replaced by the codec above. Same paths and method names: clients and servers on either codec interoperate.
 */
export function walletServiceDefinition(): WalletDefinition {
  const service = loadWalletProto().wallet.v1.Wallet.service;
  return {
    ...service,
    ValidateApiKey: {
      ...service.ValidateApiKey,
      requestSerialize: (request: ValidateApiKeyRequest) => {
        requireObject(request, "ValidateApiKeyRequest");
        return encodeValidateRequest(request);
      },
      requestDeserialize: decodeValidateRequest,
      responseSerialize: (response: ValidateApiKeyResponse) => {
        requireObject(response, "ValidateApiKeyResponse");
        return encodeValidateResponseOnce(response);
      },
      responseDeserialize: decodeValidateResponse,
    },
  };
}

/**
 * A Wallet client like `new (loadWalletProto().wallet.v1.Wallet)(...)`, but ValidateApiKey uses the
 * hand-written codec. Keep one per process (one channel), as with the generated constructor.
 */
export function createWalletClient(
  target: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ChannelOptions,
): WalletClient {
  const Client = grpc.makeClientConstructor(walletServiceDefinition(), "wallet.v1.Wallet");
  return new Client(target, credentials, options) as unknown as WalletClient;
}
