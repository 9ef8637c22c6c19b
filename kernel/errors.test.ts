import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Metadata, status } from "@grpc/grpc-js";
import {
  ERROR_CODES,
  ERROR_METADATA_KEY,
  ServiceError,
  errorText,
  fromGrpcError,
  isBrokenCall,
  readAgainOnBreak,
  toGrpcStatus,
  unavailableBackend,
  type ErrorCode,
} from "./errors.js";

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
    [status.UNAVAILABLE, 503, "engine_unavailable"],
    [status.DEADLINE_EXCEEDED, 503, "engine_unavailable"],
    [status.UNKNOWN, 500, "engine_error"],
    [status.INTERNAL, 500, "engine_error"],
  ])("maps bare gRPC status %i to HTTP %i %s", (grpcCode, http, wire) => {
    const decoded = fromGrpcError({ code: grpcCode, details: "d", metadata: new Metadata() });
    expect(decoded.httpStatus).toBe(http);
    expect(decoded.body().error).toBe(wire);
  });

  it.each([
    [status.UNAVAILABLE, 503, "wallet_unavailable"],
    [status.DEADLINE_EXCEEDED, 503, "wallet_unavailable"],
    [status.UNKNOWN, 500, "wallet_error"],
    [status.INTERNAL, 500, "wallet_error"],
    [status.NOT_FOUND, 404, "not_found"],
  ])("names a bare gRPC status %i from the wallet for the wallet: HTTP %i %s", (grpcCode, http, wire) => {
    const decoded = fromGrpcError({ code: grpcCode, details: "d", metadata: new Metadata() }, "wallet");
    expect(decoded.httpStatus).toBe(http);
    expect(decoded.body().error).toBe(wire);
  });

  it("keeps a registry code from the trailer whichever backend is named (an engine code stays the engine's)", () => {
    const encoded = toGrpcStatus(new ServiceError("engine_unavailable"));
    expect(fromGrpcError({ ...encoded, message: "x" }, "wallet").code).toBe("engine_unavailable");
  });

  it("maps a foreign error in a wallet handler to wallet_error, never engine_error", () => {
    const encoded = toGrpcStatus(new Error("db password is hunter2"), "wallet_error");
    expect(encoded.code).toBe(status.INTERNAL);
    expect(fromGrpcError({ ...encoded, message: "x" }, "wallet").body()).toEqual({ error: "wallet_error" });
  });

  it("names which backend each unavailable code is for, and no other code", () => {
    expect(unavailableBackend("engine_unavailable")).toBe("engine");
    expect(unavailableBackend("engine_not_serving")).toBe("engine");
    expect(unavailableBackend("wallet_unavailable")).toBe("wallet");
    expect(unavailableBackend("rate_limiter_unavailable")).toBe("redis");
    const others = (Object.keys(ERROR_CODES) as ErrorCode[]).filter(
      (code) => !code.endsWith("_unavailable") && code !== "engine_not_serving",
    );
    for (const code of others) expect(unavailableBackend(code)).toBeUndefined();
    expect(ERROR_CODES.wallet_unavailable).toMatchObject({ grpc: status.UNAVAILABLE, http: 503 });
    expect(ERROR_CODES.rate_limiter_unavailable).toMatchObject({ grpc: status.UNAVAILABLE, http: 503 });
  });

  it("keeps the seed's IP message for ip_not_whitelisted", () => {
    expect(new ServiceError("ip_not_whitelisted").body()).toEqual({ error: "IP not whitelisted for this API key" });
  });
});

describe("errorText", () => {
  it("gives an Error's message and any other thrown value as text", () => {
    expect(errorText(new Error("pool closed"))).toBe("pool closed");
    expect(errorText(new ServiceError("not_found"))).toBe(new ServiceError("not_found").message);
    expect(errorText("plain")).toBe("plain");
    expect(errorText(42)).toBe("42");
    expect(errorText(undefined)).toBe("undefined");
  });
});

