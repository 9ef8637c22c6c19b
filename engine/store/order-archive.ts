// The order archive (engine/migrations/009_order_archive.sql, docs/engine.md "The order archive"): the records of
// the orders account actors forgot. The journal's append writes them (with the events of the decision that forgot
// them); this reads them back for the order lookups and the order history. Every read is one statement, bounded
// by the deadline when there is one.
import type pg from "pg";
import { bounded } from "../../kernel/db-deadline.js";
import { columnsOf } from "./columns.js";
import type { RunQuery } from "./spent-keys.js";

/**
 * One order the actor forgot, for the order archive: written in the same statement as the events of the
 * decision that forgot it.
 */
export interface ArchivedRow {
  accountId: string;
  /** The order's id. */
  id: string;
  /** Epoch ms the order was created. */
  createdAt: number;
  clientId: string | null;
  /** The order record as JSON text. */
  data: string;
}

/** Orders a rebuild found forgotten, for the archive: those already there are left as they are. */
const INSERT_ARCHIVED = `INSERT INTO engine_orders (order_id, account_id, created_at, client_id, record)
  SELECT x.o, x.a, x.c, x.k, j.r
    FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::text[]) WITH ORDINALITY AS x(o, a, c, k, i)
    JOIN json_array_elements($5::json) WITH ORDINALITY AS j(r, i) ON j.i = x.i
  ON CONFLICT (order_id) DO NOTHING`;

/** Rows of one archive statement. */
const ARCHIVE_CHUNK = 2_000;

/** Makes sure the archive holds these forgotten orders (a rebuild's), a chunk a statement. */
export async function insertArchived(run: RunQuery, rows: readonly ArchivedRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += ARCHIVE_CHUNK) {
    const chunk = rows.slice(start, start + ARCHIVE_CHUNK);
    const data = chunk.map((r) => r.data);
    await run(INSERT_ARCHIVED, [
      ...columnsOf(chunk, ["id", "accountId", "createdAt", "clientId"]),
      data.length === 0 ? "[]" : `[${data.join(",")}]`,
    ]);
  }
}

/** An archived order as read back: its account, the account's owner and the record. */
export interface ArchivedOrder {
  accountId: string;
  userId: string;
  record: unknown;
}

/** A page of one account's archived orders in (created_at, order_id) order, within inclusive bounds. */
export interface ArchivePage {
  /** Epoch ms, inclusive; null: unbounded. */
  from: number | null;
  to: number | null;
  /** Starts strictly after (from, afterId) when set (with `from`). */
  afterId: string | null;
  /** Rows to read (a caller wanting to know whether more follow asks one more). */
  limit: number;
}

export class OrderArchive {
  constructor(
    private readonly pool: pg.Pool,
    /** Longest wait for a read's answer; unbounded when absent. */
    private readonly timeoutMs?: number,
  ) {}

  /** An archived order by id, with its account's owner; undefined when the archive does not hold it. */
  async find(orderId: string): Promise<ArchivedOrder | undefined> {
    const result = await this.read<{ account_id: string; user_id: string; record: unknown }>(
      `SELECT o.account_id, a.user_id, o.record
         FROM engine_orders o JOIN engine_accounts a ON a.account_id = o.account_id
        WHERE o.order_id = $1::uuid`,
      [orderId],
    );
    const row = result.rows[0];
    return row === undefined ? undefined : { accountId: row.account_id, userId: row.user_id, record: row.record };
  }

  /** The account's archived orders in (created_at, order_id) order, within the page's bounds. */
  async page(accountId: string, page: ArchivePage): Promise<unknown[]> {
    const afterId = page.from !== null && page.afterId !== null ? page.afterId : null;
    const result = await this.read<{ record: unknown }>(
      `SELECT record FROM engine_orders
        WHERE account_id = $1::uuid
          AND ($2::bigint IS NULL OR created_at >= $2::bigint)
          AND ($3::bigint IS NULL OR created_at <= $3::bigint)
          AND ($4::uuid IS NULL OR (created_at, order_id) > ($2::bigint, $4::uuid))
        ORDER BY created_at, order_id
        LIMIT $5`,
      [accountId, page.from, page.to, afterId, page.limit],
    );
    return result.rows.map((row) => row.record);
  }

  /** The newest archived order of the account with this client_id (by created_at, then order_id). */
  async byClientId(accountId: string, clientId: string): Promise<unknown> {
    const result = await this.read<{ record: unknown }>(
      `SELECT record FROM engine_orders
        WHERE account_id = $1::uuid AND client_id = $2
        ORDER BY created_at DESC, order_id DESC
        LIMIT 1`,
      [accountId, clientId],
    );
    return result.rows[0]?.record;
  }

  /**
   * One bounded statement. Its failures go up as they are: the gRPC handler answers a database that did not
   * answer as engine_unavailable and logs anything else as a fault (kernel/grpc.ts).
   */
  private read<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    const query = this.timeoutMs === undefined ? { text, values } : bounded(this.timeoutMs, text, values);
    return this.pool.query<R>(query);
  }
}
