// The socket-session example bot (client/examples/grid-bot.ts) against `npm start` with pushed prices: it rests
// its BUYs over the socket, answers the BUY that fills with a SELL one step up as soon as the fill reaches it on
// the socket, and once that SELL fills cancels the BUY still resting and stops flat.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servingNpmStart, type ServingNpmStart } from "../../test/harness/npm-start.js";
import { newKey } from "../../test/harness/client.js";
import { marketClient, type Market } from "../../test/harness/market.js";
import { runGrid } from "../examples/grid-bot.js";
import { TradingClient } from "../src/index.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";

let stack: ServingNpmStart;
let market: Market;

beforeAll(async () => {
  stack = await servingNpmStart({ PRICE_FEED: "push" });
  market = marketClient(stack.engineGrpc, stack.internalToken);
});
afterAll(async () => {
  market?.close();
  await stack?.stop();
});

/** Waits until the account's working orders satisfy `check`. */
async function untilWorking(
  client: TradingClient,
  accountId: string,
  check: (orders: { side: string }[]) => boolean,
): Promise<void> {
  while (!check(await client.workingOrders(accountId))) await new Promise((r) => setTimeout(r, 50));
}

describe("the grid bot", () => {
  it("buys a level, sells it one step up, then cancels the rest and stops flat", async () => {
    await market.push({ "BTC-USD": 50_000 });
    const key = await newKey(stack.gateways[0]?.api ?? "", "grid-bot", {
      label: "bot",
      permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
    });
    const client = new TradingClient({ baseUrl: stack.gateways[0]?.v1 ?? "", apiKey: key.key, apiSecret: key.secret });
    const accountId = (await client.openAccount({ plan_id: PLAN_10K })).account_id;
    const lines: string[] = [];
    const drive = async (): Promise<void> => {
      await untilWorking(client, accountId, (orders) => orders.length === 2);
      // The first level (49,500) fills, the second (49,000) keeps resting.
      await market.push({ "BTC-USD": 49_400 });
      await untilWorking(client, accountId, (orders) => orders.some((o) => o.side === "SELL"));
      await market.push({ "BTC-USD": 50_500 });
    };
    const [outcome] = await Promise.all([
      runGrid({
        client,
        accountId,
        symbol: "BTC-USD",
        quantity: "0.1",
        levels: 2,
        stepPct: 1,
        roundTrips: 1,
        log: (l) => lines.push(l),
      }),
      drive(),
    ]);
    expect(outcome.roundTrips).toBe(1);
    expect(outcome.fills.map((f) => [f.side, f.quantity])).toEqual([
      ["BUY", 0.1],
      ["SELL", 0.1],
    ]);
    expect(outcome.canceled).toBe(1);
    expect(outcome.flattened).toBe(0);
    expect(await client.positions(accountId)).toEqual([]);
    expect(await client.workingOrders(accountId)).toEqual([]);
    expect(lines.filter((l) => l.endsWith("resting"))).toHaveLength(3);
  });
});
