// Shared contract of the per-API-key rate limiter, so the gateway can swap the in-process
// limiter (tests, single replica) for the Redis one (all replicas) without touching handlers.
//
// Both implementations make the same decision, atomically per key, over a sorted log of accepted
// times in which an entry may lie in the future (a slot reserved for a held request):
//
//   prune the entries <= now - window (the window ending at t is (t - window, t]); n = entries left;
//   T = max(now, newest entry), and when n >= limit also max(T, e + window) where e is entry
//   n - limit (0-based, ascending: the limit-th most recent);
//   T - now <= maxDelay: record T, accept, the gateway holds the request T - now before forwarding;
//   otherwise refuse and record nothing.
//
// A request of u units (a batch) records u entries at T, and e is entry n - limit + u - 1 instead: the window
// ending at T then holds at most limit - u kept entries, so with the u new ones at most limit. The argument
// below goes through with "limit - 1" read as "limit - u".
//
// Why no rolling window over the recorded times ever holds more than `limit` (by induction over
// the decisions; it holds for the empty log). T is at least every recorded time, so a window
// (t - window, t] that contains T has t >= T, and the other entries it holds are in
// (T - window, T]. Those are > now - window (T >= now), so they are among the n kept entries.
// If n < limit there are at most limit - 1 of them. If n >= limit, T >= e + window leaves e and
// every earlier entry out of (T - window, T], so at most the limit - 1 entries after e remain.
// Either way the window holds at most limit with T. Windows without T did not change.
// Under a clock that never steps back the `newest entry` term never raises T, it only keeps the log
// sorted if a clock does: with no future entry, newest <= now; a future newest entry R was reserved
// as y + window when y was the limit-th most recent, and y and the entries after it are all still
// kept (> R - window > now - window), so the limit-th most recent entry now is y or later and
// e + window >= R. Hence T is never later than needed.
//
// Entries may reach maxDelay into the future, so a key's log holds at most 2 × limit entries
// (limit in each of (now - window, now + maxDelay - window] and (now + maxDelay - window,
// now + maxDelay], maxDelay < window).
//
// A refund removes the entries one accepted decision recorded (its grant: u entries at T), whether T has
// passed or is still ahead, and nothing else. Removing entries never adds one to any window, so the bound
// above still holds for what stays, and the log stays sorted. The induction needs nothing more: a decision
// only reads the kept entries, and its argument holds for any sorted log within the bound. What a refund does
// not restore is that T is never later than needed: the `newest entry` term keeps the log sorted, so a request
// that comes after a refund is placed no earlier than the newest slot already reserved (at most maxDelay
// ahead), though a refunded slot might have let it go sooner. Refusals stay exact: newest <= now + maxDelay, so
// a refusal comes from e + window > now + maxDelay, and then u new entries at any t <= now + maxDelay leave the
// window ending at max(t, newest) holding e, the limit - u entries after it and the u new ones: limit + 1.
// Requests already held keep their slot: a refund never moves an entry. A grant whose entries left the window,
// were refunded already or went with the key's log (in process: a revocation, an evicted log) removes nothing.

/** Outcome of one `consume()` call; everything the HTTP layer needs for a 429 and the RateLimit headers. */
export interface RateLimitDecision {
  /** false => answer 429 (or 401/403 when `revoked`). */
  allowed: boolean;
  /** true => the key was revoked; `allowed` is false and nothing was consumed. */
  revoked: boolean;
  limit: number;
  /** Accepted slots left in the window ending when the request is accepted (after any hold). */
  remaining: number;
  /** ms from acceptance (after any hold) until the oldest request in that window leaves it; for a refusal, `retryAfterMs`. */
  resetMs: number;
  /**
   * 0 when allowed; otherwise ms until one slot frees (>= 1).
   * Also 0 for revoked keys: waiting does not help them.
   */
  retryAfterMs: number;
  /**
   * ms to hold an allowed request before forwarding it: its slot was reserved that far ahead (at most
   * maxDelayMs, rounded up to a whole ms). 0 when accepted at once and for every refusal.
   */
  delayMs: number;
  /** Present when allowed: names the entries this decision recorded, for `RateLimiter.refund`. */
  grant?: RateLimitGrant;
}

