// The failed-authentication count every gateway shares (gateway/v1/auth-failures.ts), in Redis: one counter per
// source whose expiry is its window, set when the window's first failure is counted, so every gateway sees the same
// count and the same end. The connection is the gateway's (gateway/ratelimit/redis-client.ts: bounded waits, no
// queue while disconnected); a call that fails rejects, and the limiter falls back to its local count.
import type { ClientContext, Redis, Result } from "ioredis";
import { authFailureKey, REDIS_PREFIX } from "../../kernel/redis-keys.js";
import type { SharedFailureCount } from "./auth-failures.js";

const ADD = "ftsAuthFailureAdd";
const BLOCKED = "ftsAuthFailureBlocked";

declare module "ioredis" {
  interface RedisCommander<Context extends ClientContext = { type: "default" }> {
    /** Registered by RedisFailureCount: counts one failure; replies the count. */
    ftsAuthFailureAdd(key: string, windowMs: number): Result<unknown, Context>;
    /** Registered by RedisFailureCount: ms left of the window once the count reached the limit, else 0. */
    ftsAuthFailureBlocked(key: string, limit: number): Result<unknown, Context>;
  }
}

/** KEYS[1] the counter, ARGV[1] the window in ms. A counter without an expiry (none is left) gets one. */
export const ADD_LUA = `
local count = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return count
`;

/** KEYS[1] the counter, ARGV[1] the limit. */
export const BLOCKED_LUA = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count < tonumber(ARGV[1]) then
  return 0
end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  return 0
end
return left
`;

export class RedisFailureCount implements SharedFailureCount {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = REDIS_PREFIX,
  ) {
    redis.defineCommand(ADD, { numberOfKeys: 1, lua: ADD_LUA });
    redis.defineCommand(BLOCKED, { numberOfKeys: 1, lua: BLOCKED_LUA });
  }

  async add(source: string, windowMs: number): Promise<void> {
    await this.redis.ftsAuthFailureAdd(authFailureKey(source, this.prefix), Math.max(1, Math.ceil(windowMs)));
  }

  async blockedFor(source: string, limit: number): Promise<number> {
    const left = await this.redis.ftsAuthFailureBlocked(authFailureKey(source, this.prefix), limit);
    return typeof left === "number" && left > 0 ? left : 0;
  }
}
