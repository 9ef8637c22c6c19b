// Symbols arrive in many spellings (`btcusd`, `BTC/USD`, `btc_usd`); the service speaks only `<BASE>-USD`.
// One function turns a spelling into the canonical symbol, and only for symbols the catalogue lists.
import { CATALOGUE, type Catalogue } from "./catalogue.js";

const SPELLING = /^([A-Z0-9]+?)[-/_]?USD$/;

/** The canonical `<BASE>-USD` symbol for `input`, or undefined when it is malformed or not listed. */
export function normalizeSymbol(input: string, catalogue: Catalogue = CATALOGUE): string | undefined {
  const match = SPELLING.exec(input.trim().toUpperCase());
  const base = match?.[1];
  if (base === undefined) return undefined;
  const symbol = `${base}-USD`;
  return catalogue.byKey(symbol) === undefined ? undefined : symbol;
}
