// Redis-backed exact sliding-log rate limiter shared by every gateway replica: one atomic Lua
// script per request, clocked by Redis TIME so replicas with skewed clocks still agree. Same
// decision as the in-process limiter (types.ts has the rule and why it is exact).
//
// The limiter does not own the connection. Create the client with `createGatewayRedis` (redis-client.ts:
// auto-pipelining, so concurrent requests share round trips, and bounded waits), and quit it yourself after
// `close()`. When Redis cannot answer, `consume`, `refund` and `markRevoked` reject with `rate_limiter_unavailable`.

import { randomBytes } from "node:crypto";
import type { ClientContext, Redis, RedisKey, Result } from "ioredis";
import {
  REDIS_PREFIX,
  REVOKED_MARKER_TTL_SECONDS,
  rateLimitLogKey,
  revokedMarkerKey,
} from "../../kernel/redis-keys.js";
import { redisFailure } from "./redis-client.js";
import type { RateLimitDecision, RateLimitGrant, RateLimiter, RateLimitOptions } from "./types.js";
import { resolveRateLimitOptions, revokedDecision } from "./types.js";

/** Names under which the scripts are registered on the client with `defineCommand`. */
const COMMAND = "ftsRateLimitConsume";
const REFUND_COMMAND = "ftsRateLimitRefund";

declare module "ioredis" {
  interface RedisCommander<Context extends ClientContext = { type: "default" }> {
    /**
     * Registered by RedisRateLimiter. Replies
     * [allowed, remaining, resetMs, retryAfterMs, revoked, serverTimeUs, acceptedAtUs] as integers.
     */
    ftsRateLimitConsume(
      logKey: RedisKey,
      revokedKey: RedisKey,
      limit: number,
      windowUs: number,
      maxDelayUs: number,
      nonce: string,
      units: number,
      nowUs?: number,
    ): Result<unknown, Context>;
    /** Registered by RedisRateLimiter. Replies the number of entries removed. */
    ftsRateLimitRefund(
      logKey: RedisKey,
      windowUs: number,
      nonce: string,
      acceptedAtUs: number,
      units: number,
      nowUs?: number,
    ): Result<unknown, Context>;
  }
}

/**
 * The Lua lines that set `now` (µs): Redis TIME, or ARGV[arg] when a test passes a time of its own. Both scripts
 * start with them.
 */
const luaNow = (arg: number): string => `local now
if ARGV[${arg}] then
  now = tonumber(ARGV[${arg}])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end`;

/**
 * KEYS[1] and KEYS[2] share a hash slot (kernel/redis-keys.ts), so the script runs on Redis Cluster too.
 * KEYS[1] sorted set of accepted requests (score = Redis time in µs at which the request is accepted,
 * possibly ahead of now for a held request; member = "score-nonce", unique even for equal scores),
 * KEYS[2] revocation flag. ARGV: limit, window µs, max delay µs, unique nonce, units (slots taken at once,
 * each its own member), and only from tests a time in µs that replaces Redis TIME.
 * Numbers going back into Redis are formatted with %.0f: Lua 5.1's tostring keeps only 14
 * significant digits, too few for a µs timestamp.
 */
export const RATE_LIMIT_LUA = `
${luaNow(6)}
if redis.call('EXISTS', KEYS[2]) == 1 then
  return {0, 0, 0, 0, 1, now, 0}
end
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local units = tonumber(ARGV[5])
if units > limit then
  local retry = math.ceil(window / 1000)
  return {0, 0, retry, retry, 0, now, 0}
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - window))
local count = redis.call('ZCARD', KEYS[1])
local at = now
if count > 0 then
  local newest = tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
  if newest > at then at = newest end
end
if count + units > limit then
  local i = count + units - 1 - limit
  local e = tonumber(redis.call('ZRANGE', KEYS[1], i, i, 'WITHSCORES')[2])
  if e + window > at then at = e + window end
end
local wait = at - now
if wait > tonumber(ARGV[3]) then
  local retry = math.ceil(wait / 1000)
  if retry < 1 then retry = 1 end
  return {0, 0, retry, retry, 0, now, 0}
end
local score = string.format('%.0f', at)
for u = 1, units do
  redis.call('ZADD', KEYS[1], score, score .. '-' .. ARGV[4] .. '-' .. u)
end
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.ceil((wait + window) / 1000)))
local from = '(' .. string.format('%.0f', at - window)
local counted = redis.call('ZCOUNT', KEYS[1], from, '+inf')
local oldest = tonumber(redis.call('ZRANGEBYSCORE', KEYS[1], from, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)[2])
return {1, limit - counted, math.ceil((oldest + window - at) / 1000), 0, 0, now, at}
`;

/**
 * Removes the entries one accepted consume recorded, named as RATE_LIMIT_LUA names them, after pruning what
 * left the window (so a grant whose entries left it removes nothing, as in the in-process limiter). KEYS[1] the
 * sorted set; ARGV: window µs, the consume's nonce, its score (µs), its units, and only from tests a time in µs
 * that replaces Redis TIME. Replies the number removed.
 */
export const RATE_LIMIT_REFUND_LUA = `
${luaNow(5)}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - tonumber(ARGV[1])))
local score = string.format('%.0f', tonumber(ARGV[3]))
local removed = 0
for u = 1, tonumber(ARGV[4]) do
  removed = removed + redis.call('ZREM', KEYS[1], score .. '-' .. ARGV[2] .. '-' .. u)
end
return removed
`;

export interface RedisRateLimiterOptions extends RateLimitOptions {
  /** Connection shared with the rest of the gateway; not closed by the limiter. */
  redis: Redis;
  /** Key namespace (default "fts:"). */
  prefix?: string;
  /** Tests only: a clock in µs that replaces Redis TIME, so a decision sequence can be replayed exactly. */
  clockUs?: () => number;
}

