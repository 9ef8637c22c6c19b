// The hand-written ValidateApiKey codec against protobufjs (what proto-loader uses), in both directions:
// protobufjs must read what the codec writes, and the codec must read what protobufjs writes, unknown
// fields, empty strings, non-ASCII text and large or negative int64 values included.
import * as grpc from "@grpc/grpc-js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bindServer, loadWalletProto } from "./grpc.js";
import { text, unknownField, utf8, withUnknown } from "./protobuf.testing.js";
import {
  createWalletClient,
  decodeValidateRequest,
  decodeValidateResponse,
  encodeValidateRequest,
  encodeValidateResponse,
  encodeValidateResponseOnce,
  walletServiceDefinition,
} from "./wallet-codec.js";
import type { ValidateApiKeyRequest__Output } from "../proto/gen/wallet/v1/ValidateApiKeyRequest.js";
import type { ValidateApiKeyResponse__Output } from "../proto/gen/wallet/v1/ValidateApiKeyResponse.js";

/** proto-loader's own (de)serializers for the method: protobufjs with the repository's loader options. */
const reference = loadWalletProto().wallet.v1.Wallet.service.ValidateApiKey;

const texts = fc.array(text, { maxLength: 5 });
const int64 = fc.oneof(
  fc.constant(0),
  fc.integer({ min: -(2 ** 31), max: 2 ** 32 }),
  fc.maxSafeInteger(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 1_893_456_000_000, -1, 2 ** 32, 2 ** 53),
);

const requestArb = fc.record({ key: text, secret: text, ip: text, permission: text });
const responseArb = fc.record({
  valid: fc.boolean(),
  user_id: text,
  key_id: text,
  permissions: texts,
  expires_at_ms: int64,
  code: text,
  ip_whitelist: texts,
});

/** int64 after protobufjs (Long.fromNumber, then toNumber): integers in range survive; others truncate. */
const int64Trip = (value: number): number => Math.trunc(value);

