// Redis-backed exact sliding-log rate limiter shared by every gateway replica: one atomic Lua
// script per request, clocked by Redis TIME so replicas with skewed clocks still agree.
//
// The limiter does not own the connection. Create the client with auto-pipelining so concurrent
// requests share round trips, e.g. `new Redis(url, { enableAutoPipelining: true })`, and quit it
// yourself after `close()`.

import { randomBytes } from "node:crypto";
import type { ClientContext, Redis, RedisKey, Result } from "ioredis";
import type { RateLimitDecision, RateLimiter, RateLimitOptions } from "./types.js";
import { resolveRateLimitOptions, revokedDecision } from "./types.js";

/** Name under which the script is registered on the client with `defineCommand`. */
const COMMAND = "ftsRateLimitConsume";

declare module "ioredis" {
  interface RedisCommander<Context extends ClientContext = { type: "default" }> {
    /**
     * Registered by RedisRateLimiter. Replies
     * [allowed, remaining, resetMs, retryAfterMs, revoked, serverTimeUs] as integers.
     */
    ftsRateLimitConsume(
      logKey: RedisKey,
      revokedKey: RedisKey,
      limit: number,
      windowUs: number,
      windowMs: number,
      nonce: string,
    ): Result<unknown, Context>;
  }
}

/**
 * KEYS[1] sorted set of accepted requests (score = Redis time in µs, member = "time-nonce"),
 * KEYS[2] revocation flag. ARGV: limit, window µs, window ms, unique nonce.
 * Numbers going back into Redis are formatted with %.0f: Lua 5.1's tostring keeps only 14
 * significant digits, too few for a µs timestamp.
 */
export const RATE_LIMIT_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
if redis.call('EXISTS', KEYS[2]) == 1 then
  return {0, 0, 0, 0, 1, now}
end
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - window))
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
  local wait = math.ceil((oldest + window - now) / 1000)
  if wait < 1 then wait = 1 end
  return {0, 0, wait, wait, 0, now}
end
local score = string.format('%.0f', now)
redis.call('ZADD', KEYS[1], score, score .. '-' .. ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local oldest = now
if count > 0 then
  oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
end
return {1, limit - count - 1, math.ceil((oldest + window - now) / 1000), 0, 0, now}
`;

/** Revocation flags outlive any plausible key cache: 7 days. */
const REVOKED_TTL_SECONDS = 604_800;

export interface RedisRateLimiterOptions extends RateLimitOptions {
  /** Connection shared with the rest of the gateway; not closed by the limiter. */
  redis: Redis;
  /** Key namespace (default "fts:"). */
  prefix?: string;
}

/** A decision plus the Redis time (µs since the epoch) at which the script ran. */
export interface RedisRateLimitDecision extends RateLimitDecision {
  serverTimeUs: number;
}

export class RedisRateLimiter implements RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly prefix: string;
  private readonly redis: Redis;
  /** Makes sorted-set members unique across replicas even when two requests share a µs. */
  private readonly instanceId = randomBytes(6).toString("base64url");
  private seq = 0;
  private closed = false;

  constructor(options: RedisRateLimiterOptions) {
    const { limit, windowMs } = resolveRateLimitOptions(options);
    this.limit = limit;
    this.windowMs = windowMs;
    this.prefix = options.prefix ?? "fts:";
    this.redis = options.redis;
    this.redis.defineCommand(COMMAND, { numberOfKeys: 2, lua: RATE_LIMIT_LUA });
  }

  async consume(keyId: string): Promise<RedisRateLimitDecision> {
    this.assertOpen();
    this.seq = (this.seq + 1) % Number.MAX_SAFE_INTEGER;
    const reply = await this.redis.ftsRateLimitConsume(
      this.logKey(keyId),
      this.revokedKey(keyId),
      this.limit,
      this.windowMs * 1000,
      this.windowMs,
      `${this.instanceId}:${this.seq}`,
    );
    const [allowed, remaining, resetMs, retryAfterMs, revoked, serverTimeUs] = parseReply(reply);
    if (revoked === 1) return { ...revokedDecision(this.limit), serverTimeUs };
    return {
      allowed: allowed === 1,
      revoked: false,
      limit: this.limit,
      remaining,
      resetMs,
      retryAfterMs,
      serverTimeUs,
    };
  }

  async markRevoked(keyId: string): Promise<void> {
    this.assertOpen();
    await this.redis.set(this.revokedKey(keyId), "1", "EX", REVOKED_TTL_SECONDS);
  }

  /** Releases nothing but the limiter itself: the Redis client belongs to the caller. */
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  logKey(keyId: string): string {
    return `${this.prefix}rl:${keyId}`;
  }

  revokedKey(keyId: string): string {
    return `${this.prefix}revoked:${keyId}`;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("RedisRateLimiter is closed");
  }
}

type Reply = [number, number, number, number, number, number];

/** The script's reply crosses a process boundary, so check its shape instead of trusting a cast. */
function parseReply(reply: unknown): Reply {
  if (!Array.isArray(reply) || reply.length !== 6) {
    throw new Error(`unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
  }
  const out = reply.map((v: unknown) => {
    const n = typeof v === "number" ? v : typeof v === "string" ? Number(v) : Number.NaN;
    if (!Number.isSafeInteger(n)) throw new Error(`unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
    return n;
  });
  return [out[0] ?? 0, out[1] ?? 0, out[2] ?? 0, out[3] ?? 0, out[4] ?? 0, out[5] ?? 0];
}
