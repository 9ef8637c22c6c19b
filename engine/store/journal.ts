// The engine's event journal in PostgreSQL. A shard appends a whole batch in one transaction and reads
// its accounts back on start (or after a failed commit) in (account, seq) order, a page at a time.
// With a timeout, an append and an account's reload are bounded: a database that does not answer fails the
// batch fast (engine_unavailable) instead of holding the shard. An append that timed out may still commit on
// the server; the shard treats it like any failed commit (evicts and reloads its accounts, engine/shard/batch.ts),
// and the (account_id, seq) key refuses whichever of two writes of the same seq comes second.
import type pg from "pg";
import { sqlStateOf } from "../../kernel/db.js";
import { bounded } from "../../kernel/db-deadline.js";
import { partitionOf } from "../../kernel/partition.js";
import { columnsOf } from "./columns.js";
import { upgradeEvent } from "./event-upgrade.js";
import { insertArchived, type ArchivedRow } from "./order-archive.js";
import { findSpent, insertSpent, insertSpentSql, spentValues, type SpentRecord, type SpentRow } from "./spent-keys.js";
import type { Fence } from "./leases.js";

export interface NewAccountRow {
  accountId: string;
  userId: string;
  partition: number;
}

export interface EventRow {
  accountId: string;
  seq: number;
  type: string;
  /** The event as JSON text (serialised when decided, so later mutations of the state cannot leak in). */
  payload: string;
}

/** One webhook event for the outbox (docs/webhooks.md): numbered per account, written with its cause. */
export interface OutboxRow {
  accountId: string;
  /** Per account, from 1, by one. */
  sequence: number;
  eventId: string;
  type: string;
  userId: string;
  /** Epoch ms. */
  at: number;
  /** JSON text. */
  data: string;
}

export interface StoredEvent {
  accountId: string;
  seq: number;
  /** The event in the shape the core reads (`upgradeEvent`). */
  event: unknown;
}

/** What a read hands the rows to: each event, and each account's snapshot (read first) when given. */
export type ReadHandlers = [onEvent: (event: StoredEvent) => void, onSnapshot?: (snapshot: StoredSnapshot) => void];

export interface ReadCounts {
  accounts: number;
  /** Events replayed (after the snapshots, when snapshots were read). */
  events: number;
  /** Snapshots loaded. */
  snapshots?: number;
}

/** An account's state as of `seq`, written after that seq committed (docs/engine.md, "Snapshots"). */
export interface SnapshotRow {
  accountId: string;
  seq: number;
  /** The account's last outbox sequence at `seq`. */
  outbox: number;
  /** Epoch ms no earlier than any event up to `seq` (the shard's clock starts from it). */
  at: number;
  /** The core's snapshot as JSON text. */
  payload: string;
}

export interface StoredSnapshot {
  accountId: string;
  seq: number;
  outbox: number;
  at: number;
  snapshot: unknown;
}

/** The partitions a batch writes to, each with the epoch the writer holds it under (-1: not held, refused). */
function fenceOf(
  fence: Fence,
  accounts: readonly NewAccountRow[],
  events: readonly EventRow[],
): { owner: string; partitions: number[]; epochs: number[] } {
  const partitions = new Set<number>(accounts.map((a) => a.partition));
  let last: string | undefined;
  for (const event of events) {
    if (event.accountId === last) continue;
    last = event.accountId;
    partitions.add(partitionOf(event.accountId));
  }
  const list = [...partitions];
  return { owner: fence.owner, partitions: list, epochs: list.map((p) => fence.epochs[p] ?? -1) };
}

/** PostgreSQL's unique_violation: in the journal, a second writer of the same (account, seq). */
export function isDuplicateSeq(error: unknown): boolean {
  return sqlStateOf(error) === "23505";
}

/**
 * The data-modifying CTEs of an append: the new accounts, the outbox rows, and for each outbox row its entry in
 * the dispatcher's queue (engine_outbox_pending, taken from what the outbox insert returned: the same key).
 */
