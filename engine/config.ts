// The engine's settings: one zod schema over the environment, parsed once at start. Every bad value is
// reported together and stops the process (see kernel/config.ts); each setting has a default.
import { availableParallelism } from "node:os";
import { z } from "zod";
import {
  bool,
  caFile,
  commonSettings,
  grpcTlsClientSettings,
  grpcTlsServerSettings,
  integer,
  parseSettings,
  port,
  postgresUrl,
  redisUrl,
  tlsPairGuard,
} from "../kernel/config.js";
import { listenGuard, type ListenSecret } from "../kernel/listen-guard.js";
import { DAY_MS } from "../kernel/time.js";
import {
  DEFAULT_CLIENT_ID_WINDOW_MS,
  DEFAULT_CLIENT_IDS_KEPT,
  DEFAULT_FINAL_ORDER_RETENTION_MS,
  DEFAULT_FINAL_ORDERS_KEPT,
  DEFAULT_MAX_ACCOUNTS_PER_USER,
  DEFAULT_MAX_WORKING_ORDERS,
  DEFAULT_SNAPSHOT_EVERY,
} from "./accounts/limits.js";
import { DEFAULT_SCHEDULE_MS } from "./webhooks/retry.js";

/** What the engine needs before it listens beyond loopback (kernel/listen-guard.ts). */
export const ENGINE_LISTEN_SECRETS: readonly ListenSecret[] = ["INTERNAL_TOKEN"];

export const EngineRole = {
  /** Engine ENGINE_INDEX: waits for that index's leases (docs/scale-out.md, "Partitions and ownership"). */
  owner: "owner",
  /** A standby: takes the index of any dead engine, whichever (docs/scale-out.md, "Standbys"). */
  standby: "standby",
} as const;
export type EngineRole = (typeof EngineRole)[keyof typeof EngineRole];

export const PriceFeed = {
  /** The built-in price simulator moves every symbol from its reference price. */
  simulator: "simulator",
  /** No simulator: prices arrive through market.v1 PushPrices only. */
  push: "push",
} as const;
export type PriceFeed = (typeof PriceFeed)[keyof typeof PriceFeed];

/**
 * Shard threads when ENGINE_SHARDS is not set: half the cores, at least one. The engine's main thread, the
 * gateway and PostgreSQL need cores too, and a shard with more to do per batch commits bigger batches: on two
 * cores one shard costs ~25% less engine and PostgreSQL CPU per order than two, at the same throughput
 * (docs/performance.md). `availableParallelism` sees the CPUs the process may run on, not a container's CPU
 * quota: deployments set ENGINE_SHARDS (deploy/).
 */
export function defaultShards(cores = availableParallelism()): number {
  return Math.max(1, Math.floor(cores / 2));
}

/** The longest delay one entry of WEBHOOK_RETRY_SCHEDULE_MS may give (30 days; the default's longest is 12 h). */
const MAX_RETRY_DELAY_MS = 30 * DAY_MS;

