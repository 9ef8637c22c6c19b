import { describe, expect, it } from "vitest";
import { ConfigError } from "../kernel/config.js";
import { loadEngineSettings } from "./config.js";

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
      ENGINE_SHARDS: 2,
    });
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

  it("treat an empty value as unset", () => {
    expect(loadEngineSettings({ ENGINE_SHARDS: "" }).ENGINE_SHARDS).toBe(2);
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
});