const INSERT_ACCOUNTS_AND_OUTBOX = `new_accounts AS (
    INSERT INTO engine_accounts (account_id, user_id, partition)
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[])
  ), new_outbox AS (
    INSERT INTO engine_outbox (account_id, sequence, event_id, type, user_id, created_at, data)
    SELECT x.a, x.s, x.e, x.t, x.u, to_timestamp(x.ms / 1000.0), j.d
      FROM unnest($8::uuid[], $9::bigint[], $10::uuid[], $11::text[], $12::text[], $13::float8[])
             WITH ORDINALITY AS x(a, s, e, t, u, ms, i)
      JOIN json_array_elements($14::json) WITH ORDINALITY AS j(d, i) ON j.i = x.i
    RETURNING created_at, event_id, user_id
  ), new_pending AS (
    INSERT INTO engine_outbox_pending (created_at, event_id, user_id) SELECT * FROM new_outbox
  ), new_archived AS (
    INSERT INTO engine_orders (order_id, account_id, created_at, client_id, record)
    SELECT x.o, x.a, x.c, x.k, j.r
      FROM unnest($15::uuid[], $16::uuid[], $17::bigint[], $18::text[]) WITH ORDINALITY AS x(o, a, c, k, i)
      JOIN json_array_elements($19::json) WITH ORDINALITY AS j(r, i) ON j.i = x.i
    ON CONFLICT (order_id) DO NOTHING
  ), new_spent AS (${insertSpentSql(20)})`;

// The JSON payloads travel as ONE array document ($7, $14), not as jsonb[]/json[] parameters: pg escapes an
// array parameter element by element, character by character, which cost the shard threads 7% of their time.
const INSERT_EVENTS = `INSERT INTO engine_events (account_id, seq, type, payload)
  SELECT x.a, x.s, x.t, j.p
    FROM unnest($4::uuid[], $5::bigint[], $6::text[]) WITH ORDINALITY AS x(a, s, t, i)
    JOIN json_array_elements($7::json) WITH ORDINALITY AS j(p, i) ON j.i = x.i`;

/** JSON texts as one JSON array document (each is already valid JSON). */
function jsonArray(texts: readonly string[]): string {
  return texts.length === 0 ? "[]" : `[${texts.join(",")}]`;
}

const APPEND = `WITH ${INSERT_ACCOUNTS_AND_OUTBOX} ${INSERT_EVENTS}`;

/** The same, checked by the lease fence; the outer SELECT reads the fence, so the check always runs. */
const FENCED_APPEND = `WITH fence AS MATERIALIZED (SELECT engine_fence($26::text, $27::int[], $28::bigint[]) AS held),
  ${INSERT_ACCOUNTS_AND_OUTBOX}, new_events AS (${INSERT_EVENTS})
  SELECT held FROM fence`;

const APPEND_STATEMENT = { name: "engine_journal_append", text: APPEND } as const;
const FENCED_APPEND_STATEMENT = { name: "engine_journal_append_fenced", text: FENCED_APPEND } as const;

const NIL_UUID = "00000000-0000-0000-0000-000000000000";

const UPSERT_SNAPSHOTS = `INSERT INTO engine_snapshots (account_id, seq, outbox, at, payload)
  SELECT x.a, x.s, x.o, x.t, j.p
    FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::float8[]) WITH ORDINALITY AS x(a, s, o, t, i)
    JOIN json_array_elements($5::json) WITH ORDINALITY AS j(p, i) ON j.i = x.i
  ON CONFLICT (account_id) DO UPDATE
    SET seq = EXCLUDED.seq, outbox = EXCLUDED.outbox, at = EXCLUDED.at, payload = EXCLUDED.payload, taken_at = now()
    WHERE engine_snapshots.seq < EXCLUDED.seq`;

/** The same, refused (FTS01, nothing written) unless the writer still holds the partitions' leases. */
const FENCED_UPSERT_SNAPSHOTS = `WITH fence AS MATERIALIZED (SELECT engine_fence($6::text, $7::int[], $8::bigint[]) AS held),
  upserted AS (${UPSERT_SNAPSHOTS} RETURNING 1)
  SELECT held FROM fence`;

/** duplicate_prepared_statement or invalid_sql_statement_name: a named statement the session disagrees on. */
function isPreparedNameClash(error: unknown): boolean {
  const state = sqlStateOf(error);
  return state === "42P05" || state === "26000";
}

export class Journal {
  /** Whether appends use the named (prepared once per connection) statement; see `append`. */
  private named = true;

  constructor(
    protected readonly pool: pg.Pool,
    private readonly pageSize = 10_000,
    /** When set, every append is refused (SQLSTATE FTS01, nothing written) unless these leases still hold. */
    protected fence?: Fence,
    /** Longest wait for an append's or a reload page's answer; unbounded when absent. */
    private readonly timeoutMs?: number,
    /** Snapshots read per page (each may be large). */
    private readonly snapshotPageSize = 500,
  ) {}

  /** The query, with the journal's deadline when it has one. */
  protected query(text: string, values: unknown[], name?: string): pg.QueryConfig {
    const timeout = this.timeoutMs;
    if (timeout !== undefined) return bounded(timeout, text, values, name);
    return name === undefined ? { text, values } : { name, text, values };
  }

