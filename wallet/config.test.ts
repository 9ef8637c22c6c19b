import { describe, expect, it } from "vitest";
import { ConfigError } from "../kernel/config.js";
import { loadWalletSettings } from "./config.js";

describe("wallet settings", () => {
  it("fall back to the documented defaults and read plain decimal numbers", () => {
    expect(loadWalletSettings({})).toMatchObject({
      HOST: "127.0.0.1",
      WALLET_GRPC_PORT: 50_052,
      WALLET_METRICS_PORT: 9102,
      WALLET_DB_POOL_SIZE: 10,
      WALLET_DB_TIMEOUT_MS: 1_000,
      WALLET_REVOKED_POLL_MS: 500,
      WALLET_REVOKED_LOOKBACK_MS: 30_000,
      WALLET_UNKNOWN_KEY_READS: 4,
      WALLET_UNKNOWN_KEY_QUEUE: 1_000,
    });
    expect(
      loadWalletSettings({
        HOST: "::1",
        WALLET_GRPC_PORT: "0",
        WALLET_METRICS_PORT: "65535",
        WALLET_DB_POOL_SIZE: "100",
      }),
    ).toMatchObject({ HOST: "::1", WALLET_GRPC_PORT: 0, WALLET_METRICS_PORT: 65_535, WALLET_DB_POOL_SIZE: 100 });
  });

  it.each([
    ["WALLET_GRPC_PORT", " "],
    ["WALLET_GRPC_PORT", "0xC384"],
    ["WALLET_METRICS_PORT", "9.102e3"],
    ["WALLET_METRICS_PORT", "70000"],
    ["WALLET_DB_POOL_SIZE", "1e1"],
    ["WALLET_DB_POOL_SIZE", "0"],
    ["WALLET_DB_POOL_SIZE", "10.5"],
    ["WALLET_DB_TIMEOUT_MS", "1s"],
    ["WALLET_DB_TIMEOUT_MS", "10"],
  ])("stop at %s=%j, naming it", (name, value) => {
    expect(() => loadWalletSettings({ [name]: value })).toThrow(ConfigError);
    expect(() => loadWalletSettings({ [name]: value })).toThrow(new RegExp(`${name}: must be a whole number`));
  });

  it("stops when the revocation poll's overlap does not exceed the database timeout", () => {
    expect(() => loadWalletSettings({ WALLET_DB_TIMEOUT_MS: "5000", WALLET_REVOKED_LOOKBACK_MS: "5000" })).toThrow(
      /WALLET_REVOKED_LOOKBACK_MS: must be above WALLET_DB_TIMEOUT_MS/,
    );
  });

  it.each([
    ["OTEL_TRACES_SAMPLER", "always"],
    ["OTEL_TRACES_SAMPLER_ARG", "half"],
    ["OTEL_EXPORTER_OTLP_ENDPOINT", "http://"],
    ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "collector:4318/v1/traces"],
    ["OTEL_TRACES_EXPORTER", "prometheus"],
  ])("stop at %s=%j, naming it", (name, value) => {
    expect(() => loadWalletSettings({ [name]: value })).toThrow(new RegExp(`${name}: `));
  });
});