/** A decision plus the Redis times (µs since the epoch) at which the script ran and the request was accepted. */
export interface RedisRateLimitDecision extends RateLimitDecision {
  serverTimeUs: number;
  /** The score recorded for an allowed request (serverTimeUs, or later when it is held); 0 otherwise. */
  acceptedAtUs: number;
}

export class RedisRateLimiter implements RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly maxDelayMs: number;
  readonly prefix: string;
  private readonly redis: Redis;
  private readonly clockUs: (() => number) | undefined;
  /** Makes sorted-set members unique across replicas even when two requests share a µs. */
  private readonly instanceId = randomBytes(6).toString("base64url");
  private seq = 0;
  private closed = false;

  constructor(options: RedisRateLimiterOptions) {
    const { limit, windowMs, maxDelayMs } = resolveRateLimitOptions(options);
    this.limit = limit;
    this.windowMs = windowMs;
    this.maxDelayMs = maxDelayMs;
    this.prefix = options.prefix ?? REDIS_PREFIX;
    this.redis = options.redis;
    this.clockUs = options.clockUs;
    this.redis.defineCommand(COMMAND, { numberOfKeys: 2, lua: RATE_LIMIT_LUA });
    this.redis.defineCommand(REFUND_COMMAND, { numberOfKeys: 1, lua: RATE_LIMIT_REFUND_LUA });
  }

  async consume(keyId: string, units = 1): Promise<RedisRateLimitDecision> {
    this.assertOpen();
    if (!Number.isSafeInteger(units) || units < 1)
      throw new RangeError(`units must be a positive integer, got ${units}`);
    this.seq = (this.seq + 1) % Number.MAX_SAFE_INTEGER;
    const nonce = `${this.instanceId}:${this.seq}`;
    const args = [
      this.logKey(keyId),
      this.revokedKey(keyId),
      this.limit,
      this.windowMs * 1000,
      this.maxDelayMs * 1000,
      nonce,
      units,
    ] as const;
    const reply = await (
      this.clockUs === undefined
        ? this.redis.ftsRateLimitConsume(...args)
        : this.redis.ftsRateLimitConsume(...args, this.clockUs())
    ).catch((error: unknown) => {
      throw redisFailure(error);
    });
    const [allowed, remaining, resetMs, retryAfterMs, revoked, serverTimeUs, acceptedAtUs] = parseReply(reply);
    if (revoked === 1) return { ...revokedDecision(this.limit), serverTimeUs, acceptedAtUs: 0 };
    const decision = {
      allowed: allowed === 1,
      revoked: false,
      limit: this.limit,
      remaining,
      resetMs,
      retryAfterMs,
      delayMs: allowed === 1 ? Math.ceil((acceptedAtUs - serverTimeUs) / 1000) : 0,
      serverTimeUs,
      acceptedAtUs,
    };
    return allowed === 1 ? { ...decision, grant: { keyId, units, at: acceptedAtUs, id: nonce } } : decision;
  }

  async refund(grant: RateLimitGrant): Promise<number> {
    this.assertOpen();
    const args = [this.logKey(grant.keyId), this.windowMs * 1000, grant.id, grant.at, grant.units] as const;
    const reply = await (
      this.clockUs === undefined
        ? this.redis.ftsRateLimitRefund(...args)
        : this.redis.ftsRateLimitRefund(...args, this.clockUs())
    ).catch((error: unknown) => {
      throw redisFailure(error);
    });
    if (typeof reply !== "number" || !Number.isSafeInteger(reply) || reply < 0 || reply > grant.units) {
      throw new Error(`unexpected rate-limit refund reply: ${JSON.stringify(reply)}`);
    }
    return reply;
  }

  async markRevoked(keyId: string): Promise<void> {
    this.assertOpen();
    await this.redis.set(this.revokedKey(keyId), "1", "EX", REVOKED_MARKER_TTL_SECONDS).catch((error: unknown) => {
      throw redisFailure(error);
    });
  }

  async isMarkedRevoked(keyId: string): Promise<boolean> {
    this.assertOpen();
    const found = await this.redis.exists(this.revokedKey(keyId)).catch((error: unknown) => {
      throw redisFailure(error);
    });
    return found === 1;
  }

  /** Releases nothing but the limiter itself: the Redis client belongs to the caller. */
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  logKey(keyId: string): string {
    return rateLimitLogKey(checkedKeyId(keyId), this.prefix);
  }

  /** The marker the wallet sets when it revokes the key (kernel/redis-keys.ts). */
  revokedKey(keyId: string): string {
    return revokedMarkerKey(checkedKeyId(keyId), this.prefix);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("RedisRateLimiter is closed");
  }
}

/** A brace in a key id would move the hash tag off the marker's name, and the script's keys apart. */
function checkedKeyId(keyId: string): string {
  if (/[{}]/.test(keyId)) throw new Error("a key id must not contain braces");
  return keyId;
}

type Reply = [number, number, number, number, number, number, number];

/** The script's reply crosses a process boundary, so check its shape instead of trusting a cast. */
function parseReply(reply: unknown): Reply {
  if (!Array.isArray(reply) || reply.length !== 7) {
    throw new Error(`unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
  }
  const out = reply.map((v: unknown) => {
    const n = typeof v === "number" ? v : typeof v === "string" ? Number(v) : Number.NaN;
    if (!Number.isSafeInteger(n)) throw new Error(`unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
    return n;
  });
  return [out[0] ?? 0, out[1] ?? 0, out[2] ?? 0, out[3] ?? 0, out[4] ?? 0, out[5] ?? 0, out[6] ?? 0];
}
