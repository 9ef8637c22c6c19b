// Runs a suite against both databases the wallet supports: a real PostgreSQL and the embedded PGlite default.
import { startPostgres } from "./postgres.js";
import { startRedis, type RedisServer } from "./redis.js";
import { startStack, type Stack, type StackOptions } from "./stack.js";

export const BACKENDS = ["postgres", "pglite"] as const;
export type Backend = (typeof BACKENDS)[number];

export interface TestStack extends Stack {
  backend: Backend;
  /** The Redis every process shares (`redis: true` only). */
  redis: RedisServer | undefined;
}

/** Starts the stack on `backend`; with `redis: true` also a throwaway Redis shared by every process. */
export async function stackOn(backend: Backend, options: StackOptions & { redis?: boolean } = {}): Promise<TestStack> {
  const postgres = backend === "postgres" ? await startPostgres() : undefined;
  const redis = options.redis === true ? await startRedis() : undefined;
  try {
    const stack = await startStack({
      ...options,
      ...(postgres === undefined ? {} : { databaseUrl: postgres.url }),
      ...(redis === undefined ? {} : { redisUrl: redis.url }),
    });
    return {
      ...stack,
      backend,
      redis,
      async stop() {
        try {
          await stack.stop();
        } finally {
          await redis?.stop();
          await postgres?.stop();
        }
      },
    };
  } catch (error) {
    await redis?.stop();
    await postgres?.stop();
    throw error;
  }
}
