// Public surface of the per-API-key rate limiter; the gateway imports from here only.

export type { RateLimitDecision, RateLimitGrant, RateLimiter, RateLimitOptions } from "./types.js";
export { DEFAULT_LIMIT, DEFAULT_MAX_DELAY_MS, DEFAULT_WINDOW_MS } from "./types.js";
export type { MemoryRateLimiterOptions } from "./memory.js";
export { MemoryRateLimiter } from "./memory.js";
export type { RedisRateLimiterOptions, RedisRateLimitDecision } from "./redis.js";
export { RedisRateLimiter, RATE_LIMIT_LUA, RATE_LIMIT_REFUND_LUA } from "./redis.js";
export { createGatewayRedis, GATEWAY_REDIS_OPTIONS, REDIS_COMMAND_TIMEOUT_MS } from "./redis-client.js";
export { rateLimitHeaders, retryAfterBody } from "./headers.js";
