// The webhook tables (engine/migrations/003_outbox.sql, 005_outbox_pending.sql) through `pg`: the outbox the
// shards write with its queue of events not fanned out yet, the deliveries the dispatcher creates from them and
// works through, and the reads of the catch-up endpoint and the delivery log. Every write is ONE statement
// (the embedded PGlite lends its one session to one connection at a time, docs/embedded-database.md: no
// transaction may wait on anything) but the claim, which takes an advisory
// lock first and then runs its one statement (under PGlite, one session, the lock never waits); every claim is
// guarded by a lease so several engines can dispatch side by side, and a key's lane runs in one engine at a time.
import type pg from "pg";
import { transaction } from "../../kernel/db.js";
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

export interface UnfannedEvent {
  eventId: string;
  userId: string;
  /** Its queue entry's `created_at` as PostgreSQL's text (exact to the microsecond): half of the entry's key. */
  queuedAt: string;
}

export interface NewDelivery {
  deliveryId: string;
  eventId: string;
  apiKeyId: string;
  userId: string;
  url: string;
}

/** A delivery claimed for an attempt, with the event it carries. */
export interface ClaimedDelivery {
  deliveryId: string;
  apiKeyId: string;
  userId: string;
  url: string;
  /** Attempts made before this one. */
  attempts: number;
  event: OutboxEvent;
}

