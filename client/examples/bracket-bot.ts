// A small bot on the typed client: opens a bracket (a MARKET entry with a take-profit and a stop-loss child),
// follows its fills through the account's event feed, and closes the position once its unrealized P&L reaches
// a target, unless the take-profit or the stop closed it first. Run it against `npm start`:
//
//   FTRADE_API_KEY=… FTRADE_API_SECRET=… node --import tsx client/examples/bracket-bot.ts
//
// Settings (environment): FTRADE_URL (default http://127.0.0.1:8080), ACCOUNT_ID (default: open one on PLAN_ID),
// SYMBOL (BTC-USD), QUANTITY (0.01), TARGET_USD (P&L to close at, 20), BRACKET_PCT (TP/SL distance, 2).
import { pathToFileURL } from "node:url";
import { roundPrice, roundQuantity, TradingClient, type Fill, type TradingClientOptions } from "../src/index.js";

export interface BotOptions {
  client: TradingClient;
  accountId: string;
  symbol: string;
  quantity: string;
  /** Close once the position's unrealized P&L (USD) is at least this. */
  targetUsd: number;
  /** Take-profit and stop this many percent away from the entry price. */
  bracketPct: number;
  /** Between two looks at the account (default 200 ms). */
  pollMs?: number;
  /** Gives up after this many looks (default 600). */
  maxPolls?: number;
  log?: (line: string) => void;
}

export interface BotOutcome {
  /** How the position ended: the bot's own close at the target, or a child of the bracket. */
  closedBy: "target" | "bracket" | "gave-up";
  entryOrderId: string;
  /** Every fill of the account the bot saw, in order. */
  fills: Fill[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function runBot(options: BotOptions): Promise<BotOutcome> {
  const { client, accountId, symbol } = options;
  const log = options.log ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const ticker = await client.ticker(symbol);
  if (ticker?.mark_price == null) throw new Error(`${symbol} has no price yet`);
  const quantity = roundQuantity(ticker, options.quantity);
  if (quantity === null) throw new Error(`${options.quantity} is below ${symbol}'s minimum ${ticker.min_quantity}`);

  const entry = await client.placeOrder({ account_id: accountId, symbol, side: "BUY", kind: "MARKET", quantity });
  if (entry.kind === "rejected") throw new Error(`entry rejected: ${entry.violations.map((v) => v.rule).join(", ")}`);
  const entryOrderId = entry.response.order.order_id;
  const price = entry.response.order.avg_fill_price ?? ticker.mark_price;
  log(`entry ${entryOrderId} filled ${entry.response.order.filled_quantity} at ${price}`);
  const away = (pct: number): string => roundPrice(ticker, price * (1 + pct / 100));
  for (const [kind, trigger] of [
    ["TAKE_PROFIT", away(options.bracketPct)],
    ["STOP", away(-options.bracketPct)],
  ] as const) {
    const child = await client.placeOrder({
      account_id: accountId,
      symbol,
      side: "SELL",
      kind,
      quantity,
      trigger_price: trigger,
      parent_order_id: entryOrderId,
    });
    if (child.kind === "rejected") throw new Error(`${kind} rejected: ${child.violations[0]?.message ?? ""}`);
    log(`${kind} ${child.response.order.order_id} at ${trigger}`);
  }

  const fills: Fill[] = [];
  let sequence = 0;
  const follow = async (): Promise<boolean> => {
    let closed = false;
    for await (const event of client.allEvents(accountId, sequence)) {
      sequence = event.sequence;
      if (event.type === "order.fill") {
        const fill = event.data as Fill;
        fills.push(fill);
        log(`fill ${fill.side} ${fill.quantity} ${fill.symbol} at ${fill.price}`);
      }
      if (event.type === "position.close") closed = true;
    }
    return closed;
  };

  // The event feed can trail the positions a little: once the position is gone, read it until its close.
  const followToClose = async (): Promise<void> => {
    for (let poll = 0; poll < (options.maxPolls ?? 600) && !(await follow()); poll++)
      await sleep(options.pollMs ?? 200);
  };

  for (let poll = 0; poll < (options.maxPolls ?? 600); poll++) {
    if (await follow()) return { closedBy: "bracket", entryOrderId, fills };
    const position = (await client.positions(accountId)).find((p) => p.symbol === symbol);
    if (position === undefined) {
      await followToClose();
      return { closedBy: "bracket", entryOrderId, fills };
    }
    if (position.unrealized_pnl >= options.targetUsd) {
      log(`target reached (${position.unrealized_pnl} USD): closing`);
      const close = await client.closePosition({ account_id: accountId, symbol });
      if (close.kind === "rejected") throw new Error(`close rejected: ${close.violations[0]?.message ?? ""}`);
      await followToClose();
      return { closedBy: "target", entryOrderId, fills };
    }
    await sleep(options.pollMs ?? 200);
  }
  return { closedBy: "gave-up", entryOrderId, fills };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const env = process.env;
  const options: TradingClientOptions = {
    baseUrl: env.FTRADE_URL ?? "http://127.0.0.1:8080",
    apiKey: env.FTRADE_API_KEY ?? "",
    apiSecret: env.FTRADE_API_SECRET ?? "",
  };
  const client = new TradingClient(options);
  const accountId =
    env.ACCOUNT_ID ??
    (await client.openAccount({ plan_id: env.PLAN_ID ?? "48a184ce-7d26-4b3f-82e3-cbf4f08383ba" })).account_id;
  const outcome = await runBot({
    client,
    accountId,
    symbol: env.SYMBOL ?? "BTC-USD",
    quantity: env.QUANTITY ?? "0.01",
    targetUsd: Number(env.TARGET_USD ?? "20"),
    bracketPct: Number(env.BRACKET_PCT ?? "2"),
  });
  process.stdout.write(`${JSON.stringify({ closedBy: outcome.closedBy, fills: outcome.fills.length })}\n`);
}
