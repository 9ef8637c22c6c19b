// RATE_LIMIT_MAX_DELAY_MS: its default, and the values the gateway refuses to start with.
import { describe, expect, it } from "vitest";
import { ConfigError } from "../kernel/config.js";
import { loadGatewaySettings } from "./config.js";

describe("gateway gRPC deadline", () => {
  it("defaults to 1.5 s for every wallet and engine call, under the 2 s a failing request may take", () => {
    expect(loadGatewaySettings({}).GRPC_DEADLINE_MS).toBe(1_500);
    expect(loadGatewaySettings({ GRPC_DEADLINE_MS: "800" }).GRPC_DEADLINE_MS).toBe(800);
  });
});

describe("gateway rate-limit settings", () => {
  it("default to 1200 per 60 s, holding a request up to 100 ms for a slot that frees", () => {
    expect(loadGatewaySettings({})).toMatchObject({
      RATE_LIMIT_MAX: 1200,
      RATE_LIMIT_WINDOW_MS: 60_000,
      RATE_LIMIT_MAX_DELAY_MS: 100,
    });
  });

  it("read RATE_LIMIT_MAX_DELAY_MS, 0 meaning never hold", () => {
    expect(loadGatewaySettings({ RATE_LIMIT_MAX_DELAY_MS: "0" }).RATE_LIMIT_MAX_DELAY_MS).toBe(0);
    expect(
      loadGatewaySettings({ RATE_LIMIT_WINDOW_MS: "2000", RATE_LIMIT_MAX_DELAY_MS: "1999" }).RATE_LIMIT_MAX_DELAY_MS,
    ).toBe(1999);
  });

  it.each([
    [{ RATE_LIMIT_MAX_DELAY_MS: "-1" }],
    [{ RATE_LIMIT_MAX_DELAY_MS: "2.5" }],
    [{ RATE_LIMIT_MAX_DELAY_MS: "soon" }],
    [{ RATE_LIMIT_WINDOW_MS: "2000", RATE_LIMIT_MAX_DELAY_MS: "2000" }],
    [{ RATE_LIMIT_WINDOW_MS: "100" }],
  ])("refuse a max delay that is not a whole number of ms below the window: %o", (env) => {
    expect(() => loadGatewaySettings(env)).toThrow(ConfigError);
    expect(() => loadGatewaySettings(env)).toThrow(/RATE_LIMIT_MAX_DELAY_MS/);
  });
});

describe("gateway number settings", () => {
  it("take plain decimal digits", () => {
    expect(
      loadGatewaySettings({
        HTTP_PORT: "0",
        WALLET_HTTP_PORT: "65535",
        WALLET_GRPC_PORT: "50052",
        ENGINE_GRPC_PORT: "6000",
        RATE_LIMIT_MAX: "1",
        BODY_LIMIT_BYTES: "1024",
        KEY_CACHE_TTL_MS: "1000",
        KEY_CACHE_MAX_ENTRIES: "5",
        AUTH_FAILURE_LIMIT: "0",
      }),
    ).toMatchObject({
      HTTP_PORT: 0,
      WALLET_HTTP_PORT: 65_535,
      WALLET_GRPC_PORT: 50_052,
      ENGINE_GRPC_PORT: 6000,
      RATE_LIMIT_MAX: 1,
      BODY_LIMIT_BYTES: 1024,
      KEY_CACHE_TTL_MS: 1000,
      KEY_CACHE_MAX_ENTRIES: 5,
      AUTH_FAILURE_LIMIT: 0,
    });
  });

  it("limit failed authentications per address by default", () => {
    expect(loadGatewaySettings({})).toMatchObject({
      AUTH_FAILURE_LIMIT: 30,
      AUTH_FAILURE_WINDOW_MS: 60_000,
      AUTH_FAILURE_MAX_ADDRESSES: 100_000,
    });
  });

  it.each([
    ["HTTP_PORT", " "],
    ["HTTP_PORT", "8e3"],
    ["HTTP_PORT", "0x1F90"],
    ["HTTP_PORT", "65536"],
    ["WALLET_HTTP_PORT", "0x1F99"],
    ["WALLET_GRPC_PORT", "+50052"],
    ["ENGINE_GRPC_PORT", "50051.0"],
    ["RATE_LIMIT_MAX", "1e3"],
    ["RATE_LIMIT_WINDOW_MS", " 60000"],
    ["RATE_LIMIT_MAX_DELAY_MS", " "],
    ["BODY_LIMIT_BYTES", "Infinity"],
    ["KEY_CACHE_TTL_MS", "1e100"],
    ["KEY_CACHE_MAX_ENTRIES", "99999999999999999999"],
    ["GRPC_DEADLINE_MS", "1.5e3"],
    ["GRPC_DEADLINE_MS", "0"],
  ])("stop at %s=%j, naming it", (name, value) => {
    expect(() => loadGatewaySettings({ [name]: value })).toThrow(ConfigError);
    expect(() => loadGatewaySettings({ [name]: value })).toThrow(new RegExp(`${name}: must be a whole number`));
  });
});

describe("gateway gRPC targets", () => {
  it("default to HOST and the gRPC ports, an IPv6 HOST in brackets", () => {
    expect(loadGatewaySettings({})).toMatchObject({
      WALLET_GRPC_TARGET: "127.0.0.1:50052",
      ENGINE_GRPC_TARGET: "127.0.0.1:50051",
      ENGINE_GRPC_TARGETS: ["127.0.0.1:50051"],
    });
    expect(loadGatewaySettings({ HOST: "::1", ENGINE_GRPC_PORT: "6000" })).toMatchObject({
      HOST: "::1",
      WALLET_GRPC_TARGET: "[::1]:50052",
      ENGINE_GRPC_TARGET: "[::1]:6000",
      ENGINE_GRPC_TARGETS: ["[::1]:6000"],
    });
    // Beyond loopback the gateway needs both tokens (kernel/listen-guard.ts).
    const tokens = { INTERNAL_TOKEN: "0123456789abcdef", WALLET_ADMIN_TOKEN: "fedcba9876543210" };
    expect(loadGatewaySettings({ HOST: "::", ...tokens }).WALLET_GRPC_TARGET).toBe("[::]:50052");
    expect(loadGatewaySettings({ HOST: "wallet.internal", ...tokens }).WALLET_GRPC_TARGET).toBe(
      "wallet.internal:50052",
    );
  });

  it("keep explicit targets, bracketed IPv6 ones included", () => {
    expect(
      loadGatewaySettings({ HOST: "::1", WALLET_GRPC_TARGET: "[::1]:7000", ENGINE_GRPC_TARGETS: "[::1]:7001,e1:7002" }),
    ).toMatchObject({ WALLET_GRPC_TARGET: "[::1]:7000", ENGINE_GRPC_TARGETS: ["[::1]:7001", "e1:7002"] });
  });
});

describe("gateway OTEL_* settings", () => {
  it("accept the documented production values", () => {
    expect(() =>
      loadGatewaySettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://otel-collector:4318",
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.1",
      }),
    ).not.toThrow();
  });

  it.each([
    ["OTEL_TRACES_SAMPLER", "ratio"],
    ["OTEL_TRACES_SAMPLER_ARG", "10"],
    ["OTEL_EXPORTER_OTLP_ENDPOINT", "otel-collector:4318"],
    ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "ftp://collector/v1/traces"],
    ["OTEL_TRACES_EXPORTER", "jaeger"],
  ])("stop at %s=%j, naming it", (name, value) => {
    expect(() => loadGatewaySettings({ [name]: value })).toThrow(new RegExp(`${name}: `));
  });
});
