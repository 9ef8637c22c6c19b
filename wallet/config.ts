// The wallet's settings: one zod schema over the environment, parsed once at start. Every bad value is
// reported together and stops the process (see kernel/config.ts); each setting has a default.
import { z } from "zod";
import * as setting from "../kernel/config.js";
import { listenGuard, type ListenSecret } from "../kernel/listen-guard.js";

/** What the wallet needs before it listens beyond loopback (kernel/listen-guard.ts). */
export const WALLET_LISTEN_SECRETS: readonly ListenSecret[] = ["INTERNAL_TOKEN"];

const schema = z
  .object({
    ...setting.commonSettings,
    WALLET_GRPC_PORT: setting.port(50052),
    ...setting.grpcTlsServerSettings,
    WALLET_METRICS_PORT: setting.port(9102),
    DATABASE_URL: setting.postgresUrl,
    REDIS_URL: setting.redisUrl,
    WEBHOOK_MASTER_KEY: z
      .string()
      .refine((v) => Buffer.from(v, "base64").length === 32, "must be 32 bytes, base64-encoded")
      .optional(),
    WEBHOOK_MASTER_KEY_PREVIOUS: z
      .string()
      .refine(
        (v) => v.split(",").every((k) => Buffer.from(k.trim(), "base64").length === 32),
        "must be a comma-separated list of 32-byte base64 keys",
      )
      .optional(),
    /** Webhook URLs may name loopback, private or link-local addresses (tests and local development only). */
    WEBHOOK_ALLOW_PRIVATE: setting.bool(false),
    WALLET_DB_POOL_SIZE: setting.integer({ min: 1, max: 100 }, 10),
    /**
     * Longest a key-management call waits for the database (a connection, then each statement) before it answers
     * UNAVAILABLE `wallet_unavailable`. Below the gateway's GRPC_DEADLINE_MS, so the wallet names the failure.
     */
    WALLET_DB_TIMEOUT_MS: setting.integer({ min: 50, max: 60_000 }, 1_000),
    /**
     * How often each replica reads the recent revocations from the database (wallet/reconciler.ts): the bound
     * on how long a replica the Redis bus did not reach can still admit a revoked key.
     */
    WALLET_REVOKED_POLL_MS: setting.integer({ min: 50, max: 60_000 }, 500),
    /** How far back each poll reads before the newest revocation seen; above WALLET_DB_TIMEOUT_MS plus clock skew. */
    WALLET_REVOKED_LOOKBACK_MS: setting.integer({ min: 1_000, max: 3_600_000 }, 30_000),
    /**
     * Database reads of keys the index does not hold (unknown keys: typos, guesses) at once; capped at
     * WALLET_DB_POOL_SIZE - 1 (at least 1) so key writes always find a connection.
     */
    WALLET_UNKNOWN_KEY_READS: setting.integer({ min: 1, max: 100 }, 4),
    /** Such reads waiting for a turn; past this a validation answers UNAVAILABLE at once. */
    WALLET_UNKNOWN_KEY_QUEUE: setting.integer({ min: 0, max: 100_000 }, 1_000),
  })
  .refine((s) => s.WALLET_REVOKED_LOOKBACK_MS > s.WALLET_DB_TIMEOUT_MS, {
    message: "must be above WALLET_DB_TIMEOUT_MS",
    path: ["WALLET_REVOKED_LOOKBACK_MS"],
  })
  .superRefine(listenGuard(WALLET_LISTEN_SECRETS))
  .superRefine(setting.tlsPairGuard);

export type WalletSettings = z.infer<typeof schema>;

export function loadWalletSettings(env: NodeJS.ProcessEnv): WalletSettings {
  return setting.parseSettings(schema, env);
}