  /**
   * Appends new accounts, events, their outbox rows, the orders and the client_ids the decisions forgot atomically
   * in ONE statement (data-modifying CTEs insert the accounts, the outbox rows and their fan-out queue entries,
   * the archived orders and the spent client_ids, the outer INSERT the events): one round trip
   * per batch instead of BEGIN, several INSERTs and COMMIT, which cost the shard threads more in socket writes
   * than the batch itself. A duplicate (account_id, seq) fails the whole statement: it means two writers own the
   * account. The foreign keys see the accounts the CTE inserted (constraints are checked at the end of the
   * statement). With a fence, the same statement first checks the writer's partition leases (engine_fence,
   * docs/scale-out.md) and raises FTS01 if one was lost, so a stale owner writes nothing; the happy path stays
   * one round trip.
   */
  async append(
    accounts: readonly NewAccountRow[],
    events: readonly EventRow[],
    outbox: readonly OutboxRow[] = [],
    archived: readonly ArchivedRow[] = [],
    spent: readonly SpentRow[] = [],
  ): Promise<void> {
    if (accounts.length === 0 && events.length === 0) return;
    const fence = this.fence;
    const guard = fence === undefined ? undefined : fenceOf(fence, accounts, events);
    const statement = guard === undefined ? APPEND_STATEMENT : FENCED_APPEND_STATEMENT;
    const values = [
      ...columnsOf(accounts, ["accountId", "userId", "partition"]),
      ...columnsOf(events, ["accountId", "seq", "type"]),
      jsonArray(events.map((e) => e.payload)),
      ...columnsOf(outbox, ["accountId", "sequence", "eventId", "type", "userId", "at"]),
      jsonArray(outbox.map((o) => o.data)),
      ...columnsOf(archived, ["id", "accountId", "createdAt", "clientId"]),
      jsonArray(archived.map((o) => o.data)),
      ...spentValues(spent),
      ...(guard === undefined ? [] : [guard.owner, guard.partitions, guard.epochs]),
    ];
    if (!this.named) {
      await this.pool.query(this.query(statement.text, values));
      return;
    }
    // Named: each connection parses and plans the statement once, then only binds and executes it. Behind a
    // pooler that shares server sessions between connections (transaction pooling) the session may already
    // hold the name (42P05) or lack it (26000), refused before anything ran: from then on this journal sends
    // the statement unnamed. The embedded default gives each connection its own names
    // (docs/embedded-database.md).
    try {
      await this.pool.query(this.query(statement.text, values, statement.name));
    } catch (error) {
      if (!isPreparedNameClash(error)) throw error;
      this.named = false;
      await this.pool.query(this.query(statement.text, values));
    }
  }

  /**
   * Stores snapshots in one statement: a row replaces the account's snapshot only when its seq is higher. With a
   * fence, refused (FTS01) unless this writer still holds the partitions: an engine that lost them cannot move a
   * snapshot past what its successor has read.
   */
  async saveSnapshots(rows: readonly SnapshotRow[]): Promise<void> {
    if (rows.length === 0) return;
    const values: unknown[] = [
      rows.map((r) => r.accountId),
      rows.map((r) => r.seq),
      rows.map((r) => r.outbox),
      rows.map((r) => r.at),
      jsonArray(rows.map((r) => r.payload)),
    ];
    const fence = this.fence;
    if (fence === undefined) {
      await this.pool.query(this.query(UPSERT_SNAPSHOTS, values));
      return;
    }
    const guard = fenceOf(
      fence,
      [],
      rows.map((r) => ({ accountId: r.accountId, seq: r.seq, type: "", payload: "" })),
    );
    await this.pool.query(
      this.query(FENCED_UPSERT_SNAPSHOTS, [...values, guard.owner, guard.partitions, guard.epochs]),
    );
  }

  /**
   * Makes sure the archive holds these forgotten orders (docs/engine.md, "The order archive"): a replay forgets
   * what the live actor forgot, and more when the retention was lowered since. Rows already there stay as they
   * are (a forgotten order's record never changes), so no fence is needed: any writer writes the same rows.
   */
  archive(rows: readonly ArchivedRow[]): Promise<void> {
    return insertArchived((text, values) => this.pool.query(this.query(text, values)), rows);
  }

  /** Makes sure the table of spent client_ids holds these forgotten records (a replay's; see `archive`). */
  spend(rows: readonly SpentRow[]): Promise<void> {
    return insertSpent((text, values) => this.pool.query(this.query(text, values)), rows);
  }

