// A small grid bot on the socket session (client/src/session.ts, docs/client.md "Socket session"): one socket
// carries its orders and the account's events. It rests `levels` BUY LIMITs below the market, `stepPct` apart
// (one `orders.batch`); each BUY fill it reads on the socket is answered at once by a reduce-only SELL LIMIT one
// step above the fill's price; once `roundTrips` SELLs have filled it cancels what still rests, flattens
// whatever is left open, and stops. Run it against `npm start`:
//
//   FTRADE_API_KEY=… FTRADE_API_SECRET=… node --import tsx client/examples/grid-bot.ts
//
// Settings (environment): FTRADE_URL (default http://127.0.0.1:8080), ACCOUNT_ID (default: open one on PLAN_ID),
// SYMBOL (BTC-USD), QUANTITY (0.01), LEVELS (3), STEP_PCT (0.5), ROUND_TRIPS (1). Ctrl-C stops it (it cancels
// and flattens on the way out).
import { pathToFileURL } from "node:url";
import {
  roundPrice,
  roundQuantity,
  toDecimal,
  TradingClient,
  type Fill,
  type Placement,
  type PlaceOrderRequest,
  type TradingClientOptions,
} from "../src/index.js";

export interface GridOptions {
  client: TradingClient;
  accountId: string;
  symbol: string;
  quantity: string;
  /** BUY LIMITs rested below the market. */
  levels: number;
  /** Distance between levels, and from a BUY's fill to its SELL, in percent. */
  stepPct: number;
  /** Stops once this many SELLs have filled. */
  roundTrips: number;
  /** Stops early (canceling and flattening) when aborted. */
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export interface GridOutcome {
  /** SELLs filled. */
  roundTrips: number;
  /** Every fill of the account the bot saw, in sequence order. */
  fills: Fill[];
  /** Orders still resting at the end, canceled by the bot. */
  canceled: number;
  /** Positions the final flatten closed. */
  flattened: number;
}

const refusal = (what: string, placed: Placement): Error =>
  new Error(`${what} rejected: ${placed.kind === "rejected" ? placed.violations.map((v) => v.rule).join(", ") : ""}`);

export async function runGrid(options: GridOptions): Promise<GridOutcome> {
  const { client, accountId, symbol } = options;
  const log = options.log ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const ticker = await client.ticker(symbol);
  if (ticker?.mark_price == null) throw new Error(`${symbol} has no price yet`);
  const mark = ticker.mark_price;
  const quantity = roundQuantity(ticker, options.quantity);
  if (quantity === null) throw new Error(`${options.quantity} is below ${symbol}'s minimum ${ticker.min_quantity}`);

  const session = await client.connect();
  try {
    // Subscribed before the first order: every event of the grid's orders comes after the ack.
    const events = await session.subscribe(accountId);
    options.signal?.addEventListener("abort", () => {
      events.close();
    });
    const buys: PlaceOrderRequest[] = Array.from({ length: options.levels }, (_, i) => ({
      account_id: accountId,
      symbol,
      side: "BUY",
      kind: "LIMIT",
      quantity,
      limit_price: roundPrice(ticker, mark * (1 - ((i + 1) * options.stepPct) / 100), "down"),
    }));
    const batch = await session.placeOrders(buys);
    batch.data.forEach((item, i) => {
      const violations = "violations" in item.body ? item.body.violations : [];
      if (item.status >= 300 || violations.length > 0) {
        throw new Error(`BUY ${i} refused: ${item.status} ${JSON.stringify(item.body)}`);
      }
      log(`BUY ${quantity} at ${String(buys[i]?.limit_price)} resting`);
    });

    const fills: Fill[] = [];
    let roundTrips = 0;
    for await (const event of events) {
      if (event.type !== "order.fill") continue;
      const fill = event.data as Fill;
      fills.push(fill);
      log(`fill ${fill.side} ${fill.quantity} ${fill.symbol} at ${fill.price}`);
      if (fill.side === "SELL") {
        if (++roundTrips >= options.roundTrips) break;
        continue;
      }
      const target = roundPrice(ticker, fill.price * (1 + options.stepPct / 100), "up");
      const sell = await session.placeOrder({
        account_id: accountId,
        symbol,
        side: "SELL",
        kind: "LIMIT",
        quantity: toDecimal(fill.quantity),
        limit_price: target,
        reduce_only: true,
      });
      if (sell.kind === "rejected") throw refusal("SELL", sell);
      log(`SELL ${fill.quantity} at ${target} resting`);
    }

    const canceled = await session.cancelAllOrders(accountId, symbol);
    const flat = await session.flatten(accountId);
    log(`done: ${roundTrips} round trip(s), ${canceled.length} order(s) canceled, ${flat.closes.length} closed`);
    return { roundTrips, fills, canceled: canceled.length, flattened: flat.closes.length };
  } finally {
    await session.close();
  }
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
  const stop = new AbortController();
  process.once("SIGINT", () => {
    stop.abort();
  });
  const outcome = await runGrid({
    client,
    accountId,
    symbol: env.SYMBOL ?? "BTC-USD",
    quantity: env.QUANTITY ?? "0.01",
    levels: Number(env.LEVELS ?? "3"),
    stepPct: Number(env.STEP_PCT ?? "0.5"),
    roundTrips: Number(env.ROUND_TRIPS ?? "1"),
    signal: stop.signal,
  });
  process.stdout.write(`${JSON.stringify({ roundTrips: outcome.roundTrips, fills: outcome.fills.length })}\n`);
}