describe("ValidateApiKey codec", () => {
  it("requests: protobufjs reads what the codec writes, and the other way round", () => {
    fc.assert(
      fc.property(requestArb, fc.array(unknownField, { maxLength: 4 }), (request, unknown) => {
        const expected = {
          key: utf8(request.key),
          secret: utf8(request.secret),
          ip: utf8(request.ip),
          permission: utf8(request.permission),
        };
        expect(reference.requestDeserialize(encodeValidateRequest(request))).toEqual(expected);
        const theirs = withUnknown(reference.requestSerialize(request), unknown);
        expect(decodeValidateRequest(theirs)).toEqual(reference.requestDeserialize(theirs));
        expect(decodeValidateRequest(theirs)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it("responses: protobufjs reads what the codec writes, and the other way round", () => {
    fc.assert(
      fc.property(responseArb, fc.array(unknownField, { maxLength: 4 }), (response, unknown) => {
        const expected: ValidateApiKeyResponse__Output = {
          valid: response.valid,
          user_id: utf8(response.user_id),
          key_id: utf8(response.key_id),
          permissions: response.permissions.map(utf8),
          expires_at_ms: int64Trip(response.expires_at_ms),
          code: utf8(response.code),
          ip_whitelist: response.ip_whitelist.map(utf8),
        };
        expect(reference.responseDeserialize(encodeValidateResponse(response))).toEqual(expected);
        const theirs = withUnknown(reference.responseSerialize(response), unknown);
        expect(decodeValidateResponse(theirs)).toEqual(reference.responseDeserialize(theirs));
        expect(decodeValidateResponse(theirs)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it("int64: fractions, saturation, strings and Longs encode as protobufjs's fromObject does", () => {
    const values = [0.9, -0.9, 1.5e3, -1_893_456_000_123, 2 ** 63, -(2 ** 63), 2 ** 64, -(2 ** 70), NaN];
    for (const value of values) {
      const ours = reference.responseDeserialize(encodeValidateResponse({ expires_at_ms: value }));
      const theirs = reference.responseDeserialize(reference.responseSerialize({ expires_at_ms: value }));
      expect(ours, String(value)).toEqual(theirs);
    }
    for (const value of ["1893456000000", "-5", "9007199254740993"]) {
      const ours = reference.responseDeserialize(encodeValidateResponse({ expires_at_ms: value }));
      const theirs = reference.responseDeserialize(reference.responseSerialize({ expires_at_ms: value }));
      expect(ours, value).toEqual(theirs);
    }
    const long = { low: -1, high: 0x7fff_ffff, unsigned: false } as const;
    expect(reference.responseDeserialize(encodeValidateResponse({ expires_at_ms: long as unknown as number }))).toEqual(
      reference.responseDeserialize(reference.responseSerialize({ expires_at_ms: long as unknown as number })),
    );
  });

  it("empty messages and absent fields decode to every default", () => {
    const none: ValidateApiKeyRequest__Output = { key: "", secret: "", ip: "", permission: "" };
    expect(decodeValidateRequest(Buffer.alloc(0))).toEqual(none);
    expect(encodeValidateRequest({}).length).toBe(0);
    expect(encodeValidateResponse({ valid: false, code: "", expires_at_ms: 0 }).length).toBe(0);
    expect(decodeValidateResponse(Buffer.alloc(0))).toEqual(reference.responseDeserialize(Buffer.alloc(0)));
    // Empty elements of a repeated field are kept.
    expect(decodeValidateResponse(encodeValidateResponse({ permissions: ["", "TRADE", ""] })).permissions).toEqual([
      "",
      "TRADE",
      "",
    ]);
  });

  it("a field repeated on the wire: the last value wins, repeated fields append", () => {
    const twice = Buffer.concat([encodeValidateRequest({ key: "a" }), encodeValidateRequest({ key: "b", ip: "x" })]);
    expect(decodeValidateRequest(twice)).toEqual(reference.requestDeserialize(twice));
    const lists = Buffer.concat([
      encodeValidateResponse({ ip_whitelist: ["10.0.0.0/8"], code: "x" }),
      encodeValidateResponse({ ip_whitelist: ["::1"], code: "y" }),
    ]);
    expect(decodeValidateResponse(lists)).toEqual(reference.responseDeserialize(lists));
  });

  it("truncated or malformed input throws instead of inventing fields", () => {
    const full = encodeValidateRequest({ key: "svc_ak_0123", secret: "s" });
    for (let cut = 1; cut < full.length; cut++) {
      const prefix = full.subarray(0, cut);
      // Every cut inside a field fails; a cut on a field boundary is a valid shorter message.
      if (cut === 13) expect(decodeValidateRequest(prefix).key).toBe("svc_ak_0123");
      else expect(() => decodeValidateRequest(prefix), `cut at ${cut}`).toThrow(RangeError);
    }
    expect(() => decodeValidateResponse(Buffer.from([0x0f]))).toThrow(RangeError); // wire type 7
    expect(() => decodeValidateResponse(Buffer.from([0x08, ...Array<number>(10).fill(0xff), 0x01]))).toThrow(
      RangeError,
    );
  });

  it("a wrong wire type on a known field is skipped as unknown", () => {
    // Field 1 (key) as a varint, then a real key.
    const odd = Buffer.concat([Buffer.from([0x08, 0x2a]), encodeValidateRequest({ key: "k" })]);
    expect(decodeValidateRequest(odd)).toEqual({ key: "k", secret: "", ip: "", permission: "" });
  });

  it("a frozen response is encoded once and its bytes reused; any other response is encoded each time", () => {
    const fields = {
      valid: true,
      user_id: "erin",
      key_id: "3f6c1f0e-2f55-4d8b-a8a4-1b2d8c3e9f70",
      permissions: Object.freeze(["READ_ONLY", "TRADE"]) as string[],
      expires_at_ms: 1_893_456_000_000,
      code: "",
      ip_whitelist: Object.freeze(["10.0.0.0/8"]) as string[],
    };
    const frozen = Object.freeze({ ...fields });
    const first = encodeValidateResponseOnce(frozen);
    expect(first.equals(encodeValidateResponse(frozen))).toBe(true);
    expect(encodeValidateResponseOnce(frozen)).toBe(first);
    // An equal but different object gets bytes of its own.
    expect(encodeValidateResponseOnce(Object.freeze({ ...fields }))).not.toBe(first);

    const open = { ...fields };
    const before = encodeValidateResponseOnce(open);
    open.user_id = "frank";
    const after = encodeValidateResponseOnce(open);
    expect(after).not.toBe(before);
    expect(decodeValidateResponse(after).user_id).toBe("frank");
  });

  it("the service definition encodes ValidateApiKey responses through encodeValidateResponseOnce", () => {
    const frozen = Object.freeze({ valid: false, code: "unauthorized" });
    const serialize = walletServiceDefinition().ValidateApiKey.responseSerialize;
    expect(serialize(frozen)).toBe(serialize(frozen));
    expect(decodeValidateResponse(serialize(frozen))).toMatchObject({ valid: false, code: "unauthorized" });
  });

  it("rejects what protobufjs rejects: a non-object message", () => {
    const definition = walletServiceDefinition().ValidateApiKey;
    expect(() => definition.requestSerialize([] as never)).toThrow(/serialize/);
    expect(() => definition.responseSerialize(null as never)).toThrow(/serialize/);
  });

  it("interoperates over gRPC with proto-loader on the other side, both ways", async () => {
    const plain = loadWalletProto().wallet.v1.Wallet;
    const answer: ValidateApiKeyResponse__Output = {
      valid: true,
      user_id: "user-1",
      key_id: "key-1",
      permissions: ["READ_ONLY", "TRADE"],
      expires_at_ms: 1_893_456_000_000,
      code: "",
      ip_whitelist: ["10.0.0.0/8", "2001:db8::/32"],
    };
    const request = { key: "svc_ak_x", secret: "svc_sk_y", ip: "10.1.2.3", permission: "TRADE" };
    for (const [serverDefinition, makeClient] of [
      [walletServiceDefinition(), (target: string) => new plain(target, grpc.credentials.createInsecure())],
      [plain.service, (target: string) => createWalletClient(target, grpc.credentials.createInsecure())],
    ] as const) {
      const server = new grpc.Server();
      const seen: unknown[] = [];
      server.addService(serverDefinition, {
        ValidateApiKey: (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
          seen.push(call.request);
          callback(null, answer);
        },
      });
      const port = await bindServer(server, "127.0.0.1", 0);
      const client = makeClient(`127.0.0.1:${port}`);
      try {
        const response = await new Promise<ValidateApiKeyResponse__Output | undefined>((resolve, reject) => {
          client.ValidateApiKey(request, (error: grpc.ServiceError | null, value?: ValidateApiKeyResponse__Output) => {
            if (error) reject(error);
            else resolve(value);
          });
        });
        expect(response).toEqual(answer);
        expect(seen).toEqual([request]);
      } finally {
        client.close();
        server.forceShutdown();
      }
    }
  });
});
