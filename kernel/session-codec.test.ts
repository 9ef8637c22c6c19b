// The EngineSession frame codec against protobufjs (proto-loader's serializers for EngineSession/Open), in both
// directions, unknown fields included; and the payload is a view of the frame, not a copy.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadEngineProto } from "./grpc.js";
import { text, unknownField, utf8, withUnknown } from "./protobuf.testing.js";
import {
  decodeSessionReply,
  decodeSessionRequest,
  encodeSessionReply,
  encodeSessionRequest,
  type SessionReply,
  type SessionRequest,
} from "./session-codec.js";

const reference = loadEngineProto().engine.v1.EngineSession.service.Open;

const uint32 = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 }), fc.nat({ max: 0xffff_ffff }));
const bytes = fc.oneof(
  fc.constant(Buffer.alloc(0)),
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
);

const requestArb = fc.record({
  id: uint32,
  method: text,
  payload: bytes,
  requestId: text,
  traceparent: text,
  budgetMs: uint32,
});
const replyArb = fc.record({ id: uint32, code: uint32, details: text, payload: bytes, error: text });

/** The proto-loader form of a frame (snake_case, defaults on). */
const wireRequest = (r: SessionRequest) => ({
  id: r.id,
  method: r.method,
  payload: r.payload,
  request_id: r.requestId,
  traceparent: r.traceparent,
  budget_ms: r.budgetMs,
});
const wireReply = (r: SessionReply) => ({
  id: r.id,
  code: r.code,
  details: r.details,
  payload: r.payload,
  error: r.error,
});

describe("EngineSession frame codec", () => {
  it("requests: protobufjs reads what the codec writes, and the other way round", () => {
    fc.assert(
      fc.property(requestArb, fc.array(unknownField, { maxLength: 4 }), (request, unknown) => {
        const expected: SessionRequest = {
          ...request,
          method: utf8(request.method),
          requestId: utf8(request.requestId),
          traceparent: utf8(request.traceparent),
        };
        expect(reference.requestDeserialize(encodeSessionRequest(request))).toEqual(wireRequest(expected));
        const theirs = withUnknown(reference.requestSerialize(wireRequest(request)), unknown);
        expect(decodeSessionRequest(theirs)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it("replies: protobufjs reads what the codec writes, and the other way round", () => {
    fc.assert(
      fc.property(replyArb, fc.array(unknownField, { maxLength: 4 }), (reply, unknown) => {
        const expected: SessionReply = { ...reply, details: utf8(reply.details), error: utf8(reply.error) };
        expect(reference.responseDeserialize(encodeSessionReply(reply))).toEqual(wireReply(expected));
        const theirs = withUnknown(reference.responseSerialize(wireReply(reply)), unknown);
        expect(decodeSessionReply(theirs)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it("empty frames decode to every default; defaults encode to nothing", () => {
    const empty = Buffer.alloc(0);
    expect(decodeSessionRequest(empty)).toEqual({
      id: 0,
      method: "",
      payload: empty,
      requestId: "",
      traceparent: "",
      budgetMs: 0,
    });
    expect(decodeSessionReply(empty)).toEqual({ id: 0, code: 0, details: "", payload: empty, error: "" });
    expect(encodeSessionReply({ id: 0, code: 0, details: "", payload: empty, error: "" }).length).toBe(0);
  });

  it("the payload is a view into the frame (no copy)", () => {
    const frame = encodeSessionRequest({
      id: 7,
      method: "PlaceOrder",
      payload: Buffer.from([1, 2, 3]),
      requestId: "r",
      traceparent: "",
      budgetMs: 1_500,
    });
    const decoded = decodeSessionRequest(frame);
    expect(decoded.payload.buffer).toBe(frame.buffer);
    expect([...decoded.payload]).toEqual([1, 2, 3]);
  });

  it("truncated input throws instead of inventing fields", () => {
    const full = encodeSessionReply({ id: 300, code: 5, details: "no", payload: Buffer.from("abc"), error: "{}" });
    for (let cut = 1; cut < full.length; cut++) {
      const head = full.subarray(0, cut);
      let decoded: SessionReply | undefined;
      try {
        decoded = decodeSessionReply(head);
      } catch (error) {
        expect(error).toBeInstanceOf(RangeError);
        continue;
      }
      // A cut on a field boundary is a shorter valid frame: protobufjs reads the same.
      expect(wireReply(decoded)).toEqual(reference.responseDeserialize(head));
    }
  });
});
