// Vocabulary shared by the market catalogue, trading hours and the plans: asset classes and venues,
// as const objects with derived union types (no enums).
import { VENUES, Venue } from "../../kernel/vocabulary.js";

export const AssetClass = {
  crypto: "crypto",
  forex: "forex",
  commodities: "commodities",
  indices: "indices",
} as const;
export type AssetClass = (typeof AssetClass)[keyof typeof AssetClass];
export const ASSET_CLASSES: readonly AssetClass[] = Object.values(AssetClass);

// The venues are the API's vocabulary, shared with the gateway (kernel/vocabulary.ts).
export { VENUES, Venue };

/** Which asset classes each venue lists. */
export const VENUE_ASSET_CLASSES: Readonly<Record<Venue, readonly AssetClass[]>> = {
  GMX: [AssetClass.crypto],
  OSTIUM: ASSET_CLASSES,
};

/** Every symbol is `<BASE>-USD`. */
export const QUOTE = "USD";
