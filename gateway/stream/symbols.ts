// The symbols a tickers subscription may name, as GET /v1/tickers lists them: read once from the engine's
// catalogue (it does not change while the engine runs) and matched case-insensitively, with or without the
// "-USD" quote ("btc", "BTCUSD", "btc-usd" all name BTC-USD).
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
    const upper = input.trim().toUpperCase();
    const candidates = [upper, `${upper}-USD`, upper.endsWith("USD") ? `${upper.slice(0, -3)}-USD` : upper];
    return candidates.find((candidate) => symbols.has(candidate));
  };
}
