// engine.v1's webhook calls (docs/webhooks.md): the catch-up list of an account's events and one key's
// delivery log with redelivery. They read the outbox tables directly: what they show is committed.
import { ServiceError } from "../../kernel/errors.js";
import { unary, type UnaryOptions } from "../../kernel/grpc.js";
import type { Delivery } from "../../proto/gen/engine/v1/Delivery.js";
import type { EngineHandlers } from "../../proto/gen/engine/v1/Engine.js";
import type { WebhookEvent } from "../../proto/gen/engine/v1/WebhookEvent.js";
import { toIso } from "../basics/time.js";
import type { DeliveryRow, OutboxEvent } from "./delivery-log.js";
import type { WebhookStore } from "./store.js";

export const EVENTS_DEFAULT_LIMIT = 100;
export const EVENTS_MAX_LIMIT = 1000;
export const DELIVERIES_DEFAULT_LIMIT = 50;
export const DELIVERIES_MAX_LIMIT = 200;

function limitOf(value: number, fallback: number, max: number): number {
  if (value === 0) return fallback;
  if (value > max) throw ServiceError.invalid([{ path: "limit", message: `must be between 1 and ${max}` }]);
  return value;
}

function userOf(userId: string): string {
  if (userId === "") throw new ServiceError("unauthorized");
  return userId;
}

/** The caller and the page size of a list call (an unknown caller is refused before a bad limit). */
function pageOf(
  r: { user_id: string; limit: number },
  fallback: number,
  max: number,
): { userId: string; limit: number } {
  const userId = userOf(r.user_id);
  return { userId, limit: limitOf(r.limit, fallback, max) };
}

export function deliveryMessage(row: DeliveryRow): Delivery {
  return {
    delivery_id: row.deliveryId,
    event_id: row.eventId,
    event_type: row.eventType,
    account_id: row.accountId,
    sequence: row.sequence,
    url: row.url,
    status: row.status,
    attempts: row.attempts,
    ...(row.nextAttemptAt === null ? {} : { next_attempt_at: toIso(row.nextAttemptAt) }),
    ...(row.lastStatusCode === null ? {} : { last_status_code: row.lastStatusCode }),
    ...(row.lastError === null ? {} : { last_error: row.lastError }),
    ...(row.lastLatencyMs === null ? {} : { last_latency_ms: row.lastLatencyMs }),
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
    attempt_log: row.attemptLog.map((a) => ({
      attempt: a.attempt,
      started_at: toIso(a.startedAt),
      ...(a.statusCode === null ? {} : { status_code: a.statusCode }),
      ...(a.error === null ? {} : { error: a.error }),
      latency_ms: a.latencyMs,
    })),
  };
}

export function eventMessage(event: OutboxEvent): WebhookEvent {
  return {
    id: event.eventId,
    type: event.type,
    created_at: toIso(event.createdAt),
    account_id: event.accountId,
    sequence: event.sequence,
    data_json: event.data,
  };
}

export function webhookHandlers(
  store: WebhookStore,
  now: () => number,
  options: UnaryOptions,
): Pick<EngineHandlers, "ListEvents" | "ListDeliveries" | "Redeliver"> {
  return {
    ListEvents: unary(
      "ListEvents",
      async (r) => {
        const { userId, limit } = pageOf(r, EVENTS_DEFAULT_LIMIT, EVENTS_MAX_LIMIT);
        const page = await store.listEvents(userId, r.account_id.toLowerCase(), r.after, limit);
        return { events: page.events.map(eventMessage), has_more: page.hasMore };
      },
      options,
    ),
    ListDeliveries: unary(
      "ListDeliveries",
      async (r) => {
        const { userId, limit } = pageOf(r, DELIVERIES_DEFAULT_LIMIT, DELIVERIES_MAX_LIMIT);
        const before = r.before === "" ? undefined : r.before.toLowerCase();
        const page = await store.listDeliveries(userId, r.api_key_id.toLowerCase(), limit, before);
        return { deliveries: page.deliveries.map(deliveryMessage), has_more: page.hasMore };
      },
      options,
    ),
    Redeliver: unary(
      "Redeliver",
      async (r) => {
        const row = await store.redeliver(
          userOf(r.user_id),
          r.api_key_id.toLowerCase(),
          r.delivery_id.toLowerCase(),
          now(),
        );
        if (row === undefined) throw new ServiceError("not_found");
        return deliveryMessage(row);
      },
      options,
    ),
  };
}
