// The example bot (client/examples/bracket-bot.ts) against `npm start` with pushed prices: it opens a
// bracket, follows its fills, and closes at its target when the price gets there; or leaves the close to the
// take-profit when the price jumps past it.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servingNpmStart, type ServingNpmStart } from "../../test/harness/npm-start.js";
import { newKey } from "../../test/harness/client.js";
import { marketClient, type Market } from "../../test/harness/market.js";
import { runBot } from "../examples/bracket-bot.js";
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

async function setUp(user: string): Promise<{ client: TradingClient; accountId: string }> {
  const key = await newKey(stack.gateways[0]?.api ?? "", user, {
    label: "bot",
    permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
  });
  const client = new TradingClient({ baseUrl: stack.gateways[0]?.v1 ?? "", apiKey: key.key, apiSecret: key.secret });
  return { client, accountId: (await client.openAccount({ plan_id: PLAN_10K })).account_id };
}

/** Moves BTC-USD to `price` once the bot's position is open. */
async function moveWhenOpen(client: TradingClient, accountId: string, price: number): Promise<void> {
  while ((await client.positions(accountId)).length === 0) await new Promise((r) => setTimeout(r, 50));
  await market.push({ "BTC-USD": price });
}

describe("the bracket bot", () => {
  it("closes at its target, and the bracket's children are canceled with the position", async () => {
    await market.push({ "BTC-USD": 50_000 });
    const { client, accountId } = await setUp("bot-target");
    const lines: string[] = [];
    const [outcome] = await Promise.all([
      runBot({
        client,
        accountId,
        symbol: "BTC-USD",
        quantity: "0.1",
        targetUsd: 50,
        bracketPct: 2,
        pollMs: 50,
        log: (l) => lines.push(l),
      }),
      moveWhenOpen(client, accountId, 50_600),
    ]);
    expect(outcome.closedBy).toBe("target");
    expect(outcome.fills.map((f) => [f.side, f.quantity])).toEqual([
      ["BUY", 0.1],
      ["SELL", 0.1],
    ]);
    expect(outcome.fills[1]?.price).toBe(50_600);
    expect(await client.positions(accountId)).toEqual([]);
    expect(await client.workingOrders(accountId)).toEqual([]);
    expect(lines.some((l) => l.startsWith("target reached"))).toBe(true);
  });

  it("leaves the close to the take-profit when the price jumps past it", async () => {
    await market.push({ "BTC-USD": 50_000 });
    const { client, accountId } = await setUp("bot-bracket");
    const [outcome] = await Promise.all([
      runBot({
        client,
        accountId,
        symbol: "BTC-USD",
        quantity: "0.1",
        targetUsd: 10_000,
        bracketPct: 2,
        pollMs: 50,
        log: () => undefined,
      }),
      moveWhenOpen(client, accountId, 51_500),
    ]);
    expect(outcome.closedBy).toBe("bracket");
    expect(outcome.fills.map((f) => f.side)).toEqual(["BUY", "SELL"]);
    expect(await client.positions(accountId)).toEqual([]);
  });

  it("runs as a script with its settings from the environment", async () => {
    await market.push({ "BTC-USD": 50_000 });
    const key = await newKey(stack.gateways[0]?.api ?? "", "bot-script", {
      label: "bot",
      permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
    });
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", path.join(import.meta.dirname, "..", "examples", "bracket-bot.ts")],
      {
        env: {
          PATH: process.env.PATH ?? "",
          FTRADE_URL: stack.gateways[0]?.v1 ?? "",
          FTRADE_API_KEY: key.key,
          FTRADE_API_SECRET: key.secret,
          // Any P&L reaches this target: the script opens an account, brackets, and closes at once.
          TARGET_USD: "-1000",
        },
      },
    );
    expect(stdout).toMatch(/^entry [0-9a-f-]+ filled 0.01 at 50000$/m);
    expect(stdout.trim().split("\n").at(-1)).toBe(JSON.stringify({ closedBy: "target", fills: 2 }));
  });
});