export interface AttemptRecord {
  deliveryId: string;
  /** 1-based number of this attempt. */
  attempt: number;
  startedAt: number;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  /** The delivery after the attempt. */
  status: DeliveryStatus;
  nextAttemptAt: number | null;
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

export interface Backlog {
  /** Events not fanned out yet plus deliveries still pending. */
  size: number;
  /** Age (ms) of the oldest event among them; 0 when there is none. */
  oldestMs: number;
}

const ms = (value: Date | null): number | null => (value === null ? null : value.getTime());

interface EventDb {
  event_id: string;
  type: string;
  account_id: string;
  sequence: string;
  created_at: Date;
  data: string;
}

const eventOf = (row: EventDb): OutboxEvent => ({
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

/** The advisory lock (hashtext of this) that serialises claims across engines. */
export const CLAIM_LOCK = "webhook_deliveries_claim";

type ClaimedDb = EventDb & { delivery_id: string; api_key_id: string; user_id: string; url: string; attempts: number };

/**
 * The claim (see WebhookStore.claimDue). A lane's deliveries are all leased at its claim and each lease is released
 * as its attempt is recorded, so a key holds a lease that has not run out from its claim until its lane's last
 * attempt is recorded (or the lease of a dead engine's lane runs out). Leased deliveries are due (they were when
 * claimed, and a redelivery never moves an in-flight one later), so looking among the due ones finds them all.
 * Each due delivery's (account, sequence) is looked up through the outbox's event_id index (OFFSET 0 keeps the
 * planner from hashing the whole outbox instead). Within a key, accounts take turns (the first due event of
 * each, then the second, ...): one busy account cannot hold back another's events, and each account's go in
 * sequence order.
 */
const CLAIM_SQL = `WITH due AS (
  SELECT delivery_id, event_id, api_key_id, next_attempt_at, lease_until
    FROM webhook_deliveries
   WHERE status = 'pending' AND next_attempt_at <= to_timestamp($1 / 1000.0)
     AND NOT (api_key_id = ANY($5::uuid[]))
     AND ($6::uuid[] IS NULL OR api_key_id = ANY($6::uuid[]))
), free AS (
  SELECT delivery_id, event_id, api_key_id, next_attempt_at FROM due
   WHERE api_key_id NOT IN (SELECT api_key_id FROM due WHERE lease_until >= to_timestamp($1 / 1000.0))
), ranked AS (
  SELECT f.delivery_id, f.api_key_id, f.next_attempt_at, o.account_id,
         row_number() OVER (PARTITION BY f.api_key_id, o.account_id ORDER BY o.sequence) AS r
    FROM free f
    CROSS JOIN LATERAL (
      SELECT account_id, sequence FROM engine_outbox WHERE event_id = f.event_id OFFSET 0
    ) o
), picked AS (
  SELECT delivery_id, api_key_id,
         row_number() OVER (PARTITION BY api_key_id ORDER BY r, account_id) AS n,
         min(next_attempt_at) OVER (PARTITION BY api_key_id) AS key_due
    FROM ranked
), chosen AS (
  SELECT delivery_id FROM picked WHERE n <= $3 ORDER BY key_due, api_key_id, n LIMIT $2
), leased AS (
  UPDATE webhook_deliveries d SET lease_until = to_timestamp(($1 + $4) / 1000.0)
    FROM chosen
   WHERE d.delivery_id = chosen.delivery_id AND d.status = 'pending'
     AND (d.lease_until IS NULL OR d.lease_until < to_timestamp($1 / 1000.0))
  RETURNING d.delivery_id, d.event_id, d.api_key_id, d.user_id, d.url, d.attempts
)
SELECT l.delivery_id, l.api_key_id, l.user_id, l.url, l.attempts,
       o.event_id, o.type, o.account_id, o.sequence, o.created_at, o.data::text AS data
  FROM leased l JOIN engine_outbox o ON o.event_id = l.event_id
 ORDER BY o.account_id, o.sequence`;

export class WebhookStore {
  constructor(
    private readonly pool: pg.Pool,
    /**
     * Longest wait for the answer to a read a caller waits for (catch-up events, the delivery log, a
     * redelivery, the backlog gauge at scrape time); unbounded when absent. The dispatcher's own work is not.
     */
    private readonly timeoutMs?: number,
  ) {}

  /** A statement a caller waits for, with the store's deadline when it has one. */
  private waited(text: string, values: unknown[] = []): pg.QueryConfig {
    return this.timeoutMs === undefined ? { text, values } : bounded(this.timeoutMs, text, values);
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
    if (!isUuid(accountId)) throw new ServiceError("not_found");
    const owner = await this.pool.query<{ user_id: string }>(
      this.waited("SELECT user_id FROM engine_accounts WHERE account_id = $1", [accountId]),
    );
    if (owner.rows[0]?.user_id !== userId) throw new ServiceError("not_found");
    const result = await this.pool.query<EventDb>(
      this.waited(
        `SELECT event_id, type, account_id, sequence, created_at, data::text AS data
         FROM engine_outbox WHERE account_id = $1 AND sequence > $2 ORDER BY sequence LIMIT $3`,
        [accountId, after, limit + 1],
      ),
    );
    return { events: result.rows.slice(0, limit).map(eventOf), hasMore: result.rows.length > limit };
  }

  /**
   * Events whose deliveries were not created yet (engine_outbox_pending), oldest first and, among events of one
   * millisecond (a termination decides many at once), in the outbox's (account, sequence) order, so a batch that
   * cuts through a millisecond takes each account's events as a prefix: fan-out never creates a later event's
   * deliveries before an earlier one's.
   */
  async unfanned(limit: number): Promise<UnfannedEvent[]> {
    const result = await this.pool.query<{ event_id: string; user_id: string; queued_at: string }>(
      // The queue's first `limit` entries by its primary key fix the cut (the newest millisecond taken); every
      // entry up to that millisecond is then ordered by the outbox's key, looked up once per entry through the
      // outbox's event_id index (OFFSET 0 keeps the planner from hashing the whole outbox instead).
      `WITH head AS (
         SELECT created_at FROM engine_outbox_pending ORDER BY created_at, event_id LIMIT $1
       ), cut AS (
         SELECT max(created_at) AS last FROM head
       )
       SELECT p.event_id, p.user_id, p.created_at::text AS queued_at
         FROM cut, engine_outbox_pending p
         LEFT JOIN LATERAL (
           SELECT o.account_id, o.sequence FROM engine_outbox o WHERE o.event_id = p.event_id OFFSET 0
         ) o ON true
        WHERE p.created_at <= cut.last
        ORDER BY p.created_at, o.account_id, o.sequence, p.event_id
        LIMIT $1`,
      [limit],
    );
    return result.rows.map((row) => ({ eventId: row.event_id, userId: row.user_id, queuedAt: row.queued_at }));
  }

  /**
   * Creates the deliveries of these events (as `unfanned` returned them: the oldest queued) and takes them off
   * the queue, in one statement. Idempotent: a second dispatcher doing the same events at the same time waits
   * for the first's rows, then creates nothing twice (one delivery per event and key) and finds nothing left to
   * delete.
   */
  async fanOut(events: readonly UnfannedEvent[], deliveries: readonly NewDelivery[], now: number): Promise<void> {
    if (events.length === 0) return;
    await this.pool.query(
      `WITH created AS (
         INSERT INTO webhook_deliveries (delivery_id, event_id, api_key_id, user_id, url, status, attempts,
                                         next_attempt_at, created_at, updated_at)
         SELECT d, e, k, u, url, 'pending', 0, to_timestamp($7 / 1000.0), to_timestamp($7 / 1000.0),
                to_timestamp($7 / 1000.0)
           FROM unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[]) AS x(d, e, k, u, url)
         ON CONFLICT (event_id, api_key_id) DO NOTHING
       ), queued AS (
         SELECT min(c) AS oldest, max(c) AS newest FROM unnest($8::timestamptz[]) AS c
       )
       -- A range of the primary key, then the ids: the planner would rather hash the whole queue than probe it
       -- once per event, which costs as much as a large backlog each time.
       DELETE FROM engine_outbox_pending p USING queued
        WHERE p.created_at BETWEEN queued.oldest AND queued.newest AND p.event_id = ANY($1::uuid[])`,
      [
        events.map((e) => e.eventId),
        deliveries.map((d) => d.deliveryId),
        deliveries.map((d) => d.eventId),
        deliveries.map((d) => d.apiKeyId),
        deliveries.map((d) => d.userId),
        deliveries.map((d) => d.url),
        now,
        events.map((e) => e.queuedAt),
      ],
    );
  }

  /**
   * Leases up to `limit` due deliveries until `now + leaseMs`, with their events: at most `perKey` per key, each
   * key's in its outbox (account, sequence) order, keys whose oldest due delivery is oldest first. A key is
   * skipped while it is in `busy` or any of its deliveries holds a lease that has not run out: its lane is
   * running, here or in another engine, and a key has one lane at a time. Claims are serialised across engines
   * (a transaction-scoped advisory lock taken before the claim statement, which therefore sees every earlier
   * claim's leases); nothing else is awaited inside that transaction. With `only`, just those keys.
   */
  async claimDue(
    now: number,
    limit: number,
    perKey: number,
    leaseMs: number,
    busy: readonly string[],
    only?: readonly string[],
  ): Promise<ClaimedDelivery[]> {
    const result = await transaction(this.pool, async (client) => {
      // No JIT for the claim: the per-delivery outbox lookups make its estimate look large enough to compile,
      // which costs far more than the statement itself (hundreds of ms on a large backlog).
      await client.query("SELECT set_config('jit', 'off', true), pg_advisory_xact_lock(hashtext($1))", [CLAIM_LOCK]);
      return client.query<ClaimedDb>(CLAIM_SQL, [now, limit, perKey, leaseMs, busy, only ?? null]);
    });
    return result.rows.map((row) => ({
      deliveryId: row.delivery_id,
      apiKeyId: row.api_key_id,
      userId: row.user_id,
      url: row.url,
      attempts: row.attempts,
      event: eventOf(row),
    }));
  }

  /**
   * Gives back the leases of claimed deliveries that were not attempted (a dispatcher stopping mid-lane), so the
   * key's lane can start again at once. `leaseUntil` is the lease the claim set (its `now + leaseMs`): a lease
   * that ran out and was taken by another claim since is left alone.
   */
  async releaseLeases(deliveryIds: readonly string[], leaseUntil: number): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.pool.query(
      `UPDATE webhook_deliveries SET lease_until = NULL
        WHERE delivery_id = ANY($1::uuid[]) AND status = 'pending' AND lease_until = to_timestamp($2 / 1000.0)`,
      [deliveryIds, leaseUntil],
    );
  }

  /** Records one attempt and moves the delivery on (status, next attempt, lease released), in one statement. */
  async recordAttempt(record: AttemptRecord): Promise<void> {
    await this.pool.query(
      `WITH attempt AS (
         INSERT INTO webhook_attempts (delivery_id, attempt, started_at, status_code, error, latency_ms)
         VALUES ($1, $2, to_timestamp($3 / 1000.0), $4, $5, $6)
         ON CONFLICT (delivery_id, attempt) DO NOTHING
       )
       UPDATE webhook_deliveries
          SET attempts = GREATEST(attempts, $2), status = $7,
              next_attempt_at = CASE WHEN $8::float8 IS NULL THEN NULL ELSE to_timestamp($8::float8 / 1000.0) END,
              lease_until = NULL, last_status_code = $4, last_error = $5, last_latency_ms = $6,
              updated_at = to_timestamp(($3 + $6) / 1000.0)
        WHERE delivery_id = $1`,
      [
        record.deliveryId,
        record.attempt,
        record.startedAt,
        record.statusCode,
        record.error,
        record.latencyMs,
        record.status,
        record.nextAttemptAt,
      ],
    );
  }

  /** Ends every pending delivery of a key without an attempt (revoked key, disabled webhook). */
  async endPendingOfKey(
    apiKeyId: string,
    status: "canceled" | "disabled",
    reason: string,
    now: number,
  ): Promise<number> {
    const result = await this.pool.query(
      `UPDATE webhook_deliveries
          SET status = $2, next_attempt_at = NULL, lease_until = NULL, last_error = $3,
              updated_at = to_timestamp($4 / 1000.0)
        WHERE api_key_id = $1 AND status = 'pending'`,
      [apiKeyId, status, reason, now],
    );
    return result.rowCount ?? 0;
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

  /**
   * Deletes up to `limit` events older than `before` that are settled (fanned out, i.e. no longer queued in
   * engine_outbox_pending, and no delivery pending), with their deliveries and attempts, in one statement;
   * returns how many events went.
   */
  async prune(before: number, limit: number): Promise<number> {
    const result = await this.pool.query(
      `WITH old AS (
         SELECT o.event_id FROM engine_outbox o
          WHERE o.created_at < to_timestamp($1 / 1000.0)
            AND NOT EXISTS (SELECT 1 FROM engine_outbox_pending p
                             WHERE p.created_at = o.created_at AND p.event_id = o.event_id)
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = o.event_id AND d.status = 'pending')
          LIMIT $2
       ), attempts AS (
         DELETE FROM webhook_attempts a USING webhook_deliveries d, old
          WHERE a.delivery_id = d.delivery_id AND d.event_id = old.event_id
       ), deliveries AS (
         DELETE FROM webhook_deliveries d USING old WHERE d.event_id = old.event_id
       )
       DELETE FROM engine_outbox o USING old WHERE o.event_id = old.event_id`,
      [before, limit],
    );
    return result.rowCount ?? 0;
  }

  async backlog(now: number): Promise<Backlog> {
    const result = await this.pool.query<{ size: string; oldest: Date | null }>(
      this.waited(
        `SELECT (SELECT count(*) FROM engine_outbox_pending)
            + (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS size,
              LEAST((SELECT min(created_at) FROM engine_outbox_pending),
                    (SELECT min(created_at) FROM webhook_deliveries WHERE status = 'pending')) AS oldest`,
      ),
    );
    const row = result.rows[0];
    const oldest = ms(row?.oldest ?? null);
    return { size: Number(row?.size ?? 0), oldestMs: oldest === null ? 0 : Math.max(0, now - oldest) };
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