/**
 * The entries one accepted `consume()` recorded: `units` entries at one time, each named so that a refund
 * removes exactly these (never another request's entries at the same time). Opaque to callers.
 */
export interface RateLimitGrant {
  readonly keyId: string;
  readonly units: number;
  /** When the entries were recorded, on the implementation's clock (ms in process, µs of Redis TIME). */
  readonly at: number;
  /** The implementation's name for the entries: unique per accepted decision of one limiter. */
  readonly id: string;
}

/**
 * Exact sliding-log limiter: no key gets more than `limit` accepted requests in any rolling
 * window of `windowMs`, counted at acceptance time (after any hold); refused requests are not recorded.
 */
export interface RateLimiter {
  /**
   * Takes `units` slots (default 1) at once, all accepted at the same time, or none: a request that counts as
   * several (POST /v1/orders/batch, one per order). More units than `limit` are always refused.
   */
  consume(keyId: string, units?: number): Promise<RateLimitDecision>;
  /**
   * Gives back the entries `grant` recorded (a request answered 503: nothing it did counts against the key).
   * Resolves to the number of entries removed: `grant.units`, or 0 when they are gone already (refunded before,
   * left the window, or dropped with the key's log). Never adds to any window, so the bound holds (types.ts).
   */
  refund(grant: RateLimitGrant): Promise<number>;
  /** Later `consume()` calls for this key answer `revoked: true`. */
  markRevoked(keyId: string): Promise<void>;
  /** Whether the key is marked revoked (by `markRevoked`, or by the wallet in the shared store). */
  isMarkedRevoked(keyId: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Options common to every implementation. */
export interface RateLimitOptions {
  /** Accepted requests allowed per rolling window (default 1200). */
  limit?: number;
  /** Rolling window length in ms (default 60 000). */
  windowMs?: number;
  /**
   * Longest a request may be held for a slot that frees soon instead of being refused (default 100 ms;
   * 0 never holds). An integer below `windowMs`.
   */
  maxDelayMs?: number;
}

export interface ResolvedRateLimitOptions {
  limit: number;
  windowMs: number;
  maxDelayMs: number;
}

export const DEFAULT_LIMIT = 1200;
export const DEFAULT_WINDOW_MS = 60_000;
/**
 * Covers the arrival jitter of a client paced at exactly the limit (the load run saw refusals a few ms
 * early), with room for a stalled event loop or a GC pause, and stays small next to a request's latency.
 */
export const DEFAULT_MAX_DELAY_MS = 100;

/** Validates and fills in the defaults; throws RangeError on nonsense so a bad config fails at boot. */
export function resolveRateLimitOptions(options: RateLimitOptions): ResolvedRateLimitOptions {
  const limit = options.limit ?? DEFAULT_LIMIT;
  const windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`rate limit must be a positive integer, got ${limit}`);
  }
  if (!Number.isSafeInteger(windowMs) || windowMs < 1) {
    throw new RangeError(`rate limit window must be a positive integer number of ms, got ${windowMs}`);
  }
  if (!Number.isSafeInteger(maxDelayMs) || maxDelayMs < 0 || maxDelayMs >= windowMs) {
    throw new RangeError(`rate limit max delay must be an integer in [0, ${windowMs}) ms, got ${maxDelayMs}`);
  }
  return { limit, windowMs, maxDelayMs };
}

/** Decision returned for a revoked key: nothing consumed, nothing to wait for. */
export function revokedDecision(limit: number): RateLimitDecision {
  return { allowed: false, revoked: true, limit, remaining: 0, resetMs: 0, retryAfterMs: 0, delayMs: 0 };
}
