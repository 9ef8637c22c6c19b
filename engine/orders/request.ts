// Request normalisation (docs/engine.md, "Placement rules"): the engine's own check of a place-order or
// close-position body, whatever the gateway already did. Symbols become `<BASE>-USD`, decimals are put on the
// ticker's grid exactly, defaults are filled in, and every bad field gets one issue. The normalised request
// is what the idempotency fingerprint is made of (orders/fingerprint.ts): two bodies that normalise equal are
// the same order.
import type { Catalogue, TickerSpec } from "../market/catalogue.js";
import { normalizeSymbol } from "../market/symbols.js";
import { VENUES, type Venue } from "../market/types.js";
import { toGridCount, type DecimalInput, type Grid, type TickerUnits, tickerUnits } from "../market/units.js";
import type { Issue } from "../../kernel/errors.js";
import { parseIsoInstant } from "../basics/time.js";
import { OrderKind, Side, TimeInForce, type OrderTerms } from "../basics/order-types.js";

/** POST /v1/order, as the gateway hands it over (types are checked here again). */
export interface PlaceOrderRequest {
  account_id: string;
  symbol: string;
  side: string;
  kind: string;
  quantity: DecimalInput;
  limit_price?: DecimalInput | null;
  trigger_price?: DecimalInput | null;
  time_in_force?: string | null;
  expire_at?: string | null;
  post_only?: boolean | null;
  reduce_only?: boolean | null;
  index_trigger?: boolean | null;
  mark_trigger?: boolean | null;
  client_id?: string | null;
  venue?: string | null;
  parent_order_id?: string | null;
  position_id?: string | null;
  /** The gateway's id of this call (docs/engine.md, "Request ids"). */
  request_id?: string | null;
}

/** POST /v1/position/close. */
export interface ClosePositionRequest {
  account_id: string;
  symbol: string;
  quantity?: DecimalInput | null;
  kind?: string | null;
  price?: DecimalInput | null;
  time_in_force?: string | null;
  client_id?: string | null;
  venue?: string | null;
  position_id?: string | null;
  /** The gateway's id of this call (docs/engine.md, "Request ids"). */
  request_id?: string | null;
}

/** A valid place-order request on the ticker's grid (prices in ticks, quantity in steps). */
export interface NormalizedOrder extends OrderTerms {
  readonly spec: TickerSpec;
  readonly units: TickerUnits;
  readonly venue: Venue | null;
  /** The gateway's id of the call: the record's key when `client_id` is null; never on the order. */
  readonly request_id: string | null;
}

/** A valid close-position request. `quantity` null closes the whole position. */
export interface NormalizedClose {
  readonly spec: TickerSpec;
  readonly units: TickerUnits;
  readonly symbol: string;
  readonly kind: "MARKET" | "LIMIT";
  readonly quantity: number | null;
  readonly limit_price: number | null;
  readonly time_in_force: TimeInForce;
  readonly post_only: boolean;
  readonly client_id: string | null;
  readonly venue: Venue | null;
  readonly position_id: string | null;
  /** The gateway's id of the call: the record's key when `client_id` is null. */
  readonly request_id: string | null;
}

export type Normalized<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: Issue[] };

const KINDS: ReadonlySet<OrderKind> = new Set(Object.values(OrderKind));
const SIDES: ReadonlySet<Side> = new Set(Object.values(Side));
const TIFS: ReadonlySet<TimeInForce> = new Set(Object.values(TimeInForce));
const VENUE_SET: ReadonlySet<string> = new Set(VENUES);
const PRINTABLE = /^[\x20-\x7e]+$/;
export const CLIENT_ID_MAX = 64;

function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

function flag(issues: Issue[], path: string, value: unknown): boolean {
  if (isAbsent(value)) return false;
  if (typeof value === "boolean") return value;
  issues.push({ path, message: "must be a boolean" });
  return false;
}

/** An order or position id: UUIDs are case-insensitive (docs/decisions.md, "Ids"), minted in lower case. */
function optionalId(issues: Issue[], path: string, value: unknown): string | null {
  if (isAbsent(value)) return null;
  if (typeof value === "string" && value.length > 0) return value.toLowerCase();
  issues.push({ path, message: "must be an identifier string" });
  return null;
}

