// market.v1 on an engine running its price simulator: PushPrices and SetCalendar are refused with
// market_data_refused (FAILED_PRECONDITION), token or not, so nobody can move prices or freeze trading there.
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromGrpcError } from "../kernel/errors.js";
import { marketClient, type Market } from "../test/harness/market.js";
import { TestEngine } from "./main.testing.js";

const TOKEN = "market-feed-test-internal-token";
const engine = new TestEngine("engine-feed", TOKEN, { WEBHOOKS_ENABLED: "false" });
let market: Market;

beforeAll(async () => {
  expect(engine.settings.PRICE_FEED).toBe("simulator");
  await engine.start();
  market = marketClient(engine.address, TOKEN);
});

afterAll(async () => {
  market.close();
  await engine.stop();
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