export const engineSettingsSchema = z
  .object({
    ...commonSettings,
    ENGINE_GRPC_PORT: port(50051),
    ...grpcTlsServerSettings,
    ...grpcTlsClientSettings,
    ENGINE_METRICS_PORT: port(9101),
    PRICE_FEED: z.enum(PriceFeed).default(PriceFeed.simulator),
    ENGINE_SHARDS: integer({ min: 1, max: 256 }, defaultShards),
    /** Milliseconds between each shard thread's stats report (business counters, accounts per state, loop delay). */
    ENGINE_STATS_INTERVAL_MS: integer({ min: 100, max: 3_600_000 }, 5_000),
    /** Engine processes sharing the database (docs/scale-out.md); this one owns the partitions p % N == k. */
    ENGINE_COUNT: integer({ min: 1, max: 256 }, 1),
    /** k: this engine's index, 0..ENGINE_COUNT-1 (a StatefulSet ordinal); ignored by a standby. */
    ENGINE_INDEX: integer({ min: 0, max: 255 }, 0),
    /**
     * `owner` serves ENGINE_INDEX; `standby` waits for any index whose leases are all free or expired (an engine
     * died) and then serves that one (docs/scale-out.md, "Standbys").
     */
    ENGINE_ROLE: z
      .enum(EngineRole, { error: "must be owner (serve ENGINE_INDEX) or standby (take over any dead engine's index)" })
      .default(EngineRole.owner),
    /** How long a partition lease lasts unless renewed (by the database clock). */
    ENGINE_LEASE_TTL_MS: integer({ min: 500, max: 600_000 }, 10_000),
    /** How often the engine renews its partition leases. */
    ENGINE_LEASE_RENEW_MS: integer({ min: 50, max: 300_000 }, 3_000),
    /**
     * How often an engine waiting for partitions another live engine holds tries them again: a successor takes
     * leases released by a stopping engine within this (docs/scale-out.md, "Hand-over").
     */
    ENGINE_LEASE_POLL_MS: integer({ min: 20, max: 60_000 }, 200),
    /**
     * How often a standby's shards read what the journal got since their last look (docs/scale-out.md,
     * "Standbys"): at a take-over they read only what came after it.
     */
    ENGINE_STANDBY_FOLLOW_MS: integer({ min: 20, max: 60_000 }, 500),
    DATABASE_URL: postgresUrl,
    /**
     * Longest a call waits for the database (a shard's connection, a batch's commit, an account's reload, each
     * statement of a catch-up or delivery-log read) before it fails with engine_unavailable. Below the
     * gateway's GRPC_DEADLINE_MS, so the engine names the failure. Start-up work (migrations, the shards'
     * rebuild) is not bounded by it.
     */
    ENGINE_DB_TIMEOUT_MS: integer({ min: 50, max: 60_000 }, 1_000),
    REDIS_URL: redisUrl,
    /** Accounts one user may hold; one more is 409 account_limit_reached (docs/engine.md, "Limits"). */
    ENGINE_MAX_ACCOUNTS_PER_USER: integer({ min: 1, max: 100_000 }, DEFAULT_MAX_ACCOUNTS_PER_USER),
    /** Working orders one account may hold; one more is 409 order_limit_reached. */
    ENGINE_MAX_WORKING_ORDERS: integer({ min: 1, max: 100_000 }, DEFAULT_MAX_WORKING_ORDERS),
    /** How long a final order stays in its actor's memory after it became final (it stays in the journal). */
    ENGINE_FINAL_ORDER_RETENTION_MS: integer({ min: 0, max: 30 * DAY_MS }, DEFAULT_FINAL_ORDER_RETENTION_MS),
    /** The most final orders an account keeps in memory (the newest), whatever their age. */
    ENGINE_FINAL_ORDERS_KEPT: integer({ min: 0, max: 1_000_000 }, DEFAULT_FINAL_ORDERS_KEPT),
    /** How long a `client_id` answers a retry with its first answer (docs/engine.md, "Idempotency"). */
    ENGINE_CLIENT_ID_WINDOW_MS: integer({ min: 60_000, max: 30 * DAY_MS }, DEFAULT_CLIENT_ID_WINDOW_MS),
    /** An account's state is snapshotted every this many of its events: a restart replays only those after it. */
    ENGINE_SNAPSHOT_EVERY: integer({ min: 10, max: 10_000_000 }, DEFAULT_SNAPSHOT_EVERY),
    /** The most `client_id` records an account keeps (the newest), whatever their age. */
    ENGINE_CLIENT_IDS_KEPT: integer({ min: 100, max: 1_000_000 }, DEFAULT_CLIENT_IDS_KEPT),
    /** Seed of the price simulator (the same seed replays the same prices). */
    SIMULATOR_SEED: integer({ min: 0 }, 20261122),
    /** Milliseconds between simulated price updates. */
    SIMULATOR_INTERVAL_MS: integer({ min: 10, max: 3_600_000 }, 1000),
    /** Milliseconds between funding payments on open positions (docs/risk.md, "Funding"): 8 hours. */
    FUNDING_INTERVAL_MS: integer({ min: 100, max: 7 * 24 * 3_600_000 }, 8 * 3_600_000),
    /** Crypto funding per interval, parts per million of the notional (100 = 0.01%), larger side pays. */
    FUNDING_RATE_CRYPTO_PPM: integer({ min: 0, max: 100_000 }, 100),
    /** Rollover fee per interval on forex, commodities and indices, parts per million (both sides pay). */
    FUNDING_ROLLOVER_PPM: integer({ min: 0, max: 100_000 }, 50),
    /** host:port of the wallet's gRPC listener (webhook targets); defaults to HOST:WALLET_GRPC_PORT. */
    WALLET_GRPC_PORT: port(50052),
    WALLET_GRPC_TARGET: z
      .string()
      .regex(/^[a-zA-Z0-9.:[\]-]+:\d+$/, "must be host:port")
      .optional(),
    /** The webhook dispatcher (docs/webhooks.md) runs in this engine. */
    WEBHOOKS_ENABLED: bool(true),
    /** Webhook targets may be loopback, private or link-local addresses (tests and local development only). */
    WEBHOOK_ALLOW_PRIVATE: bool(false),
    /**
     * A PEM file of extra CA certificates trusted for webhook receivers (the system CAs stay trusted): read and
     * parsed here, so a missing file or one without a certificate stops the engine at start naming the setting.
     */
    WEBHOOK_CA_FILE: caFile.optional(),
    /** Delays (ms) before each attempt: the first is the first attempt's; the count is the number of attempts. */
    WEBHOOK_RETRY_SCHEDULE_MS: z
      .string()
      .default(DEFAULT_SCHEDULE_MS.join(","))
      .refine(
        (v) =>
          v.split(",").length <= 50 &&
          v.split(",").every((part) => /^\s*\d+\s*$/.test(part) && Number(part.trim()) <= MAX_RETRY_DELAY_MS),
        "must be a comma-separated list of 1 to 50 whole milliseconds, each at most 30 days",
      )
      .transform((v) => v.split(",").map((part) => Number(part.trim()))),
    /** How often the dispatcher polls the outbox and the due deliveries. */
    WEBHOOK_POLL_MS: integer({ min: 10, max: 60_000 }, 200),
    /** Settled webhook events older than this many days are deleted (the catch-up endpoint reaches this far). */
    WEBHOOK_RETENTION_DAYS: integer({ min: 1, max: 3650 }, 30),
    /** A receiver must answer 2xx within this long. */
    WEBHOOK_TIMEOUT_MS: integer({ min: 100, max: 60_000 }, 10_000),
  })
  .refine((s) => s.ENGINE_ROLE === EngineRole.standby || s.ENGINE_INDEX < s.ENGINE_COUNT, {
    path: ["ENGINE_INDEX"],
    message: "must be below ENGINE_COUNT",
  })
  .refine((s) => s.ENGINE_LEASE_RENEW_MS * 2 <= s.ENGINE_LEASE_TTL_MS, {
    path: ["ENGINE_LEASE_RENEW_MS"],
    message: "must be at most half of ENGINE_LEASE_TTL_MS",
  })
  .superRefine(listenGuard(ENGINE_LISTEN_SECRETS))
  .superRefine(tlsPairGuard);

export type EngineSettings = z.infer<typeof engineSettingsSchema>;

/** Parses the engine's settings from `env`; throws ConfigError naming every bad setting. */
export function loadEngineSettings(env: NodeJS.ProcessEnv): EngineSettings {
  return parseSettings(engineSettingsSchema, env);
}
