// The symbols a tickers subscription may name: those GET /v1/tickers lists, read once from the engine's catalogue
// (it does not change while the engine runs), in any spelling REST accepts (kernel/symbols.ts: `btcusd`,
// `BTC/USD`, `btc-usd` all name BTC-USD).
import { canonicalSymbol } from "../../kernel/symbols.js";
import type { ListTickersResponse__Output } from "../../proto/gen/engine/v1/ListTickersResponse.js";

export function symbolResolver(
  list: () => Promise<ListTickersResponse__Output>,
): (input: string) => Promise<string | undefined> {
  let known: Promise<Set<string>> | undefined;
  const load = (): Promise<Set<string>> => {
    known ??= list().then(
      (reply) => new Set(reply.data.map((ticker) => ticker.symbol)),
      (error: unknown) => {
        known = undefined;
        throw error;
      },
    );
    return known;
  };
  return async (input) => {
    const symbols = await load();
    return canonicalSymbol(input, (symbol) => symbols.has(symbol));
  };
}
