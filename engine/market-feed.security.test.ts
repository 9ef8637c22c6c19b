// market.v1 on an engine running its price simulator: PushPrices and SetCalendar are refused with
// market_data_refused (FAILED_PRECONDITION), token or not, so nobody can move prices or freeze trading there.
import * as grpc from "@grpc/grpc-js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromGrpcError } from "../kernel/errors.js";
import { createLogger } from "../kernel/log.js";
import { marketClient, type Market } from "../test/harness/market.js";
import { loadEngineSettings } from "./config.js";
import { startEngine, type RunningEngine } from "./main.js";

const TOKEN = "market-feed-test-internal-token";
const dataDir = mkdtempSync(path.join(tmpdir(), "fts-engine-feed-"));

let engine: RunningEngine;
let market: Market;

beforeAll(async () => {
  const settings = loadEngineSettings({
    ENGINE_GRPC_PORT: "0",
    ENGINE_METRICS_PORT: "0",
    INTERNAL_TOKEN: TOKEN,
    LOG_LEVEL: "silent",
    DATA_DIR: dataDir,
    WEBHOOKS_ENABLED: "false",
  });
  expect(settings.PRICE_FEED).toBe("simulator");
  engine = await startEngine(settings, createLogger("engine", "silent"));
  market = marketClient(`127.0.0.1:${engine.grpcPort}`, TOKEN);
});

afterAll(async () => {
  market.close();
  await engine.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("market.v1 with PRICE_FEED=simulator", () => {
  it.each([
    ["PushPrices", () => market.push({ "BTC-USD": 1 })],
    [
      "SetCalendar",
      () =>
        market.setCalendar([
          {
            id: "freeze-crypto",
            title: "made up",
            scheduled_at: new Date(Date.now() + 60_000).toISOString(),
            asset_classes: ["crypto"],
          },
        ]),
    ],
    ["SetCalendar with an empty calendar", () => market.setCalendar([])],
  ])("refuses %s with market_data_refused (FAILED_PRECONDITION) naming PRICE_FEED", async (_method, send) => {
    const error: unknown = await send().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: grpc.status.FAILED_PRECONDITION });
    const decoded = fromGrpcError(error);
    expect(decoded.code).toBe("market_data_refused");
    expect(decoded.message).toMatch(/PRICE_FEED=push/);
  });
});