describe("fromGrpcError on a broken HTTP/2 session or stream", () => {
  const bare = (code: status, details: string) => ({ code, details, metadata: new Metadata() });

  it("a session closed under the call is the backend's *_unavailable (503), not its fault code", () => {
    const reset = bare(
      status.INTERNAL,
      "Received RST_STREAM with code 2 triggered by internal client error: Session closed with error code 2",
    );
    expect(fromGrpcError(reset, "wallet").code).toBe("wallet_unavailable");
    expect(fromGrpcError(reset, "engine").code).toBe("engine_unavailable");
    expect(fromGrpcError(bare(status.CANCELLED, "Received RST_STREAM with code 8"), "engine").httpStatus).toBe(503);
  });

  it("any other INTERNAL stays the fault code", () => {
    expect(fromGrpcError(bare(status.INTERNAL, "Request message serialization failure"), "wallet").code).toBe(
      "wallet_error",
    );
  });
});

describe("isBrokenCall and readAgainOnBreak", () => {
  const grpcError = (code: number, details: string, trailer?: ServiceError): Error => {
    const metadata = trailer === undefined ? new Metadata() : (toGrpcStatus(trailer).metadata as Metadata);
    return Object.assign(new Error(details), { code, details, metadata });
  };

  it("names a broken connection, session or stream, and nothing the service answered", () => {
    expect(isBrokenCall(grpcError(status.UNAVAILABLE, "session ended"))).toBe(true);
    expect(isBrokenCall(grpcError(status.INTERNAL, "Received RST_STREAM with code 2"))).toBe(true);
    expect(isBrokenCall(grpcError(status.UNAVAILABLE, "x", new ServiceError("engine_unavailable")))).toBe(false);
    expect(isBrokenCall(grpcError(status.DEADLINE_EXCEEDED, "Deadline exceeded"))).toBe(false);
    expect(isBrokenCall(grpcError(status.INTERNAL, "boom"))).toBe(false);
    expect(isBrokenCall(new Error("plain"))).toBe(false);
    expect(isBrokenCall(grpcError(status.UNAVAILABLE, "No connection established. Last error: ECONNREFUSED"))).toBe(
      false,
    );
  });

  it("sends a call once more after a break, and no more", async () => {
    let calls = 0;
    const broken = (): Promise<string> => {
      calls += 1;
      return calls === 1 ? Promise.reject(grpcError(status.UNAVAILABLE, "session ended")) : Promise.resolve("ok");
    };
    await expect(readAgainOnBreak(broken)).resolves.toBe("ok");
    expect(calls).toBe(2);
    calls = 0;
    const always = (): Promise<string> => {
      calls += 1;
      return Promise.reject(grpcError(status.UNAVAILABLE, "session ended"));
    };
    await expect(readAgainOnBreak(always)).rejects.toMatchObject({ code: status.UNAVAILABLE });
    expect(calls).toBe(2);
  });
});

describe("docs/grpc.md", () => {
  it("lists every registry code with the gRPC and REST status it leaves with, and the trailer's key", () => {
    const doc = readFileSync(new URL("../docs/grpc.md", import.meta.url), "utf8");
    const rows = [...doc.matchAll(/^\| `(\w+)` +\| `(\w+)` +\| (\d{3}) +\|$/gm)].map(([, code, grpc, http]) => [
      code,
      grpc,
      Number(http),
    ]);
    const names = Object.fromEntries(Object.entries(status).map(([name, value]) => [value, name]));
    expect(rows).toEqual(Object.entries(ERROR_CODES).map(([code, entry]) => [code, names[entry.grpc], entry.http]));
    expect(doc).toContain(`## Errors: the \`${ERROR_METADATA_KEY}\` trailer`);
  });

  it.each(["wallet/v1/wallet.proto", "engine/v1/engine.proto", "market/v1/market.proto"])(
    "is where the header comment of proto/%s sends a reader, after naming the trailer's key and its JSON",
    (file) => {
      const proto = readFileSync(new URL(`../proto/${file}`, import.meta.url), "utf8");
      const header = proto.slice(0, proto.indexOf("syntax ="));
      expect(header).toContain(`\`${ERROR_METADATA_KEY}\``);
      expect(header).toContain(`{"code": "<registry code>", "fields": {...}}`);
      expect(header).toContain("docs/grpc.md");
    },
  );
});
