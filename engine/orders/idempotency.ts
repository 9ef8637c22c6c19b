// Idempotency by client_id or request id (docs/engine.md, "Idempotency", "Request ids"): what `apply` keeps of
// an IdempotencyRecorded event, how a retry's answer is rebuilt from it and how a retry is judged. The event
// carries only what the state cannot give back (violations, headroom); the order and its fills are taken from the
// state as the event is applied, and the answer is rebuilt with the record functions the first answer was built
// with, so it is the same JSON.
import type { IdempotencyRecord } from "../basics/account-state.js";
import type { Catalogue } from "../market/catalogue.js";
import { unitsFor } from "../market/units.js";
import type { IdempotencyRecorded } from "../basics/events.js";
import { toFillRecord, toOrderRecord } from "../basics/order-records.js";
import { conflict, type PlaceOrderReply, type PlaceOrderResponse } from "../basics/replies.js";
import type { Run } from "../basics/run.js";
import { recordKey, type IdempotencyKey } from "../basics/record-keys.js";
import type { Fill, Order } from "../basics/order-types.js";

const NO_FILLS: readonly Fill[] = Object.freeze([]);

/**
 * The record of an IdempotencyRecorded event, applied right after the events of its decision that placed
 * the order: `order` is the order as the answer showed it, and `fills` (the live state's fills, or in a
 * draft only the decision's) end with that decision's fills. Every fill of a brand-new order is in its
 * placing decision, executed at the event's time; older fills are left at the first one executed earlier.
 */
export function idempotencyRecord(
  order: Order | undefined,
  fills: readonly Fill[],
  event: IdempotencyRecorded,
): IdempotencyRecord {
  if (event.response !== undefined) {
    return {
      order_id: event.order_id,
      fingerprint: event.fingerprint,
      recorded_at: event.at,
      response: event.response,
    };
  }
  if (order === undefined) throw new Error(`idempotency record for unknown order ${event.order_id}`);
  let own: Fill[] | undefined;
  let steps = 0;
  for (let i = fills.length - 1; i >= 0; i--) {
    const fill = fills[i] as Fill;
    if (fill.executed_at < event.at) break;
    if (fill.order_id !== event.order_id) continue;
    (own ??= []).push(fill);
    steps += fill.quantity;
  }
  // The order has been filled by exactly these fills so far: anything else means the event was not applied
  // right after its order's decision, and the answer would not be the one given.
  if (steps !== order.filled_quantity) {
    throw new Error(`idempotency record for order ${order.order_id}: its fills of ${event.at} do not add up`);
  }
  return {
    order_id: event.order_id,
    fingerprint: event.fingerprint,
    recorded_at: event.at,
    order,
    fills: own === undefined ? NO_FILLS : own.reverse(),
    violations: event.violations,
    risk_headroom: event.risk_headroom,
  };
}

/**
 * The answer first given for a record, rebuilt as `finish` (placement.ts) built it: the same record
 * functions, with the units of the order's symbol from the same catalogue.
 */
export function recordedResponse(
  record: IdempotencyRecord,
  accountId: string,
  catalogue: Catalogue,
): PlaceOrderResponse {
  if (record.response !== undefined) return record.response;
  const order = record.order;
  const units = unitsFor(catalogue, order.symbol);
  const fills = record.fills.map((fill) => toFillRecord(fill, accountId, units));
  return {
    order: toOrderRecord(order, units),
    fills,
    violations: record.violations,
    risk_headroom: record.risk_headroom,
  };
}

/** What the table of spent client_ids keeps of a record its account forgot (docs/engine.md, "Idempotency"). */
export interface SpentClientId {
  key: string;
  /** The order it placed. */
  id: string;
  at: number;
  fingerprint: string;
  /** The first answer, as `recordedResponse` rebuilds it, in JSON. */
  data: string;
}

/**
 * A forgotten record as the table of spent client_ids keeps it: the first answer rendered now, as a retry within
 * the window answers it, so a retry after it gets the same JSON.
 */
export function spentClientId(
  clientId: string,
  record: IdempotencyRecord,
  accountId: string,
  catalogue: Catalogue,
): SpentClientId {
  const data = JSON.stringify(recordedResponse(record, accountId, catalogue));
  return { key: clientId, id: record.order_id, at: record.recorded_at, fingerprint: record.fingerprint, data };
}

/** A row of the table read back, as the record a retry is judged against (its answer kept whole). */
export function recalledRecord(spent: {
  id: string;
  at: number;
  fingerprint: string;
  data: unknown;
}): IdempotencyRecord {
  return {
    order_id: spent.id,
    fingerprint: spent.fingerprint,
    recorded_at: spent.at,
    response: spent.data as PlaceOrderResponse,
  };
}

/**
 * A used key's record (by `recordKey`): the account's, or one it forgot that the shell looked up in the table of
 * spent keys for this decision (docs/engine.md, "Idempotency").
 */
export function recordOf(run: Run, key: string): IdempotencyRecord | undefined {
  return run.state.client_ids.get(key) ?? run.recalled(key);
}

/**
 * Rule 1: a used client_id or request id answers the original response, or 409 when the body differs
 * (`matches`, from orders/fingerprint.ts, compares the retry with the record as both were placed): with the
 * client_id, or, for a request id (which no caller sees), `reason: "request_id_reused"`.
 */
export function replayed(
  run: Run,
  key: IdempotencyKey | null,
  matches: (record: IdempotencyRecord) => boolean,
): PlaceOrderReply | undefined {
  if (key === null) return undefined;
  const record = recordOf(run, recordKey(key));
  if (record === undefined) return undefined;
  if (!matches(record)) {
    return "client_id" in key
      ? conflict({ client_id: key.client_id, order_id: record.order_id })
      : conflict({ reason: "request_id_reused", order_id: record.order_id });
  }
  return { kind: "replayed", ...recordedResponse(record, run.state.account_id, run.market.catalogue) };
}
