import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../kernel/config.js";
import { makeTestCa } from "../test/harness/receiver.js";
import { defaultShards, loadEngineSettings } from "./config.js";

describe("engine settings", () => {
  it("fall back to the documented defaults", () => {
    const settings = loadEngineSettings({});
    expect(settings.DATABASE_URL).toBeUndefined();
    expect(settings.REDIS_URL).toBeUndefined();
    expect(settings).toMatchObject({
      HOST: "127.0.0.1",
      ENGINE_GRPC_PORT: 50051,
      ENGINE_METRICS_PORT: 9101,
      PRICE_FEED: "simulator",
      ENGINE_SHARDS: defaultShards(),
    });
  });

  it("run half as many shards as there are cores by default, at least one", () => {
    expect([1, 2, 3, 4, 8, 16].map((cores) => defaultShards(cores))).toEqual([1, 1, 1, 2, 4, 8]);
  });

  it("read every engine setting from the environment", () => {
    const settings = loadEngineSettings({
      ENGINE_GRPC_PORT: "6000",
      ENGINE_METRICS_PORT: "0",
      PRICE_FEED: "push",
      ENGINE_SHARDS: "4",
      DATABASE_URL: "postgres://u:p@localhost:5432/fts",
      REDIS_URL: "redis://localhost:6379",
    });
    expect(settings).toMatchObject({
      ENGINE_GRPC_PORT: 6000,
      ENGINE_METRICS_PORT: 0,
      PRICE_FEED: "push",
      ENGINE_SHARDS: 4,
      DATABASE_URL: "postgres://u:p@localhost:5432/fts",
      REDIS_URL: "redis://localhost:6379",
    });
  });

  it("webhook settings: documented defaults, a schedule list, and refusals", () => {
    expect(loadEngineSettings({})).toMatchObject({
      WEBHOOKS_ENABLED: true,
      WEBHOOK_ALLOW_PRIVATE: false,
      WEBHOOK_TIMEOUT_MS: 10_000,
      WEBHOOK_POLL_MS: 200,
      WEBHOOK_RETENTION_DAYS: 30,
      WEBHOOK_RETRY_SCHEDULE_MS: [
        0, 5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000,
      ],
    });
    expect(loadEngineSettings({ WEBHOOK_RETRY_SCHEDULE_MS: "0, 100,200" }).WEBHOOK_RETRY_SCHEDULE_MS).toEqual([
      0, 100, 200,
    ]);
    expect(loadEngineSettings({ WEBHOOK_RETRY_SCHEDULE_MS: "0,2592000000" }).WEBHOOK_RETRY_SCHEDULE_MS).toEqual([
      0, 2_592_000_000,
    ]);
    for (const bad of [",", "0,-1", "0,1.5", "soon", "0,,5", "0,2592000001", "0,99999999999999999999"]) {
      expect(() => loadEngineSettings({ WEBHOOK_RETRY_SCHEDULE_MS: bad }), bad).toThrow(ConfigError);
    }
    expect(() => loadEngineSettings({ WEBHOOK_TIMEOUT_MS: "50" })).toThrow(ConfigError);
  });

  it("name every bad setting in one error", () => {
    let caught: unknown;
    try {
      loadEngineSettings({
        ENGINE_GRPC_PORT: "70000",
        PRICE_FEED: "websocket",
        ENGINE_SHARDS: "0",
        DATABASE_URL: "mysql://x",
        REDIS_URL: "http://x",
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.join("\n");
    for (const name of ["ENGINE_GRPC_PORT", "PRICE_FEED", "ENGINE_SHARDS", "DATABASE_URL", "REDIS_URL"]) {
      expect(problems).toContain(name);
    }
  });

  it("bound the engine's database waits at 1 s by default, below the gateway's 1.5 s gRPC deadline", () => {
    expect(loadEngineSettings({}).ENGINE_DB_TIMEOUT_MS).toBe(1_000);
    expect(loadEngineSettings({ ENGINE_DB_TIMEOUT_MS: "250" }).ENGINE_DB_TIMEOUT_MS).toBe(250);
    expect(() => loadEngineSettings({ ENGINE_DB_TIMEOUT_MS: "0" })).toThrow(/ENGINE_DB_TIMEOUT_MS/);
  });

  it("treat an empty value as unset", () => {
    expect(loadEngineSettings({ ENGINE_SHARDS: "" }).ENGINE_SHARDS).toBe(defaultShards());
  });

  it("default to one engine owning every partition, with 10 s leases renewed every 3 s", () => {
    expect(loadEngineSettings({})).toMatchObject({
      ENGINE_COUNT: 1,
      ENGINE_INDEX: 0,
      ENGINE_LEASE_TTL_MS: 10_000,
      ENGINE_LEASE_RENEW_MS: 3_000,
    });
  });

  it("refuse an ENGINE_INDEX outside 0..ENGINE_COUNT-1 and a renewal slower than half the lease", () => {
    expect(() => loadEngineSettings({ ENGINE_COUNT: "2", ENGINE_INDEX: "2" })).toThrow(/ENGINE_INDEX/);
    expect(() => loadEngineSettings({ ENGINE_LEASE_TTL_MS: "1000", ENGINE_LEASE_RENEW_MS: "600" })).toThrow(
      /ENGINE_LEASE_RENEW_MS/,
    );
    expect(loadEngineSettings({ ENGINE_COUNT: "2", ENGINE_INDEX: "1" })).toMatchObject({
      ENGINE_COUNT: 2,
      ENGINE_INDEX: 1,
    });
  });

  it("take ENGINE_ROLE owner by default, standby when asked (its ENGINE_INDEX ignored), and nothing else", () => {
    expect(loadEngineSettings({}).ENGINE_ROLE).toBe("owner");
    expect(loadEngineSettings({ ENGINE_ROLE: "standby", ENGINE_COUNT: "2", ENGINE_INDEX: "7" })).toMatchObject({
      ENGINE_ROLE: "standby",
      ENGINE_COUNT: 2,
    });
    expect(() => loadEngineSettings({ ENGINE_ROLE: "replica" })).toThrow(
      /ENGINE_ROLE: must be owner \(serve ENGINE_INDEX\) or standby/,
    );
  });
});

describe("engine number settings", () => {
  it("take plain decimal digits at the edges of their ranges", () => {
    expect(
      loadEngineSettings({
        ENGINE_SHARDS: "256",
        ENGINE_COUNT: "256",
        ENGINE_INDEX: "255",
        SIMULATOR_SEED: "0",
        FUNDING_RATE_CRYPTO_PPM: "100000",
        FUNDING_ROLLOVER_PPM: "0",
        WEBHOOK_POLL_MS: "10",
        WEBHOOK_RETENTION_DAYS: "3650",
        WEBHOOK_TIMEOUT_MS: "60000",
      }),
    ).toMatchObject({
      ENGINE_SHARDS: 256,
      ENGINE_COUNT: 256,
      ENGINE_INDEX: 255,
      SIMULATOR_SEED: 0,
      FUNDING_RATE_CRYPTO_PPM: 100_000,
      FUNDING_ROLLOVER_PPM: 0,
      WEBHOOK_POLL_MS: 10,
      WEBHOOK_RETENTION_DAYS: 3650,
      WEBHOOK_TIMEOUT_MS: 60_000,
    });
  });

  it.each([
    ["ENGINE_GRPC_PORT", " "],
    ["ENGINE_GRPC_PORT", "0xC383"],
    ["ENGINE_METRICS_PORT", "9.1e3"],
    ["WALLET_GRPC_PORT", "-1"],
    ["ENGINE_SHARDS", " "],
    ["ENGINE_SHARDS", "4.0"],
    ["ENGINE_STATS_INTERVAL_MS", "5e3"],
    ["ENGINE_COUNT", "0x2"],
    ["ENGINE_INDEX", "+0"],
    ["ENGINE_LEASE_TTL_MS", "1e4"],
    ["ENGINE_LEASE_RENEW_MS", "Infinity"],
    ["SIMULATOR_SEED", "99999999999999999999"],
    ["SIMULATOR_INTERVAL_MS", "1e3"],
    ["FUNDING_INTERVAL_MS", " "],
    ["FUNDING_RATE_CRYPTO_PPM", "100001"],
    ["FUNDING_ROLLOVER_PPM", "5e1"],
    ["WEBHOOK_POLL_MS", "0x10"],
    ["WEBHOOK_RETENTION_DAYS", "30 "],
    ["WEBHOOK_TIMEOUT_MS", "1e4"],
    // Beyond what a Node timer can wait (2^31 − 1 ms: a longer delay runs after 1 ms), and past sense.
    ["SIMULATOR_INTERVAL_MS", "2147483648"],
    ["ENGINE_STATS_INTERVAL_MS", "3600001"],
    ["FUNDING_INTERVAL_MS", "604800001"],
  ])("stop at %s=%j, naming it", (name, value) => {
    expect(() => loadEngineSettings({ [name]: value })).toThrow(ConfigError);
    expect(() => loadEngineSettings({ [name]: value })).toThrow(new RegExp(`${name}: must be a whole number`));
  });
});

describe("engine OTEL_* settings", () => {
  it.each([
    ["OTEL_TRACES_SAMPLER", "parentbased_ratio"],
    ["OTEL_TRACES_SAMPLER_ARG", "1.01"],
    ["OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318"],
    ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "collector/v1/traces"],
    ["OTEL_TRACES_EXPORTER", "otlp,none"],
  ])("stop at %s=%j, naming it", (name, value) => {
    expect(() => loadEngineSettings({ [name]: value })).toThrow(new RegExp(`${name}: `));
  });
});

describe("WEBHOOK_CA_FILE", () => {
  const ca = makeTestCa();
  const dir = mkdtempSync(path.join(tmpdir(), "fts-engine-config-"));
  afterAll(() => {
    ca.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is read and parsed with the settings: the engine gets the PEM, not the path to read later", () => {
    expect(loadEngineSettings({}).WEBHOOK_CA_FILE).toBeUndefined();
    expect(loadEngineSettings({ WEBHOOK_CA_FILE: ca.caFile }).WEBHOOK_CA_FILE).toEqual({
      file: ca.caFile,
      pem: ca.caPem,
    });
  });

  it("stops the engine at start, naming the setting, when the file is missing or holds no certificate", () => {
    const notPem = path.join(dir, "not-a-cert.pem");
    writeFileSync(notPem, "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n");
    const key = path.join(dir, "key.pem");
    writeFileSync(key, ca.key);
    for (const [file, message] of [
      [path.join(dir, "missing.pem"), /WEBHOOK_CA_FILE: cannot read .*missing\.pem \(ENOENT\)/],
      [notPem, /WEBHOOK_CA_FILE: .*certificate 1 of 1 does not parse/],
      [key, /WEBHOOK_CA_FILE: .*holds no PEM certificate/],
    ] as const) {
      expect(() => loadEngineSettings({ WEBHOOK_CA_FILE: file }), file).toThrow(ConfigError);
      expect(() => loadEngineSettings({ WEBHOOK_CA_FILE: file }), file).toThrow(message);
    }
  });
});
