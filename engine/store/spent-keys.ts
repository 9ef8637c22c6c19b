// The table of spent client_ids (engine/migrations/011_spent_client_ids.sql, docs/engine.md "Idempotency"): what a
// retry of a client_id an account actor forgot needs. The journal's append writes the rows with the events of
// the decision that forgot them (SPENT_CTE), a rebuild makes sure of those its replay forgot (`insertSpent`), and
// the shard reads one back before it decides a command whose client_id the account's filter may hold.
import type pg from "pg";
import { columnsOf } from "./columns.js";

/** A client_id record an account forgot, for the table. */
export interface SpentRow {
  accountId: string;
  /** The client_id. */
  key: string;
  /** The order it placed. */
  id: string;
  /** Epoch ms it was recorded. */
  at: number;
  fingerprint: string;
  /** The first answer as JSON text. */
  data: string;
}

/** A row read back, its answer parsed. */
export interface SpentRecord {
  key: string;
  id: string;
  at: number;
  fingerprint: string;
  data: unknown;
}

/** Runs one statement (with the caller's deadline). */
export type RunQuery = (text: string, values: unknown[]) => Promise<pg.QueryResult>;

/** The rows' parameters, in the order of the statements below: five column arrays, then the answers. */
export function spentValues(rows: readonly SpentRow[]): unknown[] {
  return [
    ...columnsOf(rows, ["accountId", "key", "id", "at", "fingerprint"]),
    rows.length === 0 ? "[]" : `[${rows.map((row) => row.data).join(",")}]`,
  ];
}

/** The insert, its parameters from `$first` on; rows the table holds stay as they are. */
export function insertSpentSql(first: number): string {
  const [a, k, o, t, f, d] = [0, 1, 2, 3, 4, 5].map((i) => `$${first + i}`);
  return `INSERT INTO engine_client_ids (account_id, client_id, order_id, recorded_at, fingerprint, response)
    SELECT x.a, x.k, x.o, x.t, x.f, j.r
      FROM unnest(${a}::uuid[], ${k}::text[], ${o}::uuid[], ${t}::bigint[], ${f}::text[]) WITH ORDINALITY AS x(a, k, o, t, f, i)
      JOIN json_array_elements(${d}::json) WITH ORDINALITY AS j(r, i) ON j.i = x.i
    ON CONFLICT (account_id, client_id) DO NOTHING`;
}

const INSERT_SPENT = insertSpentSql(1);
/** Rows of one statement of `insertSpent`. */
const CHUNK = 2_000;

/** Makes sure the table holds these rows (a rebuild's: those already there stay), a chunk a statement. */
export async function insertSpent(run: RunQuery, rows: readonly SpentRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += CHUNK) {
    await run(INSERT_SPENT, spentValues(rows.slice(start, start + CHUNK)));
  }
}

const FIND_SPENT = `SELECT order_id, recorded_at, fingerprint, response FROM engine_client_ids
  WHERE account_id = $1::uuid AND client_id = $2`;

/** The spent client_id of an account, or undefined when the table does not hold it. */
export async function findSpent(run: RunQuery, accountId: string, key: string): Promise<SpentRecord | undefined> {
  const result = await run(FIND_SPENT, [accountId, key]);
  const row = result.rows[0] as
    { order_id: string; recorded_at: string; fingerprint: string; response: unknown } | undefined;
  if (row === undefined) return undefined;
  return { key, id: row.order_id, at: Number(row.recorded_at), fingerprint: row.fingerprint, data: row.response };
}
