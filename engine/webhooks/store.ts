// The webhook tables (engine/migrations/003_outbox.sql, 005_outbox_pending.sql) through `pg` as the dispatcher
// works them: the queue of outbox events not fanned out yet, the deliveries it creates from them, their claims,
// attempts and pruning, and the backlog gauge; the owners' reads are engine/webhooks/delivery-log.ts. Every
// write is ONE statement (the embedded PGlite lends its one session to one connection at a time,
// docs/embedded-database.md: no transaction may wait on anything) but the claim, which takes an advisory lock
// first and then runs its one statement (under PGlite, one session, the lock never waits); every claim is
// guarded by a lease so several engines can dispatch side by side, and a key's lane runs in one engine at a time.
import { transaction } from "../../kernel/db.js";
import { columnsOf } from "../store/columns.js";
import { DeliveryLog, eventOf, ms, type DeliveryStatus, type EventDb, type OutboxEvent } from "./delivery-log.js";

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

export interface Backlog {
  /** Events not fanned out yet plus deliveries still pending. */
  size: number;
  /** Age (ms) of the oldest event among them; 0 when there is none. */
  oldestMs: number;
}

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

export class WebhookStore extends DeliveryLog {
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
        ...columnsOf(deliveries, ["deliveryId", "eventId", "apiKeyId", "userId", "url"]),
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
}