/** A client_id, or a request id (`path` "request_id"): 1 to 64 printable ASCII characters. */
function clientId(issues: Issue[], value: unknown, path = "client_id"): string | null {
  if (isAbsent(value)) return null;
  if (typeof value !== "string" || value.length === 0 || value.length > CLIENT_ID_MAX || !PRINTABLE.test(value)) {
    issues.push({ path, message: `must be 1 to ${CLIENT_ID_MAX} printable ASCII characters` });
    return null;
  }
  return value;
}

function venueOf(issues: Issue[], value: unknown): Venue | null {
  if (isAbsent(value)) return null;
  if (typeof value === "string" && VENUE_SET.has(value)) return value as Venue;
  issues.push({ path: "venue", message: `must be one of ${VENUES.join(", ")}` });
  return null;
}

function symbolOf(issues: Issue[], value: unknown, catalogue: Catalogue): TickerSpec | undefined {
  let spec: TickerSpec | undefined;
  if (typeof value === "string") {
    spec = catalogue.byKey(value);
    if (spec === undefined) {
      const symbol = normalizeSymbol(value, catalogue);
      spec = symbol === undefined ? undefined : catalogue.byKey(symbol);
    }
  }
  if (spec === undefined) issues.push({ path: "symbol", message: "unknown symbol; see GET /v1/tickers" });
  return spec;
}

/**
 * A positive amount on a grid, or an issue (the same words for a placement and an amend). `minimum` in grid
 * steps.
 */
export function amount(
  issues: Issue[],
  path: string,
  value: unknown,
  grid: Grid | undefined,
  gridName: "tick_size" | "quantity_step",
  minimum = 1,
): number | null {
  if (grid === undefined) return null;
  const parsed = toGridCount(value, grid);
  if (!parsed.ok) {
    const message =
      parsed.problem === "not_a_decimal"
        ? "must be a number or a decimal string"
        : parsed.problem === "off_grid"
          ? `must be a multiple of the symbol's ${gridName}`
          : "is too large";
    issues.push({ path, message });
    return null;
  }
  if (parsed.count <= 0) {
    issues.push({ path, message: "must be greater than zero" });
    return null;
  }
  if (parsed.count < minimum) {
    issues.push({ path, message: "is below the symbol's min_quantity" });
    return null;
  }
  return parsed.count;
}

function oneOf<T extends string>(issues: Issue[], path: string, value: unknown, allowed: ReadonlySet<T>): T | null {
  if (typeof value === "string" && (allowed as ReadonlySet<string>).has(value)) return value as T;
  issues.push({ path, message: `must be one of ${[...allowed].join(", ")}` });
  return null;
}

/**
 * Normalises a place-order body. `nowMs` refuses an `expire_at` that is not in the future; null skips that
 * one check (a retry is compared with its first body whatever the time).
 */
