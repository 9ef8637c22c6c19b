// In-process exact sliding-log rate limiter: for tests and single-replica deployments where
// sharing counters through Redis is unnecessary. Same contract as the Redis limiter.

import type { RateLimitDecision, RateLimiter, RateLimitOptions } from "./types.js";
import { resolveRateLimitOptions, revokedDecision } from "./types.js";

export interface MemoryRateLimiterOptions extends RateLimitOptions {
  /** Clock in ms; injectable for tests. Default: a monotonic wall clock. */
  now?: () => number;
  /** How often idle keys are evicted (default: windowMs, at least 1000 ms). 0 disables the timer. */
  sweepIntervalMs?: number;
}

const defaultNow = (): number => performance.timeOrigin + performance.now();

/** Smallest ring allocated for a key; grows by doubling up to `limit`. */
const INITIAL_CAPACITY = 8;

/**
 * Timestamps (ms) of the accepted requests still in the window, oldest first, in a ring buffer
 * that never needs more than `limit` slots because a full window refuses further requests.
 */
class AcceptedLog {
  private buf: Float64Array;
  private head = 0;
  size = 0;

  constructor(
    private readonly maxCapacity: number,
    first: number,
  ) {
    this.buf = new Float64Array(Math.min(INITIAL_CAPACITY, maxCapacity));
    this.push(first);
  }

  /** Oldest timestamp; only meaningful when size > 0. */
  oldest(): number {
    return this.buf[this.head] ?? 0;
  }

  /** Newest timestamp; only meaningful when size > 0. */
  newest(): number {
    return this.buf[(this.head + this.size - 1) % this.buf.length] ?? 0;
  }

  /** Drops entries that left the window (t - windowMs, t]. Amortised O(1): each entry leaves once. */
  prune(cutoff: number): void {
    while (this.size > 0 && this.oldest() <= cutoff) {
      this.head = (this.head + 1) % this.buf.length;
      this.size--;
    }
  }

  push(t: number): void {
    if (this.size === this.buf.length) this.grow();
    this.buf[(this.head + this.size) % this.buf.length] = t;
    this.size++;
  }

  private grow(): void {
    const next = new Float64Array(Math.min(this.buf.length * 2, this.maxCapacity));
    for (let i = 0; i < this.size; i++) next[i] = this.buf[(this.head + i) % this.buf.length] ?? 0;
    this.buf = next;
    this.head = 0;
  }
}

export class MemoryRateLimiter implements RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  private readonly now: () => number;
  private readonly logs = new Map<string, AcceptedLog>();
  private readonly revoked = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(options: MemoryRateLimiterOptions = {}) {
    const { limit, windowMs } = resolveRateLimitOptions(options);
    this.limit = limit;
    this.windowMs = windowMs;
    this.now = options.now ?? defaultNow;
    const sweepMs = options.sweepIntervalMs ?? Math.max(windowMs, 1000);
    if (sweepMs > 0) {
      this.timer = setInterval(() => {
        this.sweep();
      }, sweepMs);
      this.timer.unref();
    }
  }

  /** Number of keys currently holding in-window entries (plus not-yet-swept idle ones). */
  get trackedKeys(): number {
    return this.logs.size;
  }

  consume(keyId: string): Promise<RateLimitDecision> {
    return Promise.resolve(this.consumeSync(keyId));
  }

  /** Synchronous core of `consume()`; the in-process limiter never needs to wait. */
  consumeSync(keyId: string): RateLimitDecision {
    if (this.revoked.has(keyId)) return revokedDecision(this.limit);
    const { limit, windowMs } = this;
    let t = this.now();
    const log = this.logs.get(keyId);
    if (log === undefined) {
      this.logs.set(keyId, new AcceptedLog(limit, t));
      return { allowed: true, revoked: false, limit, remaining: limit - 1, resetMs: windowMs, retryAfterMs: 0 };
    }
    // Keep the log sorted even if an injected clock steps backwards.
    if (log.size > 0) t = Math.max(t, log.newest());
    log.prune(t - windowMs);
    if (log.size >= limit) {
      const wait = Math.max(1, Math.ceil(log.oldest() + windowMs - t));
      return { allowed: false, revoked: false, limit, remaining: 0, resetMs: wait, retryAfterMs: wait };
    }
    log.push(t);
    return {
      allowed: true,
      revoked: false,
      limit,
      remaining: limit - log.size,
      resetMs: Math.ceil(log.oldest() + windowMs - t),
      retryAfterMs: 0,
    };
  }

  markRevoked(keyId: string): Promise<void> {
    this.revoked.add(keyId);
    this.logs.delete(keyId);
    return Promise.resolve();
  }

  /** Forgets keys with no request in the last window, so memory tracks active keys only. */
  sweep(): void {
    const cutoff = this.now() - this.windowMs;
    for (const [keyId, log] of this.logs) {
      log.prune(cutoff);
      if (log.size === 0) this.logs.delete(keyId);
    }
  }

  close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.logs.clear();
    return Promise.resolve();
  }
}
