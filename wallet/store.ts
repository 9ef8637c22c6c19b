// The keys table, through `pg`. The 10-active-keys limit is enforced here, under a row lock per user, so
// concurrent creates on any number of wallet replicas can never exceed it. Every statement a call waits for is
// bounded by the store's timeout (WALLET_DB_TIMEOUT_MS): a database that does not answer fails the call fast.
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { transaction } from "../kernel/db.js";
import { bounded } from "../kernel/db-deadline.js";
import { DeadlineExceeded } from "../kernel/errors.js";
import type { Scope } from "../kernel/scopes.js";
import { isUuid } from "../kernel/uuid.js";

export interface KeyRow {
  id: string;
  userId: string;
  keyHash: Buffer;
  keyPrefix: string;
  secretHash: Buffer;
  label: string;
  permissions: Scope[];
  ipWhitelist: string[];
  webhookUrl: string | null;
  expiresAt: Date | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export type NewKey = Omit<KeyRow, "id" | "lastUsedAt"> & { webhookSecretSealed: string | null };

/** A key's columns, named as KeyRow names them. */
const COLUMNS =
  'id, user_id AS "userId", key_hash AS "keyHash", key_prefix AS "keyPrefix", secret_hash AS "secretHash", label, ' +
  'permissions, ip_whitelist AS "ipWhitelist", webhook_url AS "webhookUrl", expires_at AS "expiresAt", ' +
  'created_at AS "createdAt", last_used_at AS "lastUsedAt"';

const ACTIVE = "revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $NOW)";

/** Without a setting (tools, benchmarks): the wallet's default. */
export const DEFAULT_DB_TIMEOUT_MS = 1_000;

export class KeyStore {
  constructor(
    private readonly pool: pg.Pool,
    /** Longest wait for each statement's answer. */
    private readonly timeoutMs = DEFAULT_DB_TIMEOUT_MS,
  ) {}

  private q(text: string, values: unknown[]): pg.QueryConfig {
    return bounded(this.timeoutMs, text, values);
  }

  /**
   * Inserts the key unless the user already has `limit` active keys; returns the row or "limit". With
   * `decideBy` (epoch ms: the call's deadline), a transaction still undecided then rolls back and fails with
   * DeadlineExceeded: a caller told "unavailable" finds no key whose secret it never saw (docs/decisions.md, "Key creation under load").
   */
  async createWithinLimit(key: NewKey, limit: number, now: Date, decideBy?: number): Promise<KeyRow | "limit"> {
    return transaction(
      this.pool,
      async (client) => {
        await client.query(
          this.q("INSERT INTO api_key_owners (user_id) VALUES ($1) ON CONFLICT DO NOTHING", [key.userId]),
        );
        await client.query(this.q("SELECT user_id FROM api_key_owners WHERE user_id = $1 FOR UPDATE", [key.userId]));
        const counted = await client.query<{ n: string }>(
          this.q(`SELECT count(*) AS n FROM api_keys WHERE user_id = $1 AND ${ACTIVE.replace("$NOW", "$2")}`, [
            key.userId,
            now,
          ]),
        );
        if (Number(counted.rows[0]?.n ?? 0) >= limit) return "limit";
        const inserted = await client.query<KeyRow>(
          this.q(
            `INSERT INTO api_keys (id, user_id, key_hash, key_prefix, secret_hash, label, permissions, ip_whitelist,
           webhook_url, webhook_secret_enc, expires_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING ${COLUMNS}`,
            [
              randomUUID(),
              key.userId,
              key.keyHash,
              key.keyPrefix,
              key.secretHash,
              key.label,
              key.permissions,
              key.ipWhitelist,
              key.webhookUrl,
              key.webhookSecretSealed,
              key.expiresAt,
              key.createdAt,
            ],
          ),
        );
        const row = inserted.rows[0];
        if (row === undefined) throw new Error("insert returned no row");
        if (decideBy !== undefined && Date.now() >= decideBy) {
          throw new DeadlineExceeded("wallet", "deadline passed before the key was committed");
        }
        return row;
      },
      this.timeoutMs,
    );
  }

  async listActive(userId: string, now: Date): Promise<KeyRow[]> {
    const result = await this.pool.query<KeyRow>(
      this.q(
        `SELECT ${COLUMNS} FROM api_keys WHERE user_id = $1 AND ${ACTIVE.replace("$NOW", "$2")} ORDER BY created_at, id`,
        [userId, now],
      ),
    );
    return result.rows;
  }