export function normalizePlaceOrder(
  request: PlaceOrderRequest,
  catalogue: Catalogue,
  nowMs: number | null,
): Normalized<NormalizedOrder> {
  const issues: Issue[] = [];
  const spec = symbolOf(issues, request.symbol, catalogue);
  const units = spec === undefined ? undefined : tickerUnits(spec);
  const side = oneOf(issues, "side", request.side, SIDES);
  const kind = oneOf(issues, "kind", request.kind, KINDS);
  const isTrigger = kind === "STOP" || kind === "TAKE_PROFIT";
  let quantity: number | null = null;
  if (isAbsent(request.quantity)) issues.push({ path: "quantity", message: "is required" });
  else quantity = amount(issues, "quantity", request.quantity, units?.step, "quantity_step", units?.minSteps ?? 1);
  const limitPrice = limitPriceOf(issues, request.limit_price, kind, units);
  const triggerPrice = triggerPriceOf(issues, request.trigger_price, isTrigger, units);
  const timeInForce = timeInForceOf(issues, request.time_in_force, kind);
  const expireAt = expireAtOf(issues, request.expire_at, timeInForce, nowMs);
  const postOnly = postOnlyOf(issues, request.post_only, kind, timeInForce);
  const reduceOnly = flag(issues, "reduce_only", request.reduce_only);
  const indexTrigger = indexTriggerOf(issues, request, kind, isTrigger);
  const client = clientId(issues, request.client_id);
  const requestId = clientId(issues, request.request_id, "request_id");
  const venue = venueOf(issues, request.venue);
  const parent = optionalId(issues, "parent_order_id", request.parent_order_id);
  const position = optionalId(issues, "position_id", request.position_id);
  if (
    issues.length > 0 ||
    spec === undefined ||
    units === undefined ||
    side === null ||
    kind === null ||
    quantity === null ||
    timeInForce === null
  ) {
    return { ok: false, issues };
  }
  const value: NormalizedOrder = {
    spec,
    units,
    symbol: spec.symbol,
    side,
    kind,
    quantity,
    limit_price: limitPrice,
    trigger_price: triggerPrice,
    time_in_force: timeInForce,
    expire_at: expireAt,
    post_only: postOnly,
    reduce_only: reduceOnly,
    index_trigger: isTrigger && indexTrigger,
    mark_trigger: isTrigger && !indexTrigger,
    client_id: client,
    venue,
    parent_order_id: parent,
    position_id: position,
    request_id: requestId,
  };
  return { ok: true, value };
}

/** The limit price: required on a LIMIT order, refused on any other. */
function limitPriceOf(issues: Issue[], value: unknown, kind: OrderKind | null, units: TickerUnits | undefined) {
  if (kind === "LIMIT") {
    if (isAbsent(value)) issues.push({ path: "limit_price", message: "is required for a LIMIT order" });
    else return amount(issues, "limit_price", value, units?.tick, "tick_size");
  } else if (!isAbsent(value)) {
    issues.push({ path: "limit_price", message: "is allowed only on a LIMIT order" });
  }
  return null;
}

/** The trigger price: required on a STOP or TAKE_PROFIT order, refused on any other. */
function triggerPriceOf(issues: Issue[], value: unknown, isTrigger: boolean, units: TickerUnits | undefined) {
  if (isTrigger) {
    if (isAbsent(value)) issues.push({ path: "trigger_price", message: "is required for a STOP or TAKE_PROFIT order" });
    else return amount(issues, "trigger_price", value, units?.tick, "tick_size");
  } else if (!isAbsent(value)) {
    issues.push({ path: "trigger_price", message: "is allowed only on a STOP or TAKE_PROFIT order" });
  }
  return null;
}

/** The time in force: IOC for a MARKET order (which takes only IOC or FOK), else GTC, unless given. */
function timeInForceOf(issues: Issue[], value: unknown, kind: OrderKind | null): TimeInForce | null {
  let timeInForce: TimeInForce | null = kind === "MARKET" ? "IOC" : "GTC";
  if (!isAbsent(value)) timeInForce = oneOf(issues, "time_in_force", value, TIFS);
  if (kind === "MARKET" && timeInForce !== null && timeInForce !== "IOC" && timeInForce !== "FOK") {
    issues.push({ path: "time_in_force", message: "a MARKET order takes IOC or FOK" });
  }
  return timeInForce;
}

/** The expiry (epoch ms): required with GTD and in the future (unless `nowMs` is null), refused otherwise. */
function expireAtOf(
  issues: Issue[],
  value: unknown,
  timeInForce: TimeInForce | null,
  nowMs: number | null,
): number | null {
  if (timeInForce === "GTD") {
    if (isAbsent(value)) issues.push({ path: "expire_at", message: "is required with GTD" });
    else {
      const parsed = typeof value === "string" ? parseIsoInstant(value) : undefined;
      if (parsed === undefined) issues.push({ path: "expire_at", message: "must be an ISO 8601 instant with a zone" });
      else if (nowMs !== null && parsed <= nowMs) issues.push({ path: "expire_at", message: "must be in the future" });
      else return parsed;
    }
  } else if (!isAbsent(value)) {
    issues.push({ path: "expire_at", message: "is allowed only with GTD" });
  }
  return null;
}

