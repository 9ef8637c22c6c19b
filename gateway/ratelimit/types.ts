// Shared contract of the per-API-key rate limiter, so the gateway can swap the in-process
// limiter (tests, single replica) for the Redis one (all replicas) without touching handlers.

/** Outcome of one `consume()` call; everything the HTTP layer needs for a 429 and the RateLimit headers. */
export interface RateLimitDecision {
  /** false => answer 429 (or 401/403 when `revoked`). */
  allowed: boolean;
  /** true => the key was revoked; `allowed` is false and nothing was consumed. */
  revoked: boolean;
  limit: number;
  /** Accepted slots left in the current window after this decision. */
  remaining: number;
  /** ms until the oldest accepted request leaves the window (0 if none). */
  resetMs: number;
  /**
   * 0 when allowed; otherwise ms until one slot frees (>= 1).
   * Also 0 for revoked keys: waiting does not help them.
   */
  retryAfterMs: number;
}

/**
 * Exact sliding-log limiter: no key gets more than `limit` accepted requests in any rolling
 * window of `windowMs`; refused requests are not recorded.
 */
export interface RateLimiter {
  consume(keyId: string): Promise<RateLimitDecision>;
  /** Later `consume()` calls for this key answer `revoked: true`. */
  markRevoked(keyId: string): Promise<void>;
  close(): Promise<void>;
}

/** Options common to every implementation. */
export interface RateLimitOptions {
  /** Accepted requests allowed per rolling window (default 1200). */
  limit?: number;
  /** Rolling window length in ms (default 60 000). */
  windowMs?: number;
}

export const DEFAULT_LIMIT = 1200;
export const DEFAULT_WINDOW_MS = 60_000;

/** Validates and fills in the defaults; throws RangeError on nonsense so a bad config fails at boot. */
export function resolveRateLimitOptions(options: RateLimitOptions): { limit: number; windowMs: number } {
  const limit = options.limit ?? DEFAULT_LIMIT;
  const windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`rate limit must be a positive integer, got ${limit}`);
  }
  if (!Number.isSafeInteger(windowMs) || windowMs < 1) {
    throw new RangeError(`rate limit window must be a positive integer number of ms, got ${windowMs}`);
  }
  return { limit, windowMs };
}

/** Decision returned for a revoked key: nothing consumed, nothing to wait for. */
export function revokedDecision(limit: number): RateLimitDecision {
  return { allowed: false, revoked: true, limit, remaining: 0, resetMs: 0, retryAfterMs: 0 };
}
