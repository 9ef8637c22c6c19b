// The idempotency fingerprint of a normalised request (docs/decisions.md, "Idempotency fingerprint"): what
// a retry with the same client_id must repeat to be answered with the first answer. Fields joined by "|",
// null as the empty string (as `join` writes it), in one array per request kind reused by every call (decide
// is synchronous and single-threaded) rather than a fresh one per order; `join` still builds one flat
// string, which the idempotency record keeps.
import type { NormalizedClose, NormalizedOrder } from "./request.js";

const ORDER_PARTS: (string | number | boolean | null)[] = Array.from({ length: 16 }, () => null);

/** The fields of a close, in fingerprint order after its "close" tag. */
const CLOSE_FIELDS = [
  "symbol",
  "kind",
  "quantity",
  "limit_price",
  "time_in_force",
  "venue",
  "position_id",
] as const satisfies readonly (keyof NormalizedClose)[];
const CLOSE_PARTS: (string | number | null)[] = ["close", ...CLOSE_FIELDS.map(() => null)];

/**
 * The fingerprint of a place-order request (everything but the client id). With `defaultVenue` (the
 * account's), equal bodies spelled differently fingerprint alike: GTX is GTC + post_only and an absent venue
 * is the default one. Without it, the literal form: journals hold records of either form, so a retry is
 * compared with both.
 */
export function orderFingerprint(order: NormalizedOrder, defaultVenue?: string): string {
  const parts = ORDER_PARTS;
  parts[0] = "order";
  parts[1] = order.symbol;
  parts[2] = order.side;
  parts[3] = order.kind;
  parts[4] = order.quantity;
  parts[5] = order.limit_price;
  parts[6] = order.trigger_price;
  parts[7] = defaultVenue !== undefined && order.time_in_force === "GTX" ? "GTC" : order.time_in_force;
  parts[8] = order.expire_at;
  parts[9] = order.post_only;
  parts[10] = order.reduce_only;
  parts[11] = order.index_trigger;
  parts[12] = order.mark_trigger;
  parts[13] = defaultVenue !== undefined ? (order.venue ?? defaultVenue) : order.venue;
  parts[14] = order.parent_order_id;
  parts[15] = order.position_id;
  return parts.join("|");
}

/** The fingerprint of a close-position request (everything but the client id). */
export function closeFingerprint(close: NormalizedClose): string {
  const parts = CLOSE_PARTS;
  for (let i = 0; i < CLOSE_FIELDS.length; i++) parts[i + 1] = close[CLOSE_FIELDS[i] as (typeof CLOSE_FIELDS)[number]];
  return parts.join("|");
}
