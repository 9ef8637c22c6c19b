// The engine's event journal in PostgreSQL. A shard appends a whole batch in one transaction and reads
// its accounts back on start (or after a failed commit) in (account, seq) order, a page at a time.
// With a timeout, an append and an account's reload are bounded: a database that does not answer fails the
// batch fast (engine_unavailable) instead of holding the shard. An append that timed out may still commit on
// the server; the shard treats it like any failed commit (evicts and reloads its accounts, engine/shard/shard.ts),
// and the (account_id, seq) key refuses whichever of two writes of the same seq comes second.
import type pg from "pg";
import { sqlStateOf } from "../../kernel/db.js";
import { bounded } from "../../kernel/db-deadline.js";
import { partitionOf } from "../shard/partition.js";
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
  event: unknown;
}

export interface ReadCounts {
  accounts: number;
  events: number;
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
  )`;

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
const FENCED_APPEND = `WITH fence AS MATERIALIZED (SELECT engine_fence($15::text, $16::int[], $17::bigint[]) AS held),
  ${INSERT_ACCOUNTS_AND_OUTBOX}, new_events AS (${INSERT_EVENTS})
  SELECT held FROM fence`;

const APPEND_STATEMENT = { name: "engine_journal_append", text: APPEND } as const;
const FENCED_APPEND_STATEMENT = { name: "engine_journal_append_fenced", text: FENCED_APPEND } as const;

const NIL_UUID = "00000000-0000-0000-0000-000000000000";

/** duplicate_prepared_statement or invalid_sql_statement_name: a named statement the session disagrees on. */
function isPreparedNameClash(error: unknown): boolean {
  const state = sqlStateOf(error);
  return state === "42P05" || state === "26000";
}

export class Journal {
  /** Whether appends use the named (prepared once per connection) statement; see `append`. */
  private named = true;

  constructor(
    private readonly pool: pg.Pool,
    private readonly pageSize = 10_000,
    /** When set, every append is refused (SQLSTATE FTS01, nothing written) unless these leases still hold. */
    private readonly fence?: Fence,
    /** Longest wait for an append's or a reload page's answer; unbounded when absent. */
    private readonly timeoutMs?: number,
  ) {}

  /** The query, with the journal's deadline when it has one. */
  private query(text: string, values: unknown[], name?: string): pg.QueryConfig {
    const timeout = this.timeoutMs;
    if (timeout !== undefined) return bounded(timeout, text, values, name);
    return name === undefined ? { text, values } : { name, text, values };
  }

  /**
   * Appends new accounts, events and their outbox rows atomically in ONE statement (data-modifying CTEs insert
   * the accounts, the outbox rows and their fan-out queue entries, the outer INSERT the events): one round trip
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
  ): Promise<void> {
    if (accounts.length === 0 && events.length === 0) return;
    const fence = this.fence;
    const guard = fence === undefined ? undefined : fenceOf(fence, accounts, events);
    const statement = guard === undefined ? APPEND_STATEMENT : FENCED_APPEND_STATEMENT;
    const values = [
      accounts.map((a) => a.accountId),
      accounts.map((a) => a.userId),
      accounts.map((a) => a.partition),
      events.map((e) => e.accountId),
      events.map((e) => e.seq),
      events.map((e) => e.type),
      jsonArray(events.map((e) => e.payload)),
      outbox.map((o) => o.accountId),
      outbox.map((o) => o.sequence),
      outbox.map((o) => o.eventId),
      outbox.map((o) => o.type),
      outbox.map((o) => o.userId),
      outbox.map((o) => o.at),
      jsonArray(outbox.map((o) => o.data)),
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

  /** Streams every event of the accounts in `partitions`, in (account, seq) order (the rebuild: unbounded). */
  readPartitions(partitions: readonly number[], onEvent: (event: StoredEvent) => void): Promise<ReadCounts> {
    return this.read("a.partition = ANY($1::int[])", [partitions], onEvent, false);
  }

  /** Streams every event of the given accounts, in (account, seq) order (each page bounded by the timeout). */
  readAccounts(accountIds: readonly string[], onEvent: (event: StoredEvent) => void): Promise<ReadCounts> {
    return this.read("a.account_id = ANY($1::uuid[])", [accountIds], onEvent, true);
  }

  private async read(
    where: string,
    params: unknown[],
    onEvent: (event: StoredEvent) => void,
    bound: boolean,
  ): Promise<ReadCounts> {
    let afterAccount = NIL_UUID;
    let afterSeq = 0;
    let accounts = 0;
    let events = 0;
    let lastAccount: string | undefined;
    for (;;) {
      const text = `SELECT e.account_id, e.seq, e.payload
           FROM engine_events e JOIN engine_accounts a ON a.account_id = e.account_id
          WHERE ${where} AND (e.account_id, e.seq) > ($2::uuid, $3::bigint)
          ORDER BY e.account_id, e.seq
          LIMIT $4`;
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
        onEvent({ accountId: row.account_id, seq, event: row.payload });
        afterAccount = row.account_id;
        afterSeq = seq;
      }
      if (page.rows.length < this.pageSize) return { accounts, events };
    }
  }
}
