// Rows as the column arrays one multi-row statement takes (`unnest($1::uuid[], $2::text[], ...)`): the
// journal's append and the webhook fan-out each write many rows in one statement.

/** One array per key, each holding that key's value of every row, in row order. */
export function columnsOf<T, K extends keyof T>(rows: readonly T[], keys: readonly K[]): T[K][][] {
  return keys.map((key) => rows.map((row) => row[key]));
}
