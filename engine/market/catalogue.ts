// The tradable symbols, shipped as data (tickers.json) and validated once at start: a bad row stops the
// process instead of surfacing later as a mispriced order. Sizes and prices stay decimal strings here so
// they are exact; they become JSON numbers only at the API edge.
import { z } from "zod";
import tickersJson from "./tickers.json" with { type: "json" };
import { isDecimalString, isMultipleOf, isPositiveDecimal } from "./decimal.js";
import { parseShippedTable, refuseRepeats, type ShippedTable } from "./shipped-table.js";
import { AssetClass, QUOTE, VENUE_ASSET_CLASSES, Venue } from "./types.js";

export { AssetClass, Venue } from "./types.js";

const positiveDecimal = z
  .string()
  .refine(isDecimalString, 'must be a plain decimal string such as "0.01"')
  .refine(isPositiveDecimal, "must be greater than zero");

const tickerSpecSchema = z
  .strictObject({
    symbol: z.string().regex(/^[A-Z0-9]+-USD$/, "must be <BASE>-USD in upper case"),
    base: z.string().regex(/^[A-Z0-9]+$/, "must be upper-case letters and digits"),
    quote: z.literal(QUOTE),
    asset_class: z.enum(AssetClass),
    venues: z.array(z.enum(Venue)).min(1),
    max_leverage: z.number().int().positive(),
    tick_size: positiveDecimal,
    quantity_step: positiveDecimal,
    min_quantity: positiveDecimal,
    reference_price: positiveDecimal,
  })
  .superRefine((row, ctx) => {
    if (row.symbol !== `${row.base}-${QUOTE}`) {
      ctx.addIssue({ code: "custom", path: ["symbol"], message: `must be ${row.base}-${QUOTE}` });
    }
    refuseRepeats(ctx, row.venues, "venues", "venue");
    for (const venue of row.venues) {
      if (!VENUE_ASSET_CLASSES[venue].includes(row.asset_class)) {
        ctx.addIssue({ code: "custom", path: ["venues"], message: `${venue} does not list ${row.asset_class}` });
      }
    }
    // Guards keep isMultipleOf from throwing on a malformed field; the field checks report those.
    if (isPositiveDecimal(row.tick_size) && isPositiveDecimal(row.reference_price)) {
      if (!isMultipleOf(row.reference_price, row.tick_size)) {
        ctx.addIssue({ code: "custom", path: ["reference_price"], message: "must be on the tick grid" });
      }
    }
    if (isPositiveDecimal(row.quantity_step) && isPositiveDecimal(row.min_quantity)) {
      if (!isMultipleOf(row.min_quantity, row.quantity_step)) {
        ctx.addIssue({ code: "custom", path: ["min_quantity"], message: "must be a multiple of quantity_step" });
      }
    }
  });

/** One catalogue row: sizes and prices as exact decimal strings. */
export type TickerSpec = Readonly<z.infer<typeof tickerSpecSchema>>;

/** The tickers in catalogue order, each found by its exact symbol (`BTC-USD`). */
export type Catalogue = ShippedTable<TickerSpec>;

/** Validates raw catalogue data; throws an Error listing every problem. */
export function parseCatalogue(raw: unknown): Catalogue {
  return parseShippedTable(raw, tickerSpecSchema, "symbol", "ticker catalogue");
}

/** The shipped catalogue, validated when this module is first imported (at process start). */
export const CATALOGUE: Catalogue = parseCatalogue(tickersJson);