  /** One active key of this user by id, in any case; undefined for an unknown, foreign, revoked or expired id. */
  async findActive(userId: string, id: string, now: Date): Promise<KeyRow | undefined> {
    if (!isUuid(id)) return undefined;
    const result = await this.pool.query<KeyRow>(
      this.q(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1 AND user_id = $2 AND ${ACTIVE.replace("$NOW", "$3")}`, [
        id,
        userId,
        now,
      ]),
    );
    return result.rows[0];
  }

  /**
   * Revokes an active key of this user; undefined when there is none (unknown, foreign, expired or already revoked).
   * Answers with the key's own id as stored (lower case), whatever case `id` came in: every
   * cache and flag downstream (gateway key caches, the limiter, the webhook guard) matches on that form.
   */
  async revoke(
    userId: string,
    id: string,
    now: Date,
  ): Promise<{ id: string; keyHash: Buffer; revokedAt: Date } | undefined> {
    if (!isUuid(id)) return undefined;
    const result = await this.pool.query<{ id: string; key_hash: Buffer; revoked_at: Date }>(
      this.q(
        `UPDATE api_keys SET revoked_at = $3 WHERE id = $1 AND user_id = $2 AND ${ACTIVE.replace("$NOW", "$3")}
       RETURNING id, key_hash, revoked_at`,
        [id, userId, now],
      ),
    );
    const row = result.rows[0];
    return row === undefined ? undefined : { id: row.id, keyHash: row.key_hash, revokedAt: row.revoked_at };
  }

  /** Revocations with `revoked_at` after `since`, oldest first (the reconciler's poll; an index serves it). */
  async revokedSince(since: Date): Promise<{ id: string; keyHash: Buffer; revokedAt: Date }[]> {
    const result = await this.pool.query<{ id: string; key_hash: Buffer; revoked_at: Date }>(
      this.q("SELECT id, key_hash, revoked_at FROM api_keys WHERE revoked_at > $1 ORDER BY revoked_at, id", [since]),
    );
    return result.rows.map((row) => ({ id: row.id, keyHash: row.key_hash, revokedAt: row.revoked_at }));
  }

  /** A non-revoked key by the hash of its public part (expiry is checked by the caller). */
  async findByHash(keyHash: Buffer): Promise<KeyRow | undefined> {
    const result = await this.pool.query<KeyRow>(
      this.q(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`, [keyHash]),
    );
    return result.rows[0];
  }

  /** Every active key, for the index's warm-up at start: one long read, not bounded like a call's. */
  async loadAllActive(now: Date): Promise<KeyRow[]> {
    const result = await this.pool.query<KeyRow>(
      `SELECT ${COLUMNS} FROM api_keys WHERE ${ACTIVE.replace("$NOW", "$1")}`,
      [now],
    );
    return result.rows;
  }

  /**
   * Active keys with a webhook URL that is not disabled, of these users or with these ids, with the sealed
   * webhook secret (the caller opens it).
   */
  async webhookTargets(
    userIds: readonly string[],
    keyIds: readonly string[],
    now: Date,
  ): Promise<{ id: string; userId: string; url: string; sealedSecret: string; expiresAt: Date | null }[]> {
    const ids = keyIds.filter((id) => isUuid(id));
    if (userIds.length === 0 && ids.length === 0) return [];
    const result = await this.pool.query<{
      id: string;
      user_id: string;
      webhook_url: string;
      webhook_secret_enc: string;
      expires_at: Date | null;
    }>(
      this.q(
        `SELECT id, user_id, webhook_url, webhook_secret_enc, expires_at FROM api_keys
        WHERE (user_id = ANY($1::text[]) OR id = ANY($2::uuid[]))
          AND webhook_url IS NOT NULL AND webhook_secret_enc IS NOT NULL AND webhook_disabled_at IS NULL
          AND ${ACTIVE.replace("$NOW", "$3")}
        ORDER BY created_at, id`,
        [userIds, ids, now],
      ),
    );
    return result.rows.map((row) => ({
      id: row.id,
      userId: row.user_id,
      url: row.webhook_url,
      sealedSecret: row.webhook_secret_enc,
      expiresAt: row.expires_at,
    }));
  }

  /** Disables a key's webhook (410 Gone); false when it had no enabled webhook. */
  async disableWebhook(id: string, now: Date): Promise<boolean> {
    if (!isUuid(id)) return false;
    const result = await this.pool.query(
      this.q(
        `UPDATE api_keys SET webhook_disabled_at = $2
        WHERE id = $1 AND webhook_url IS NOT NULL AND webhook_disabled_at IS NULL AND revoked_at IS NULL`,
        [id, now],
      ),
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** Records last use in one statement for many keys; never moves a timestamp backwards. */
  async touch(uses: ReadonlyMap<string, number>): Promise<void> {
    if (uses.size === 0) return;
    const ids = [...uses.keys()];
    const times = ids.map((id) => new Date(uses.get(id) ?? 0));
    await this.pool.query(
      this.q(
        `UPDATE api_keys AS k SET last_used_at = u.t
       FROM (SELECT unnest($1::uuid[]) AS id, unnest($2::timestamptz[]) AS t) AS u
       WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.t)`,
        [ids, times],
      ),
    );
  }
}
