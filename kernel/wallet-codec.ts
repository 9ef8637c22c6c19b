// A protobuf codec (kernel/protobuf-message.ts) for the hottest call in the system,
// wallet.v1.Wallet/ValidateApiKey, and the service definition and client factory that plug it in. proto-loader
// encodes through protobufjs (fromObject, a Writer that allocates an operation list, toObject with defaults):
// several µs and a dozen objects per message on each side. This codec writes each message into one
// exactly-sized Buffer and reads it back into one plain object, with the same result as proto-loader under
// kernel/grpc.ts's loader options (keepCase, longs: Number, defaults: true). Wire format:
// proto/wallet/v1/wallet.proto; kernel/wallet-codec.test.ts checks both directions against protobufjs,
// unknown fields included. Every other method keeps proto-loader.
import * as grpc from "@grpc/grpc-js";
import { loadWalletProto } from "./grpc.js";
import { decodeMessage, encodeMessage, messageCodec } from "./protobuf-message.js";
import type { WalletClient, WalletDefinition } from "../proto/gen/wallet/v1/Wallet.js";
import type {
  ValidateApiKeyRequest,
  ValidateApiKeyRequest__Output,
} from "../proto/gen/wallet/v1/ValidateApiKeyRequest.js";
import type {
  ValidateApiKeyResponse,
  ValidateApiKeyResponse__Output,
} from "../proto/gen/wallet/v1/ValidateApiKeyResponse.js";

const REQUEST = messageCodec<ValidateApiKeyRequest__Output>(
  "string key = 1; string secret = 2; string ip = 3; string permission = 4",
);
const RESPONSE = messageCodec<ValidateApiKeyResponse__Output>(
  "bool valid = 1; string user_id = 2; string key_id = 3; repeated string permissions = 4; int64 expires_at_ms = 5; " +
    "string code = 6; repeated string ip_whitelist = 7",
);

/** Encodes a ValidateApiKeyRequest; empty fields are left out (proto3 default values). */
export const encodeValidateRequest = (request: ValidateApiKeyRequest): Buffer => encodeMessage(REQUEST, request);

/** Decodes a ValidateApiKeyRequest with every field present (defaults: true); unknown fields are skipped. */
export const decodeValidateRequest = (buf: Buffer): ValidateApiKeyRequest__Output => decodeMessage(REQUEST, buf);

/**
 * Encodes a ValidateApiKeyResponse. Scalars at their default (false, "", 0) are left out; repeated fields
 * write every element.
 */
export const encodeValidateResponse = (response: ValidateApiKeyResponse): Buffer => encodeMessage(RESPONSE, response);

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
export const decodeValidateResponse = (buf: Buffer): ValidateApiKeyResponse__Output => decodeMessage(RESPONSE, buf);

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
