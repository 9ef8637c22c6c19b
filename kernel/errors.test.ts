import { describe, expect, it } from "vitest";
import { Metadata, status } from "@grpc/grpc-js";
import { ERROR_CODES, ServiceError, fromGrpcError, toGrpcStatus, type ErrorCode } from "./errors.js";

describe("error registry", () => {
  it.each(Object.keys(ERROR_CODES) as ErrorCode[])("round-trips %s across a gRPC status unchanged", (code) => {
    const original = new ServiceError(code, { limit: 10 });
    const encoded = toGrpcStatus(original);
    const decoded = fromGrpcError({ ...encoded, message: "x" });
    expect(decoded.code).toBe(code);
    expect(decoded.httpStatus).toBe(ERROR_CODES[code].http);
    expect(decoded.body()).toEqual({ error: ERROR_CODES[code].wire, limit: 10 });
  });

  it("maps a foreign error to 500 engine_error without leaking its message into the body", () => {
    const encoded = toGrpcStatus(new Error("db password is hunter2"));
    expect(encoded.code).toBe(status.INTERNAL);
    const decoded = fromGrpcError(encoded);
    expect(decoded.body()).toEqual({ error: "engine_error" });
  });

  it.each([
    [status.INVALID_ARGUMENT, 400, "invalid_payload"],
    [status.UNAUTHENTICATED, 401, "unauthorized"],
    [status.PERMISSION_DENIED, 403, "permission_denied"],
    [status.NOT_FOUND, 404, "not_found"],
    [status.ALREADY_EXISTS, 409, "conflict"],
    [status.ABORTED, 409, "conflict"],
    [status.RESOURCE_EXHAUSTED, 429, "rate_limited"],
    [status.UNAVAILABLE, 500, "engine_error"],
    [status.UNKNOWN, 500, "engine_error"],
  ])("maps bare gRPC status %i to HTTP %i %s", (grpcCode, http, wire) => {
    const decoded = fromGrpcError({ code: grpcCode, details: "d", metadata: new Metadata() });
    expect(decoded.httpStatus).toBe(http);
    expect(decoded.body().error).toBe(wire);
  });

  it("keeps the seed's IP message for ip_not_whitelisted", () => {
    expect(new ServiceError("ip_not_whitelisted").body()).toEqual({ error: "IP not whitelisted for this API key" });
  });
});
