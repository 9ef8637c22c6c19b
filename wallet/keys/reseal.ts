// Master-key rotation, second half: re-seals every stored webhook secret that is not under the current
// master key, so the previous keys can be dropped from WEBHOOK_MASTER_KEY_PREVIOUS (docs/runbook.md, "Rotate
// the webhook master key"). Rows are walked by id and updated one by one with a compare-and-set, so it runs
// beside live wallets and can be interrupted and run again. It never prints or logs a secret.
import type pg from "pg";
import type { Sealer } from "./sealed.js";

export interface ResealResult {
  /** Rows with a sealed webhook secret. */
  scanned: number;
  resealed: number;
  /** Already under the current key. */
  current: number;
  /** Sealed under a key the sealer does not know (add it to WEBHOOK_MASTER_KEY_PREVIOUS and run again). */
  unreadable: number;
  /** Changed by someone else between the read and the update (run again). */
  raced: number;
}

export async function resealWebhookSecrets(pool: pg.Pool, sealer: Sealer, batchSize = 500): Promise<ResealResult> {
  const result: ResealResult = { scanned: 0, resealed: 0, current: 0, unreadable: 0, raced: 0 };
  let after = "00000000-0000-0000-0000-000000000000";
  for (;;) {
    const batch = await pool.query<{ id: string; sealed: string }>(
      `SELECT id::text AS id, webhook_secret_enc AS sealed FROM api_keys
        WHERE webhook_secret_enc IS NOT NULL AND id > $1::uuid ORDER BY id LIMIT $2`,
      [after, batchSize],
    );
    for (const row of batch.rows) {
      result.scanned++;
      after = row.id;
      if (sealer.isCurrent(row.sealed)) {
        result.current++;
        continue;
      }
      let secret: string;
      try {
        secret = sealer.open(row.sealed);
      } catch {
        result.unreadable++;
        continue;
      }
      const updated = await pool.query(
        "UPDATE api_keys SET webhook_secret_enc = $2 WHERE id = $1::uuid AND webhook_secret_enc = $3",
        [row.id, sealer.seal(secret), row.sealed],
      );
      if (updated.rowCount === 1) result.resealed++;
      else result.raced++;
    }
    if (batch.rows.length < batchSize) return result;
  }
}
