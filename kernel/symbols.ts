// Symbols arrive in many spellings (`btcusd`, `BTC/USD`, `btc_usd`, `btc-usd`); the service speaks only
// `<BASE>-USD` (docs/openapi.yaml). This is the one parser of those spellings: the engine reads order,
// price and calendar symbols through it against its catalogue, the gateway's stream its tickers subscriptions
// against the symbols GET /v1/tickers lists.

const SPELLING = /^([A-Z0-9]+?)[-/_]?USD$/;

/**
 * The `<BASE>-USD` form of a spelling, listed or not: case-insensitive, surrounding white space ignored, the base
 * and `USD` joined by one `-`, `/`, `_` or nothing. Undefined when `input` is no such spelling (a bare base, another
 * quote, a suffix).
 */
export function spelledSymbol(input: string): string | undefined {
  const base = SPELLING.exec(input.trim().toUpperCase())?.[1];
  return base === undefined ? undefined : `${base}-USD`;
}

/** The canonical symbol a spelling names, or undefined when it is malformed or `isListed` refuses it. */
export function canonicalSymbol(input: string, isListed: (symbol: string) => boolean): string | undefined {
  const symbol = spelledSymbol(input);
  return symbol !== undefined && isListed(symbol) ? symbol : undefined;
}
