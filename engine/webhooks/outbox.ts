// What an account's events say to the outside (docs/webhooks.md, "Event types"): each journal event maps to zero
// or more webhook events, rendered from the state right after the event was applied, with the records of the
// REST API as `data`. The shard writes them to the outbox in the same statement as the journal rows, and
// numbers them per account (`sequence`, from 1, by one): replay counts them with `outboxKinds` alone.
import { accountRecord, historyRow, orderById } from "../accounts/queries.js";
import { breachRow } from "../accounts/risk-queries.js";
import type { AccountState } from "../basics/account-state.js";
import type { MarketView } from "../market/book.js";
import { unitsFor } from "../market/units.js";
import type { CancelAfterFired, EngineEvent } from "../basics/events.js";
import { toIso } from "../basics/time.js";
import { toFillRecord } from "../basics/order-records.js";

export const WEBHOOK_TYPES = [
  "order.ack",
  "order.fill",
  "order.cancel",
  "position.close",
  "account.breach",
  "account.passed",
  "account.cancel_after",
] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];

/** One webhook event as decided: its type and the JSON text of its `data`. */
export interface OutboxEntry {
  type: WebhookType;
  /** Epoch ms of the event (the envelope's `created_at`). */
  at: number;
  data: string;
}

const NONE: readonly WebhookType[] = [];
const ACK: readonly WebhookType[] = ["order.ack"];
const FILL: readonly WebhookType[] = ["order.fill"];
const FILL_AND_CLOSE: readonly WebhookType[] = ["order.fill", "position.close"];
const CANCEL: readonly WebhookType[] = ["order.cancel"];
const BREACH: readonly WebhookType[] = ["account.breach"];
const PASSED: readonly WebhookType[] = ["account.passed"];
const CANCEL_AFTER: readonly WebhookType[] = ["account.cancel_after"];

/** Whether this fill closed its position: the newest closed row is its position (ids are never reused). */
function closedBy(state: AccountState, positionId: string): boolean {
  const rows = state.closed_positions;
  return rows.length > 0 && rows[rows.length - 1]?.position_id === positionId;
}

/**
 * The webhook types an event produces, judged on the state after it was applied. Pure and cheap: the shard
 * calls it on replay to know each account's last outbox sequence without rendering anything.
 */
export function outboxKinds(state: AccountState, event: EngineEvent): readonly WebhookType[] {
  switch (event.type) {
    case "OrderAccepted":
    case "OrderRejected":
      return ACK;
    case "OrderFilled":
      return event.effect === "reduce" && closedBy(state, event.fill.position_id) ? FILL_AND_CLOSE : FILL;
    case "OrderCanceled":
    case "OrderExpired":
      return CANCEL;
    case "BreachRecorded":
      return BREACH;
    case "AccountPassed":
      return PASSED;
    case "CancelAfterFired":
      return CANCEL_AFTER;
    default:
      return NONE;
  }
}

function orderData(state: AccountState, market: MarketView, orderId: string, extra: Record<string, unknown>): string {
  const record = orderById(state, market, orderId);
  if (record === undefined) throw new Error(`outbox: order ${orderId} is not in the account`);
  return JSON.stringify({ ...record, ...extra });
}

/** Renders the webhook events of one applied event (their `data` as the REST API shows the records). */
export function outboxEntries(state: AccountState, event: EngineEvent, market: MarketView): OutboxEntry[] {
  const kinds = outboxKinds(state, event);
  if (kinds.length === 0) return [];
  switch (event.type) {
    case "OrderAccepted":
      return [
        { type: "order.ack", at: event.at, data: orderData(state, market, event.order.order_id, { violations: [] }) },
      ];
    case "OrderRejected":
      return [
        {
          type: "order.ack",
          at: event.at,
          data: orderData(state, market, event.order.order_id, { violations: event.violations }),
        },
      ];
    case "OrderFilled": {
      const fill = toFillRecord(event.fill, state.account_id, unitsFor(market.catalogue, event.fill.symbol));
      const entries: OutboxEntry[] = [{ type: "order.fill", at: event.at, data: JSON.stringify(fill) }];
      const closed = state.closed_positions[state.closed_positions.length - 1];
      if (kinds.length > 1 && closed !== undefined) {
        entries.push({ type: "position.close", at: event.at, data: JSON.stringify(historyRow(state, market, closed)) });
      }
      return entries;
    }
    case "OrderCanceled":
    case "OrderExpired":
      return [
        {
          type: "order.cancel",
          at: event.at,
          data: orderData(state, market, event.order_id, { reason: event.reason }),
        },
      ];
    case "BreachRecorded":
      return [{ type: "account.breach", at: event.at, data: JSON.stringify(breachRow(event.breach)) }];
    case "AccountPassed":
      return [
        {
          type: "account.passed",
          at: event.at,
          data: JSON.stringify({ ...accountRecord(state, market), rules_version: state.plan.rules_version }),
        },
      ];
    case "CancelAfterFired":
      return [{ type: "account.cancel_after", at: event.at, data: JSON.stringify(cancelAfterData(state, event)) }];
    default:
      return [];
  }
}

/** One order the switch canceled or kept, as `account.cancel_after` lists it (docs/webhooks.md). */
function orderSummary(state: AccountState, orderId: string) {
  const order = state.orders.get(orderId);
  if (order === undefined) throw new Error(`outbox: order ${orderId} is not in the account`);
  return {
    order_id: order.order_id,
    client_id: order.client_id,
    symbol: order.symbol,
    venue: order.venue,
    side: order.side,
    kind: order.kind,
    reduce_only: order.reduce_only,
    parent_order_id: order.parent_order_id,
    status: order.status,
  };
}

function cancelAfterData(state: AccountState, event: CancelAfterFired) {
  return {
    account_id: state.account_id,
    timeout_ms: event.timeout_ms,
    deadline: toIso(event.deadline),
    fired_at: toIso(event.at),
    canceled: event.canceled.map(({ order_id, reason }) => ({ ...orderSummary(state, order_id), reason })),
    kept: event.kept.map((orderId) => orderSummary(state, orderId)),
  };
}
