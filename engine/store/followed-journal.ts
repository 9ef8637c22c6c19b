// The journal as a standby's shard reads it (docs/scale-out.md, "Standbys"): which accounts got events since a
// look (cheap, by `created_at`: migration 012), every account's latest seq (exact, one index probe per account),
// and each account's events after a seq.
import type { QueryConfig } from "pg";
import { Journal, type StoredEvent } from "./journal.js";
import { upgradeEvent } from "./event-upgrade.js";
import type { Fence } from "./leases.js";

/** Accounts of some partitions with their latest journaled seq, as a standby's look at the journal reads them. */
export interface JournalLook {
  /** The database's clock (epoch ms) before the read: the next look reads from a little before it. */
  at: number;
  /** Account → its latest seq. */
  seqs: Map<string, number>;
}

export class FollowedJournal extends Journal {
  /** Fences every later append with these leases (once the standby took them). */
  fenceWith(fence: Fence): void {
    this.fence = fence;
  }

  /**
   * The accounts of the partitions with events created at or after `since` (epoch ms, database clock), each with
   * its latest seq. An event's `created_at` is its transaction's start: one that began before `since` and
   * committed after the previous look is missed here, and found by `latestSeqs`, the exact read.
   */
  async changedSince(partitions: readonly number[], since: number): Promise<JournalLook> {
    const at = await this.databaseNow();
    const { rows } = await this.pool.query<{ account_id: string; seq: string }>(
      this.query(
        `SELECT e.account_id, max(e.seq) AS seq
           FROM engine_events e JOIN engine_accounts a ON a.account_id = e.account_id
          WHERE e.created_at >= to_timestamp($2::float8 / 1000) AND a.partition = ANY($1::int[])
          GROUP BY e.account_id`,
        [partitions, since],
      ),
    );
    return { at, seqs: new Map(rows.map((row) => [row.account_id, Number(row.seq)])) };
  }

  /**
   * Every account of the partitions with its latest seq (one index probe per account): exact. `bounded` false:
   * no deadline, like a rebuild at start (the look a take-over makes before it serves).
   */
  async latestSeqs(partitions: readonly number[], bounded = true): Promise<JournalLook> {
    const at = await this.databaseNow();
    const { rows } = await this.pool.query<{ account_id: string; seq: string }>(
      this.statement(
        `SELECT a.account_id, m.seq
           FROM engine_accounts a
           CROSS JOIN LATERAL (SELECT max(e.seq) AS seq FROM engine_events e WHERE e.account_id = a.account_id) m
          WHERE a.partition = ANY($1::int[]) AND m.seq IS NOT NULL`,
        [partitions],
        bounded,
      ),
    );
    return { at, seqs: new Map(rows.map((row) => [row.account_id, Number(row.seq)])) };
  }

  /** The events of each account after the seq given for it, in (account, seq) order; `bounded` as above. */
  async readAfter(
    from: ReadonlyMap<string, number>,
    onEvent: (event: StoredEvent) => void,
    bounded = true,
  ): Promise<number> {
    if (from.size === 0) return 0;
    const ids = [...from.keys()];
    const seqs = ids.map((id) => from.get(id) ?? 0);
    const { rows } = await this.pool.query<{ account_id: string; seq: string; payload: unknown }>(
      this.statement(
        `SELECT e.account_id, e.seq, e.payload
           FROM unnest($1::uuid[], $2::bigint[]) AS k(account_id, seq)
           JOIN engine_events e ON e.account_id = k.account_id AND e.seq > k.seq
          ORDER BY e.account_id, e.seq`,
        [ids, seqs],
        bounded,
      ),
    );
    for (const row of rows)
      onEvent({ accountId: row.account_id, seq: Number(row.seq), event: upgradeEvent(row.payload) });
    return rows.length;
  }

  private statement(text: string, values: unknown[], bounded: boolean): QueryConfig {
    return bounded ? this.query(text, values) : { text, values };
  }

  private async databaseNow(): Promise<number> {
    const { rows } = await this.pool.query<{ at: number }>(
      this.query("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS at", []),
    );
    return Number(rows[0]?.at);
  }
}
