import * as grpc from "@grpc/grpc-js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bearerCheck } from "./internal-token.js";
import { unary } from "./grpc.js";

describe("bearerCheck", () => {
  const token = "0123456789abcdef0123456789abcdef0123456789abcdef";
  const check = bearerCheck(token);

  it("accepts exactly `Bearer <token>`", () => {
    expect(check(`Bearer ${token}`)).toBe(true);
    for (const wrong of [
      "",
      "Bearer ",
      `Bearer ${token.slice(0, -1)}`,
      `Bearer ${token}0`,
      `bearer ${token}`,
      `Bearer ${token.slice(0, -1)}\u0100`,
      `Bearer ${token}\u0000`,
      token,
    ]) {
      expect(check(wrong), JSON.stringify(wrong)).toBe(false);
    }
    expect(check(Buffer.from(`Bearer ${token}`))).toBe(false);
    expect(check(undefined)).toBe(false);
  });

  it("agrees with string equality on any input", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.constant(`Bearer ${token}`)), (value) => {
        expect(check(value)).toBe(value === `Bearer ${token}`);
      }),
    );
    // One character changed anywhere, any character.
    fc.assert(
      fc.property(fc.nat({ max: token.length + 6 }), fc.integer({ min: 1, max: 0xffff }), (at, code) => {
        const good = `Bearer ${token}`;
        const bad = good.slice(0, at) + String.fromCharCode(good.charCodeAt(at) ^ code) + good.slice(at + 1);
        expect(check(bad)).toBe(false);
      }),
    );
  });

  it("accepts anything when no token is configured", () => {
    expect(bearerCheck(undefined)(undefined)).toBe(true);
  });
});

describe("unary wrapper: internal token", () => {
  const invoke = (header: string | undefined): { code: number | undefined } => {
    const handler = unary("M", () => ({ ok: true }), { internalToken: "t0k3n" });
    const metadata = new grpc.Metadata();
    if (header !== undefined) metadata.set("authorization", header);
    let code: number | undefined = -1;
    handler({ metadata, request: {} } as unknown as grpc.ServerUnaryCall<object, object>, (error) => {
      code = error?.code;
    });
    return { code };
  };

  it("answers UNAUTHENTICATED without the right header, and calls through with it", () => {
    expect(invoke(undefined).code).toBe(grpc.status.UNAUTHENTICATED);
    expect(invoke("Bearer t0k3N").code).toBe(grpc.status.UNAUTHENTICATED);
    expect(invoke("Bearer t0k3n").code).toBeUndefined();
  });
});
