// The price feed of a stack started with PRICE_FEED=push: the catalogue's reference prices, pushed once and then
// every second through market.v1 (alternating by a hair, so the mark keeps moving and MARKET orders fill).
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Market } from "../../test/harness/market.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Reference prices of the catalogue, as the price simulator starts from them. */
export function referencePrices(symbols: readonly string[]): Record<string, number> {
  const rows = JSON.parse(readFileSync(path.join(ROOT, "engine", "market", "tickers.json"), "utf8")) as {
    symbol: string;
    reference_price: string;
  }[];
  const prices: Record<string, number> = {};
  for (const symbol of symbols) {
    const row = rows.find((r) => r.symbol === symbol);
    if (row === undefined) throw new Error(`unknown symbol ${symbol}`);
    prices[symbol] = Number(row.reference_price);
  }
  return prices;
}

/** Pushes the prices once, then every second; resolves to the function that stops the pushes. */
export async function startFeed(
  market: Market,
  prices: Record<string, number>,
  say: (line: string) => void,
): Promise<() => void> {
  await market.push(prices);
  let flip = false;
  const timer = setInterval(() => {
    flip = !flip;
    const moved = Object.fromEntries(Object.entries(prices).map(([s, p]) => [s, flip ? p * 1.00001 : p]));
    market.push(moved).catch((error: unknown) => {
      say(`price push failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }, 1000);
  return () => {
    clearInterval(timer);
  };
}
