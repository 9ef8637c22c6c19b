// The idempotency fingerprint of a normalised request (docs/decisions.md, "Idempotency fingerprint"): what
// a retry with the same client_id must repeat to be answered with the first answer. Fields joined by "|",
// null as the empty string (as `join` writes it), in one array per request kind reused by every call (decide
// is synchronous and single-threaded) rather than a fresh one per order; `join` still builds one flat
// string, which the idempotency record keeps. A retry is compared with its record as both were placed
// (`orderRetryMatches`, `closeRetryMatches`): the venue the order went to, a child reduce-only.
import type { IdempotencyRecord } from "../basics/account-state.js";
import type { Venue } from "../market/types.js";
import type { NormalizedClose, NormalizedOrder } from "./request.js";

const ORDER_PARTS: (string | number | boolean | null)[] = Array.from({ length: 16 }, () => null);
/** Where `venue`, `reduce_only` and `parent_order_id` stand in an order fingerprint. */
const ORDER_VENUE = 13;
const ORDER_REDUCE_ONLY = 10;
const ORDER_PARENT = 14;
const ORDER_TIME_IN_FORCE = 7;

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
/** Where `venue` stands in a close fingerprint. */
const CLOSE_VENUE = 1 + CLOSE_FIELDS.indexOf("venue");

/** An order's fingerprint with `time_in_force` as given or GTX read as GTC, and the venue and reduce-only given. */
function orderParts(order: NormalizedOrder, gtxAsGtc: boolean, venue: string | null, reduceOnly: boolean): string {
  const parts = ORDER_PARTS;
  parts[0] = "order";
  parts[1] = order.symbol;
  parts[2] = order.side;
  parts[3] = order.kind;
  parts[4] = order.quantity;
  parts[5] = order.limit_price;
  parts[6] = order.trigger_price;
  parts[ORDER_TIME_IN_FORCE] = gtxAsGtc && order.time_in_force === "GTX" ? "GTC" : order.time_in_force;
  parts[8] = order.expire_at;
  parts[9] = order.post_only;
  parts[ORDER_REDUCE_ONLY] = reduceOnly;
  parts[11] = order.index_trigger;
  parts[12] = order.mark_trigger;
  parts[ORDER_VENUE] = venue;
  parts[ORDER_PARENT] = order.parent_order_id;
  parts[15] = order.position_id;
  return parts.join("|");
}

/**
 * The fingerprint of a place-order request (everything but the client id). With `defaultVenue` (the
 * account's), equal bodies spelled differently fingerprint alike: GTX is GTC + post_only and an absent venue
 * is the default one. Without it, the literal form: journals hold records of either form, which
 * `orderRetryMatches` reads both.
 */
export function orderFingerprint(order: NormalizedOrder, defaultVenue?: string): string {
  const normalised = defaultVenue !== undefined;
  return orderParts(order, normalised, normalised ? (order.venue ?? defaultVenue) : order.venue, order.reduce_only);
}

/** The fingerprint of a close-position request (everything but the client id). */
export function closeFingerprint(close: NormalizedClose): string {
  const parts = CLOSE_PARTS;
  for (let i = 0; i < CLOSE_FIELDS.length; i++) parts[i + 1] = close[CLOSE_FIELDS[i] as (typeof CLOSE_FIELDS)[number]];
  return parts.join("|");
}

/** The venue the recorded request's order was placed on. */
function placedVenue(record: IdempotencyRecord): Venue {
  return record.response !== undefined ? record.response.order.venue : record.order.venue;
}

/**
 * A recorded order fingerprint (either form) read as its order was placed: the venue it went to, and a child
 * reduce-only whatever its body said (placement forces it). Anything else (a close's) is returned as it is.
 */
function placedOrderForm(record: IdempotencyRecord): string {
  const parts = record.fingerprint.split("|");
  if (parts[0] !== "order" || parts.length !== ORDER_PARTS.length) return record.fingerprint;
  parts[ORDER_VENUE] = placedVenue(record);
  if (parts[ORDER_PARENT] !== "") parts[ORDER_REDUCE_ONLY] = "true";
  // A record of the literal form keeps GTX; its post_only is set already (normalisation makes GTX post-only).
  if (parts[ORDER_TIME_IN_FORCE] === "GTX") parts[ORDER_TIME_IN_FORCE] = "GTC";
  return parts.join("|");
}

/**
 * Whether a place-order retry is the body its client_id's record was made of, both read as placed: the venue
 * the order went to (the retry's as sent; when absent, the account's default, or for a child or an order on a
 * position the recorded order's, the parent's or the position's venue) and a child reduce-only. GTX is GTC +
 * post_only on both sides, records of the literal form (GTX kept) included.
 */
export function orderRetryMatches(record: IdempotencyRecord, order: NormalizedOrder, defaultVenue: string): boolean {
  const recorded = placedOrderForm(record);
  const linked = order.parent_order_id !== null || order.position_id !== null;
  const venue = order.venue ?? (linked ? placedVenue(record) : defaultVenue);
  const reduceOnly = order.parent_order_id !== null || order.reduce_only;
  return recorded === orderParts(order, true, venue, reduceOnly);
}

/**
 * Whether a close retry is the body its client_id's record was made of, both read with the venue the close was
 * placed on: a retry naming no venue stands for it (the venue the first close resolved), one naming another
 * venue differs.
 */
export function closeRetryMatches(record: IdempotencyRecord, close: NormalizedClose): boolean {
  const parts = record.fingerprint.split("|");
  if (parts[0] !== "close" || parts.length !== CLOSE_PARTS.length) return false;
  const venue = placedVenue(record);
  parts[CLOSE_VENUE] = venue;
  return parts.join("|") === closeFingerprint({ ...close, venue: close.venue ?? venue });
}
