// The per-user cap on accounts (docs/engine.md, "Limits"). A user's accounts live on many shards (and engines),
// so no actor sees them all: the count is taken in the database they share. A creation reserves a slot for its
// new account id under a per-user transaction-scoped advisory lock (two creations of one user take turns; other
// users never wait), counting the user's journaled accounts and the reservations still pending. A reservation
// whose account was never journaled stops counting after `RESERVATION_TTL_S` (the creation failed, or the
// engine died between reserving and committing); one whose creation was refused is released at once.
//
// At most `concurrency` reservations of this engine hold a connection at once (the others wait here, not in the
// database): the engine's main pool is shared with its lease renewals, and a flood of creations of one user,
// each waiting on that user's lock, must not take every connection and let the leases lapse.
import type pg from "pg";
import { transaction } from "../../kernel/db.js";
import { bounded } from "../../kernel/db-deadline.js";

/** Seconds a reservation counts without its account being journaled. */
export const RESERVATION_TTL_S = 60;

const LOCK = "SELECT pg_advisory_xact_lock(hashtextextended('engine_account_slots:' || $1::text, 0))";

const COUNT = `SELECT (SELECT count(*) FROM engine_accounts WHERE user_id = $1)
     + (SELECT count(*) FROM engine_account_reservations r
         WHERE r.user_id = $1 AND r.reserved_at > now() - make_interval(secs => $2)
           AND NOT EXISTS (SELECT 1 FROM engine_accounts a WHERE a.account_id = r.account_id)) AS used`;

const RESERVE = "INSERT INTO engine_account_reservations (account_id, user_id) VALUES ($1, $2)";

/** Reservations whose account was journaled, or that expired: they no longer count. */
const PRUNE = `DELETE FROM engine_account_reservations r
  WHERE r.user_id = $1 AND (r.reserved_at <= now() - make_interval(secs => $2)
     OR EXISTS (SELECT 1 FROM engine_accounts a WHERE a.account_id = r.account_id))`;

export type Reservation = { ok: true } | { ok: false; limit: number };

/** Reservations of one engine in the database at once, by default. */
export const RESERVATION_CONCURRENCY = 2;

export class AccountSlots {
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly pool: pg.Pool,
    /** Bound of each statement (ENGINE_DB_TIMEOUT_MS); unbounded when absent. */
    private readonly timeoutMs?: number,
    private readonly concurrency = RESERVATION_CONCURRENCY,
  ) {}

  private async turn<R>(work: () => Promise<R>): Promise<R> {
    if (this.running >= this.concurrency) {
      await new Promise<void>((resolve) => {
        this.queue.push(resolve);
      });
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      const next = this.queue.shift();
      // The slot passes to the next waiter as is; none waiting: it is free.
      if (next === undefined) this.running--;
      else next();
    }
  }

  private statement(text: string, values: unknown[]): pg.QueryConfig {
    return this.timeoutMs === undefined ? { text, values } : bounded(this.timeoutMs, text, values);
  }

  /** Reserves a slot for `accountId` unless `userId` already holds `limit` accounts and pending reservations. */
  reserve(userId: string, accountId: string, limit: number): Promise<Reservation> {
    return this.turn(() => this.reserveNow(userId, accountId, limit));
  }

  private reserveNow(userId: string, accountId: string, limit: number): Promise<Reservation> {
    return transaction(
      this.pool,
      async (client) => {
        await client.query(this.statement(LOCK, [userId]));
        // A new statement after the lock: it sees every reservation committed by the holder before us.
        const used = await client.query<{ used: string }>(this.statement(COUNT, [userId, RESERVATION_TTL_S]));
        if (Number(used.rows[0]?.used ?? 0) >= limit) return { ok: false, limit };
        await client.query(this.statement(PRUNE, [userId, RESERVATION_TTL_S]));
        await client.query(this.statement(RESERVE, [accountId, userId]));
        return { ok: true };
      },
      this.timeoutMs,
    );
  }

  /** Gives a slot back (the account's creation was refused: nothing was journaled). */
  async release(accountId: string): Promise<void> {
    await this.pool.query(this.statement("DELETE FROM engine_account_reservations WHERE account_id = $1", [accountId]));
  }
}
