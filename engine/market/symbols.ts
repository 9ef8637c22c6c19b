// The engine reads every symbol it is given (orders, pushed prices, the calendar filter) through the one spelling
// parser, kernel/symbols.ts, and keeps only symbols its catalogue lists.
import { spelledSymbol } from "../../kernel/symbols.js";
import { CATALOGUE, type Catalogue } from "./catalogue.js";

/** The canonical `<BASE>-USD` symbol for `input`, or undefined when it is malformed or not listed. */
export function normalizeSymbol(input: string, catalogue: Catalogue = CATALOGUE): string | undefined {
  const symbol = spelledSymbol(input);
  return symbol === undefined || catalogue.byKey(symbol) === undefined ? undefined : symbol;
}
