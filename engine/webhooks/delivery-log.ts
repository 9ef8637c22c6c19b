// The webhook tables as a key's owner reaches them through engine.v1 (docs/webhooks.md, "Catching up",
// "Delivery log and redelivery"): an account's events after a sequence, one key's deliveries with their
// attempts, and a redelivery, each bounded by the store's deadline when it has one. Nobody else's account or
// key is ever shown (not_found or an empty page). engine/webhooks/store.ts adds the dispatcher's work on the
// same tables.
import type pg from "pg";
import { bounded } from "../../kernel/db-deadline.js";
import { ServiceError } from "../../kernel/errors.js";
import { isUuid } from "../../kernel/uuid.js";

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed", "disabled", "canceled"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface OutboxEvent {
  eventId: string;
  type: string;
  accountId: string;
  sequence: number;
  /** Epoch ms. */
  createdAt: number;
  /** The envelope's `data` as JSON text. */
  data: string;
}

export interface AttemptRow {
  attempt: number;
  startedAt: number;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
}

export interface DeliveryRow {
  deliveryId: string;
  eventId: string;
  eventType: string;
  accountId: string;
  sequence: number;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  lastLatencyMs: number | null;
  createdAt: number;
  updatedAt: number;
  attemptLog: AttemptRow[];
}

export const ms = (value: Date | null): number | null => (value === null ? null : value.getTime());

export interface EventDb {
  event_id: string;
  type: string;
  account_id: string;
  sequence: string;
  created_at: Date;
  data: string;
}

export const eventOf = (row: EventDb): OutboxEvent => ({
  eventId: row.event_id,
  type: row.type,
  accountId: row.account_id,
  sequence: Number(row.sequence),
  createdAt: row.created_at.getTime(),
  data: row.data,
});

interface DeliveryDb {
  delivery_id: string;
  event_id: string;
  type: string;
  account_id: string;
  sequence: string;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
  created_at: Date;
  updated_at: Date;
}

const DELIVERY_COLUMNS = `d.delivery_id, d.event_id, o.type, o.account_id, o.sequence, d.url, d.status, d.attempts,
  d.next_attempt_at, d.last_status_code, d.last_error, d.last_latency_ms, d.created_at, d.updated_at`;

/** The owners' side of the webhook tables; WebhookStore (engine/webhooks/store.ts) is this plus the dispatcher's. */
export class DeliveryLog {
  constructor(
    protected readonly pool: pg.Pool,
    /**
     * Longest wait for the answer to a read a caller waits for (catch-up events, the delivery log, a
     * redelivery, the backlog gauge at scrape time); unbounded when absent. The dispatcher's own work is not.
     */
    private readonly timeoutMs?: number,
  ) {}

  /** A statement a caller waits for, with the store's deadline when it has one. */
  protected waited(text: string, values: unknown[] = []): pg.QueryConfig {
    return this.timeoutMs === undefined ? { text, values } : bounded(this.timeoutMs, text, values);
  }

  /** not_found unless the account is the user's. */
  async checkOwner(userId: string, accountId: string): Promise<void> {
    if (!isUuid(accountId)) throw new ServiceError("not_found");
    const owner = await this.pool.query<{ user_id: string }>(
      this.waited("SELECT user_id FROM engine_accounts WHERE account_id = $1", [accountId]),
    );
    if (owner.rows[0]?.user_id !== userId) throw new ServiceError("not_found");
  }

  /** The account's last committed event sequence (0 when none). */
  async lastSequence(accountId: string): Promise<number> {
    const result = await this.pool.query<{ last: string | null }>(
      this.waited("SELECT max(sequence) AS last FROM engine_outbox WHERE account_id = $1", [accountId]),
    );
    return Number(result.rows[0]?.last ?? 0);
  }

  /**
   * The account's events with sequence > `after`, oldest first; not_found unless the account is the user's
   * (never an empty page for someone else's account: no existence leak).
   */
  async listEvents(
    userId: string,
    accountId: string,
    after: number,
    limit: number,
  ): Promise<{ events: OutboxEvent[]; hasMore: boolean }> {
    await this.checkOwner(userId, accountId);
    const result = await this.pool.query<EventDb>(
      this.waited(
        `SELECT event_id, type, account_id, sequence, created_at, data::text AS data
         FROM engine_outbox WHERE account_id = $1 AND sequence > $2 ORDER BY sequence LIMIT $3`,
        [accountId, after, limit + 1],
      ),
    );
    return { events: result.rows.slice(0, limit).map(eventOf), hasMore: result.rows.length > limit };
  }

