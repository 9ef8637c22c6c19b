// The gateway's Redis connection, set up so that a Redis that is down or hung costs a request a quick 503
// (rate_limiter_unavailable, docs/runbook.md "Redis unavailable (503)") instead of a wait in ioredis's queues and
// a 500: nothing is queued while disconnected, nothing is re-sent after a dropped connection (the rate-limit script
// is not idempotent), every command has a deadline, and the client reconnects within a second once Redis is back.
import { Redis, type RedisOptions } from "ioredis";
import { ServiceError } from "../../kernel/errors.js";

/** Longest a command waits for Redis's answer: the script takes well under a millisecond. */
export const REDIS_COMMAND_TIMEOUT_MS = 500;
/** Longest a connection attempt may take. */
export const REDIS_CONNECT_TIMEOUT_MS = 1_000;
/** Longest pause between reconnection attempts. */
export const REDIS_MAX_RECONNECT_DELAY_MS = 1_000;

export const GATEWAY_REDIS_OPTIONS = {
  enableAutoPipelining: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
  retryStrategy: (attempt: number) => Math.min(attempt * 100, REDIS_MAX_RECONNECT_DELAY_MS),
} as const satisfies RedisOptions;

export function createGatewayRedis(url: string): Redis {
  return new Redis(url, GATEWAY_REDIS_OPTIONS);
}

/** Error replies that mean "not now" (loading, a busy script, a failover), not a fault of the command. */
const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|READONLY)\b/;

/**
 * A failed Redis call as the registry's error: the connection down, a command past its deadline or a transient
 * error reply is `rate_limiter_unavailable` (503, Retry-After); any other error reply is a fault, left as it is.
 */
export function redisFailure(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  if (error.name === "ReplyError" && !TRANSIENT_REPLY.test(error.message)) return error;
  return new ServiceError("rate_limiter_unavailable", {}, `redis: ${error.message}`);
}
