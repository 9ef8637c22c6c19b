// Partition leases in PostgreSQL (docs/scale-out.md): an engine process takes the partitions it owns only when
// they are free or expired by the database's clock, each takeover raising the partition's epoch, and renews them
// while it runs. The journal's appends are fenced by (owner, epochs) in the same statement (engine_fence).
import type pg from "pg";
import { sqlStateOf } from "../../kernel/db.js";

/** SQLSTATE raised by engine_fence: the writer no longer holds a partition of the batch. */
export const FENCED_SQLSTATE = "FTS01";

/** True for an append refused by the lease fence. */
export function isFenced(error: unknown): boolean {
  return sqlStateOf(error) === FENCED_SQLSTATE;
}

/** Who may write a shard's partitions: the lease owner and the epoch it holds each partition under. */
export interface Fence {
  owner: string;
  /** Partition → epoch, for every partition the writer journals to. */
  epochs: Readonly<Record<number, number>>;
}

export interface LeaseRow {
  partition: number;
  owner: string;
  epoch: number;
  /** Epoch ms, by the database clock. */
  expiresAt: number;
  /** Whether the lease had expired by the database clock when read. */
  expired: boolean;
}

export class PartitionLeases {
  constructor(
    readonly pool: pg.Pool,
    /** This process's id: unique per process, so a restarted engine is a new owner. */
    readonly owner: string,
    private readonly ttlMs: number,
  ) {}

  /**
   * Takes every partition of `partitions` that is free or expired, raising its epoch; leaves the others (held by
   * a live owner) alone. Returns the partitions taken now with their epochs.
   */
  async acquire(partitions: readonly number[]): Promise<Map<number, number>> {
    if (partitions.length === 0) return new Map();
    await this.pool.query(
      `INSERT INTO engine_partition_leases (partition, owner, epoch, expires_at)
       SELECT p, '', 0, '-infinity' FROM unnest($1::int[]) AS p
       ON CONFLICT (partition) DO NOTHING`,
      [partitions],
    );
    // FOR UPDATE: waits for a renewal or an append in flight, then re-checks the expiry on the row it left.
    const taken = await this.pool.query<{ partition: number; epoch: string }>(
      `WITH free AS (
         SELECT partition FROM engine_partition_leases
          WHERE partition = ANY($1::int[]) AND expires_at <= now()
            FOR UPDATE
       )
       UPDATE engine_partition_leases l
          SET owner = $2, epoch = l.epoch + 1, expires_at = now() + $3 * interval '1 millisecond'
         FROM free
        WHERE l.partition = free.partition
       RETURNING l.partition, l.epoch`,
      [partitions, this.owner, this.ttlMs],
    );
    return new Map(taken.rows.map((row) => [row.partition, Number(row.epoch)]));
  }

  /**
   * Takes every partition of `partitions` at once, or none: only when every one was leased before and is free
   * or expired now (a standby taking a dead engine's index, docs/scale-out.md "Standbys"). A partition never
   * leased is left to its own engine. Rows are locked in partition order, so two standbys racing for one
   * index wait for each other, and the second finds them taken. Returns the epochs taken (empty: none) and,
   * by the database clock, how long ago the last of the old leases lapsed.
   */
  async acquireWhole(partitions: readonly number[]): Promise<{ epochs: Map<number, number>; lapsedMs: number }> {
    const taken = await this.pool.query<{ partition: number; epoch: string; lapsed_ms: string }>(
      `WITH free AS (
         SELECT partition, expires_at FROM engine_partition_leases
          WHERE partition = ANY($1::int[]) AND expires_at <= now()
          ORDER BY partition
            FOR UPDATE
       ), whole AS (SELECT count(*) = cardinality($1::int[]) AS whole FROM free)
       UPDATE engine_partition_leases l
          SET owner = $2, epoch = l.epoch + 1, expires_at = now() + $3 * interval '1 millisecond'
         FROM free, whole
        WHERE l.partition = free.partition AND whole.whole
       RETURNING l.partition, l.epoch,
                 extract(epoch FROM now() - (SELECT max(expires_at) FROM free)) * 1000 AS lapsed_ms`,
      [partitions, this.owner, this.ttlMs],
    );
    return {
      epochs: new Map(taken.rows.map((row) => [row.partition, Number(row.epoch)])),
      lapsedMs: lapsed(Number(taken.rows[0]?.lapsed_ms ?? 0)),
    };
  }

  /**
   * Extends the leases still held under these epochs; returns the partitions renewed. A lease that expired but
   * was not taken (same owner, same epoch) is renewed too: nobody else can have owned it in between, and the
   * fence refused this owner's appends while it was expired.
   */
  async renew(epochs: ReadonlyMap<number, number>): Promise<Set<number>> {
    if (epochs.size === 0) return new Set();
    const renewed = await this.pool.query<{ partition: number }>(
      `UPDATE engine_partition_leases l
          SET expires_at = now() + $4 * interval '1 millisecond'
         FROM unnest($2::int[], $3::bigint[]) AS held(partition, epoch)
        WHERE l.partition = held.partition AND l.owner = $1 AND l.epoch = held.epoch
       RETURNING l.partition`,
      [this.owner, [...epochs.keys()], [...epochs.values()], this.ttlMs],
    );
    return new Set(renewed.rows.map((row) => row.partition));
  }

  /** Lets the leases go at once (after the shards stopped writing), so a successor need not wait for expiry. */
  async release(partitions: readonly number[]): Promise<void> {
    await this.pool.query(
      `UPDATE engine_partition_leases SET expires_at = now()
        WHERE partition = ANY($1::int[]) AND owner = $2 AND expires_at > now()`,
      [partitions, this.owner],
    );
  }
}

/** A lapse in ms: 0 for none, or for a lease row that never held an owner (expired at -infinity). */
const lapsed = (ms: number): number => (Number.isFinite(ms) ? Math.max(0, ms) : 0);

/** The lease rows of `partitions` (missing rows: never leased). */
export async function readLeases(pool: pg.Pool, partitions: readonly number[]): Promise<LeaseRow[]> {
  const rows = await pool.query<{
    partition: number;
    owner: string;
    epoch: string;
    expires_ms: string;
    expired: boolean;
  }>(
    `SELECT partition, owner, epoch, extract(epoch FROM expires_at) * 1000 AS expires_ms, expires_at <= now() AS expired
       FROM engine_partition_leases WHERE partition = ANY($1::int[]) ORDER BY partition`,
    [partitions],
  );
  return rows.rows.map((row) => ({
    partition: row.partition,
    owner: row.owner,
    epoch: Number(row.epoch),
    expiresAt: Number(row.expires_ms),
    expired: row.expired,
  }));
}