  /** One key's deliveries, newest first, each with its attempts; `before` pages on from a delivery id. */
  async listDeliveries(
    userId: string,
    apiKeyId: string,
    limit: number,
    before: string | undefined,
  ): Promise<{ deliveries: DeliveryRow[]; hasMore: boolean }> {
    if (!isUuid(apiKeyId)) return { deliveries: [], hasMore: false };
    if (before !== undefined) {
      const cursor = isUuid(before)
        ? await this.pool.query(
            this.waited(
              "SELECT 1 FROM webhook_deliveries WHERE delivery_id = $1 AND user_id = $2 AND api_key_id = $3",
              [before, userId, apiKeyId],
            ),
          )
        : undefined;
      if (cursor?.rowCount !== 1) {
        throw ServiceError.invalid([
          { path: "before", message: "must be the deliveryId of one of this key's deliveries" },
        ]);
      }
    }
    const result = await this.pool.query<DeliveryDb>(
      this.waited(
        `SELECT ${DELIVERY_COLUMNS}
         FROM webhook_deliveries d JOIN engine_outbox o ON o.event_id = d.event_id
        WHERE d.user_id = $1 AND d.api_key_id = $2
          AND ($4::uuid IS NULL OR (d.created_at, d.delivery_id) <
               (SELECT created_at, delivery_id FROM webhook_deliveries WHERE delivery_id = $4::uuid))
        ORDER BY d.created_at DESC, d.delivery_id DESC
        LIMIT $3`,
        [userId, apiKeyId, limit + 1, before ?? null],
      ),
    );
    const rows = result.rows.slice(0, limit);
    const attempts = await this.attemptsOf(rows.map((row) => row.delivery_id));
    return {
      deliveries: rows.map((row) => deliveryOf(row, attempts.get(row.delivery_id) ?? [])),
      hasMore: result.rows.length > limit,
    };
  }

  /** Makes a delivery of this user's key due now (one more attempt, whatever its status); undefined if none. */
  async redeliver(userId: string, apiKeyId: string, deliveryId: string, now: number): Promise<DeliveryRow | undefined> {
    if (!isUuid(apiKeyId) || !isUuid(deliveryId)) return undefined;
    const result = await this.pool.query<DeliveryDb>(
      this.waited(
        `WITH updated AS (
         -- A delivery whose attempt is in flight keeps its lease (no second sender); that attempt's outcome
         -- then decides its status.
         -- Its next_attempt_at never moves later while it is in flight either (the claim finds a key's leases
         -- among its due deliveries, and this clock may run ahead of the dispatcher's).
         UPDATE webhook_deliveries
            SET status = 'pending',
                next_attempt_at = CASE WHEN lease_until > to_timestamp($4 / 1000.0)
                                       THEN LEAST(next_attempt_at, to_timestamp($4 / 1000.0))
                                       ELSE to_timestamp($4 / 1000.0) END,
                lease_until = CASE WHEN lease_until > to_timestamp($4 / 1000.0) THEN lease_until END,
                updated_at = to_timestamp($4 / 1000.0)
          WHERE delivery_id = $3 AND user_id = $1 AND api_key_id = $2
         RETURNING *
       )
       SELECT ${DELIVERY_COLUMNS} FROM updated d JOIN engine_outbox o ON o.event_id = d.event_id`,
        [userId, apiKeyId, deliveryId, now],
      ),
    );
    const row = result.rows[0];
    if (row === undefined) return undefined;
    const attempts = await this.attemptsOf([row.delivery_id]);
    return deliveryOf(row, attempts.get(row.delivery_id) ?? []);
  }

  private async attemptsOf(deliveryIds: readonly string[]): Promise<Map<string, AttemptRow[]>> {
    const byDelivery = new Map<string, AttemptRow[]>();
    if (deliveryIds.length === 0) return byDelivery;
    const result = await this.pool.query<{
      delivery_id: string;
      attempt: number;
      started_at: Date;
      status_code: number | null;
      error: string | null;
      latency_ms: number;
    }>(
      this.waited(
        `SELECT delivery_id, attempt, started_at, status_code, error, latency_ms
         FROM webhook_attempts WHERE delivery_id = ANY($1::uuid[]) ORDER BY delivery_id, attempt`,
        [deliveryIds],
      ),
    );
    for (const row of result.rows) {
      let list = byDelivery.get(row.delivery_id);
      if (list === undefined) byDelivery.set(row.delivery_id, (list = []));
      list.push({
        attempt: row.attempt,
        startedAt: row.started_at.getTime(),
        statusCode: row.status_code,
        error: row.error,
        latencyMs: row.latency_ms,
      });
    }
    return byDelivery;
  }
}

function deliveryOf(row: DeliveryDb, attempts: AttemptRow[]): DeliveryRow {
  return {
    deliveryId: row.delivery_id,
    eventId: row.event_id,
    eventType: row.type,
    accountId: row.account_id,
    sequence: Number(row.sequence),
    url: row.url,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: ms(row.next_attempt_at),
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    lastLatencyMs: row.last_latency_ms,
    createdAt: row.created_at.getTime(),
    updatedAt: row.updated_at.getTime(),
    attemptLog: attempts,
  };
}
