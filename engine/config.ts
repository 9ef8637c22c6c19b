// The engine's settings: one zod schema over the environment, parsed once at start. Every bad value is
// reported together and stops the process (see kernel/config.ts); each setting has a default.
import { z } from "zod";
import { commonSettings, parseSettings, port, postgresUrl, redisUrl } from "../kernel/config.js";

export const PriceFeed = {
  /** The built-in price simulator moves every symbol from its reference price. */
  simulator: "simulator",
  /** No simulator: prices arrive through market.v1 PushPrices only. */
  push: "push",
} as const;
export type PriceFeed = (typeof PriceFeed)[keyof typeof PriceFeed];

export const engineSettingsSchema = z.object({
  ...commonSettings,
  ENGINE_GRPC_PORT: port(50051),
  ENGINE_METRICS_PORT: port(9101),
  PRICE_FEED: z.enum(PriceFeed).default(PriceFeed.simulator),
  ENGINE_SHARDS: z.coerce.number().int().min(1).max(256).default(2),
  DATABASE_URL: postgresUrl,
  REDIS_URL: redisUrl,
  /** Seed of the price simulator (the same seed replays the same prices). */
  SIMULATOR_SEED: z.coerce.number().int().min(0).default(20261122),
  /** Milliseconds between simulated price updates. */
  SIMULATOR_INTERVAL_MS: z.coerce.number().int().min(10).default(1000),
  /** Milliseconds between funding payments on open positions (docs/risk.md, "Funding"): 8 hours. */
  FUNDING_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(8 * 3_600_000),
  /** Crypto funding per interval, parts per million of the notional (100 = 0.01%), larger side pays. */
  FUNDING_RATE_CRYPTO_PPM: z.coerce.number().int().min(0).max(100_000).default(100),
  /** Rollover fee per interval on forex, commodities and indices, parts per million (both sides pay). */
  FUNDING_ROLLOVER_PPM: z.coerce.number().int().min(0).max(100_000).default(50),
});

export type EngineSettings = z.infer<typeof engineSettingsSchema>;

/** Parses the engine's settings from `env`; throws ConfigError naming every bad setting. */
export function loadEngineSettings(env: NodeJS.ProcessEnv): EngineSettings {
  return parseSettings(engineSettingsSchema, env);
}