  /** An account's spent client_id (bounded by the timeout), or undefined when it is not spent. */
  recall(accountId: string, key: string): Promise<SpentRecord | undefined> {
    return findSpent((text, values) => this.pool.query(this.query(text, values)), accountId, key);
  }

  /**
   * Streams the accounts in `partitions` (the rebuild: unbounded): with `onSnapshot`, each account's snapshot
   * first and then only its events after it; without, every event. In (account, seq) order.
   */
  readPartitions(partitions: readonly number[], ...handlers: ReadHandlers): Promise<ReadCounts> {
    return this.read("a.partition = ANY($1::int[])", [partitions], false, ...handlers);
  }

  /** The same for the given accounts (each page bounded by the timeout). */
  readAccounts(accountIds: readonly string[], ...handlers: ReadHandlers): Promise<ReadCounts> {
    return this.read("a.account_id = ANY($1::uuid[])", [accountIds], true, ...handlers);
  }

  private async readSnapshots(
    where: string,
    params: unknown[],
    onSnapshot: (snapshot: StoredSnapshot) => void,
    bound: boolean,
  ): Promise<number> {
    let after = NIL_UUID;
    let count = 0;
    for (;;) {
      const text = `SELECT s.account_id, s.seq, s.outbox, s.at, s.payload
           FROM engine_snapshots s JOIN engine_accounts a ON a.account_id = s.account_id
          WHERE ${where} AND s.account_id > $2::uuid
          ORDER BY s.account_id
          LIMIT $3`;
      const values = [...params, after, this.snapshotPageSize];
      const page = await this.pool.query<{
        account_id: string;
        seq: string;
        outbox: string;
        at: number;
        payload: unknown;
      }>(bound ? this.query(text, values) : { text, values });
      for (const row of page.rows) {
        count++;
        onSnapshot({
          accountId: row.account_id,
          seq: Number(row.seq),
          outbox: Number(row.outbox),
          at: row.at,
          snapshot: row.payload,
        });
        after = row.account_id;
      }
      if (page.rows.length < this.snapshotPageSize) return count;
    }
  }

  private async read(where: string, params: unknown[], bound: boolean, ...[onEvent, onSnapshot]: ReadHandlers) {
    let afterAccount = NIL_UUID;
    let afterSeq = 0;
    let accounts = 0;
    let events = 0;
    let lastAccount: string | undefined;
    // The snapshots first; the events query then skips what they hold. Nothing writes these accounts' snapshots
    // meanwhile: their shard writes only after its commits (none during a rebuild; a reload waits for its writes
    // first) and another engine's writes are fenced out.
    const snapshots = onSnapshot === undefined ? undefined : await this.readSnapshots(where, params, onSnapshot, bound);
    // With snapshots, each account's events are read from its snapshot's seq on, by the primary key: the
    // events before it are never touched (a filter on them would still read every one from the table).
    const text =
      snapshots === undefined
        ? `SELECT e.account_id, e.seq, e.payload
             FROM engine_events e JOIN engine_accounts a ON a.account_id = e.account_id
            WHERE ${where} AND (e.account_id, e.seq) > ($2::uuid, $3::bigint)
            ORDER BY e.account_id, e.seq
            LIMIT $4`
        : `SELECT a.account_id, e.seq, e.payload
             FROM engine_accounts a
             LEFT JOIN engine_snapshots s ON s.account_id = a.account_id
             CROSS JOIN LATERAL (
               SELECT ev.seq, ev.payload FROM engine_events ev
                WHERE ev.account_id = a.account_id
                  AND ev.seq > GREATEST(COALESCE(s.seq, 0), CASE WHEN a.account_id = $2::uuid THEN $3::bigint ELSE 0 END)
                ORDER BY ev.seq
                LIMIT $4
             ) e
            WHERE ${where} AND a.account_id >= $2::uuid
            ORDER BY a.account_id, e.seq
            LIMIT $4`;
    for (;;) {
      const values = [...params, afterAccount, afterSeq, this.pageSize];
      const page = await this.pool.query<{ account_id: string; seq: string; payload: unknown }>(
        bound ? this.query(text, values) : { text, values },
      );
      for (const row of page.rows) {
        const seq = Number(row.seq);
        if (row.account_id !== lastAccount) {
          lastAccount = row.account_id;
          accounts++;
        }
        events++;
        onEvent({ accountId: row.account_id, seq, event: upgradeEvent(row.payload) });
        afterAccount = row.account_id;
        afterSeq = seq;
      }
      if (page.rows.length < this.pageSize) {
        return snapshots === undefined ? { accounts, events } : { accounts, events, snapshots };
      }
    }
  }
}