/** Post-only: the flag or GTX, on a LIMIT order that rests. */
function postOnlyOf(issues: Issue[], value: unknown, kind: OrderKind | null, timeInForce: TimeInForce | null) {
  const postOnlyFlag = flag(issues, "post_only", value);
  const postOnly = postOnlyFlag || timeInForce === "GTX";
  if (postOnly && kind !== null && kind !== "LIMIT") {
    issues.push({ path: "post_only", message: "only a LIMIT order can be post-only (a market order always takes)" });
  } else if (postOnlyFlag && (timeInForce === "IOC" || timeInForce === "FOK")) {
    issues.push({ path: "post_only", message: "a post-only order rests: use GTC, GTD or GTX" });
  }
  return postOnly;
}

/** Whether a trigger order watches the index (else the mark): the two flags exclusive, on trigger orders only. */
function indexTriggerOf(issues: Issue[], request: PlaceOrderRequest, kind: OrderKind | null, isTrigger: boolean) {
  const indexTrigger = flag(issues, "index_trigger", request.index_trigger);
  const markTrigger = flag(issues, "mark_trigger", request.mark_trigger);
  if (indexTrigger && markTrigger) {
    issues.push({ path: "index_trigger", message: "index_trigger and mark_trigger are exclusive" });
  } else if ((indexTrigger || markTrigger) && kind !== null && !isTrigger) {
    issues.push({
      path: indexTrigger ? "index_trigger" : "mark_trigger",
      message: "trigger flags are allowed only on STOP and TAKE_PROFIT orders",
    });
  }
  return indexTrigger;
}

/** Normalises a close-position body (kind MARKET or LIMIT; `price` is the limit price). */
export function normalizeClose(request: ClosePositionRequest, catalogue: Catalogue): Normalized<NormalizedClose> {
  const issues: Issue[] = [];
  const spec = symbolOf(issues, request.symbol, catalogue);
  const units = spec === undefined ? undefined : tickerUnits(spec);
  let kind: "MARKET" | "LIMIT" | null = "MARKET";
  if (!isAbsent(request.kind)) {
    kind = request.kind === "MARKET" || request.kind === "LIMIT" ? request.kind : null;
    if (kind === null) issues.push({ path: "kind", message: "a close takes MARKET or LIMIT" });
  }
  const quantity = isAbsent(request.quantity)
    ? null
    : amount(issues, "quantity", request.quantity, units?.step, "quantity_step");
  let limitPrice: number | null = null;
  if (kind === "LIMIT") {
    if (isAbsent(request.price)) issues.push({ path: "price", message: "is required for a LIMIT close" });
    else limitPrice = amount(issues, "price", request.price, units?.tick, "tick_size");
  } else if (!isAbsent(request.price)) {
    issues.push({ path: "price", message: "is allowed only on a LIMIT close" });
  }
  let timeInForce: TimeInForce | null = kind === "LIMIT" ? "GTC" : "IOC";
  if (!isAbsent(request.time_in_force)) timeInForce = oneOf(issues, "time_in_force", request.time_in_force, TIFS);
  if (timeInForce === "GTD") issues.push({ path: "time_in_force", message: "a close takes GTC, GTX, IOC or FOK" });
  if (kind === "MARKET" && (timeInForce === "GTC" || timeInForce === "GTX")) {
    issues.push({ path: "time_in_force", message: "a MARKET close takes IOC or FOK" });
  }
  const client = clientId(issues, request.client_id);
  const requestId = clientId(issues, request.request_id, "request_id");
  const venue = venueOf(issues, request.venue);
  const position = optionalId(issues, "position_id", request.position_id);
  if (issues.length > 0 || spec === undefined || units === undefined || kind === null || timeInForce === null) {
    return { ok: false, issues };
  }
  return {
    ok: true,
    value: {
      spec,
      units,
      symbol: spec.symbol,
      kind,
      quantity,
      limit_price: limitPrice,
      time_in_force: timeInForce,
      post_only: timeInForce === "GTX",
      client_id: client,
      venue,
      position_id: position,
      request_id: requestId,
    },
  };
}
