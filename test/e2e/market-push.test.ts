// market.v1 PushPrices refusals (proto/market/v1/market.proto: "applied in order, on every shard, before it
// returns"): a push is one market update, so a symbol named twice in it is refused rather than decided at its last
// price only, and a price no symbol could trade at (beyond the engine's exact integer range once multiplied by a
// position) is refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type CreatedKey } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";

describe("market.v1 PushPrices", () => {
  let stack: TestStack;
  let market: Market;
  let key: CreatedKey;
  let base: string;

  const markOf = async (symbol: string): Promise<unknown> => {
    const reply = await v1(base, "/v1/tickers", key);
    const rows = reply.body.data as { symbol: string; mark_price?: number }[];
    return rows.find((r) => r.symbol === symbol)?.mark_price;
  };

  beforeAll(async () => {
    stack = await stackOn("pglite", { env: { PRICE_FEED: "push" } });
    const gateway = stack.gateways[0];
    if (gateway === undefined) throw new Error("no gateway");
    base = gateway.v1;
    key = await newKey(gateway.api, "u-push", { label: "reader", permissions: ["READ_ONLY"] });
    market = marketClient(stack.engineGrpc);
    await market.push({ "BTC-USD": 50_000 });
  });
  afterAll(async () => {
    market.close();
    await stack.stop();
  });

  it("refuses a symbol named twice in one push (INVALID_ARGUMENT), applying nothing", async () => {
    await expect(
      market.pushList([
        { symbol: "BTC-USD", mark_price: 44_000, index_price: 44_000 },
        { symbol: "btcusd", mark_price: 50_100, index_price: 50_100 },
      ]),
    ).rejects.toMatchObject({ code: 3, details: expect.stringContaining("prices.1.symbol") as unknown });
    expect(await markOf("BTC-USD")).toBe(50_000);
  });

  it("refuses a price above 1,000 times the ticker's reference price, and takes one just below it", async () => {
    await expect(market.push({ "BTC-USD": 9e14 })).rejects.toMatchObject({ code: 3 });
    expect(await markOf("BTC-USD")).toBe(50_000);
    await market.push({ "BTC-USD": 60_000 });
    expect(await markOf("BTC-USD")).toBe(60_000);
  });
});
