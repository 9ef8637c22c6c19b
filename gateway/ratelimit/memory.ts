// In-process exact sliding-log rate limiter: for tests and single-replica deployments where
// sharing counters through Redis is unnecessary. Same contract and decision as the Redis limiter
// (types.ts has the rule and why it is exact). Its memory is bounded: at most `maxKeys` logs (idle ones swept, the
// least recently used evicted past the cap) and at most `maxRevoked` revoked keys, each remembered `revokedTtlMs`.

import type { RateLimitDecision, RateLimitGrant, RateLimiter, RateLimitOptions } from "./types.js";
import { resolveRateLimitOptions, revokedDecision } from "./types.js";

export interface MemoryRateLimiterOptions extends RateLimitOptions {
  /** Clock in ms; injectable for tests. Default: a monotonic wall clock. */
  now?: () => number;
  /** How often idle keys are evicted (default: windowMs, at least 1000 ms). 0 disables the timer. */
  sweepIntervalMs?: number;
  /**
   * Most keys with a log (default 100 000). Past it the least recently used key's log is dropped: that key starts
   * a fresh window, the price of a bounded memory when more keys are active at once than the cap.
   */
  maxKeys?: number;
  /**
   * How long a revoked key answers `revoked` (default 24 h). It only has to outlive a validation made just before
   * the revocation (the key cache, KEY_CACHE_TTL_MS): after that the wallet refuses the key before the limiter.
   */
  revokedTtlMs?: number;
  /** Most revoked keys remembered (default 100 000); past it the oldest revocation is forgotten first. */
  maxRevoked?: number;
}

export const DEFAULT_MAX_KEYS = 100_000;
export const DEFAULT_REVOKED_TTL_MS = 24 * 3_600_000;
export const DEFAULT_MAX_REVOKED = 100_000;

const defaultNow = (): number => performance.timeOrigin + performance.now();

/** Smallest ring allocated for a key; grows by doubling up to `maxCapacity`. */
const INITIAL_CAPACITY = 8;

/**
 * Accepted times (ms) still in the window or reserved ahead, oldest first, in a ring buffer, each with the
 * grant that recorded it (a `consume()` of u units records u entries of one grant). It needs at most
 * 2 × limit slots (types.ts); a key that is never held needs at most limit.
 */
class AcceptedLog {
  private buf: Float64Array;
  private grants: Float64Array;
  private head = 0;
  size = 0;

  constructor(private readonly maxCapacity: number) {
    this.buf = new Float64Array(Math.min(INITIAL_CAPACITY, maxCapacity));
    this.grants = new Float64Array(this.buf.length);
  }

  /** The i-th oldest timestamp (0-based); only meaningful when i < size. */
  at(i: number): number {
    return this.buf[(this.head + i) % this.buf.length] ?? 0;
  }

  /** Newest timestamp; only meaningful when size > 0. */
  newest(): number {
    return this.at(this.size - 1);
  }

  /** Index of the first entry > cutoff (size if none). */
  firstAfter(cutoff: number): number {
    return this.search((t) => t <= cutoff);
  }

  /** Index of the first entry for which `before` is false; `before` holds for a prefix of the log. */
  private search(before: (t: number) => boolean): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(this.at(mid))) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Drops entries that left the window (t - windowMs, t]. Amortised O(1): each entry leaves once. */
  prune(cutoff: number): void {
    while (this.size > 0 && this.at(0) <= cutoff) {
      this.head = (this.head + 1) % this.buf.length;
      this.size--;
    }
  }

  push(t: number, grant: number): void {
    if (this.size === this.buf.length) this.grow();
    const i = (this.head + this.size) % this.buf.length;
    this.buf[i] = t;
    this.grants[i] = grant;
    this.size++;
  }

  /**
   * Removes the entries at time t recorded by `grant`, keeping the others in order; returns how many.
   * O(entries after t): refunds are rare next to consumes.
   */
  remove(t: number, grant: number): number {
    const len = this.buf.length;
    let write = this.search((at) => at < t);
    let removed = 0;
    for (let read = write; read < this.size; read++) {
      const from = (this.head + read) % len;
      if (this.buf[from] === t && this.grants[from] === grant) {
        removed++;
        continue;
      }
      const to = (this.head + write) % len;
      this.buf[to] = this.buf[from] ?? 0;
      this.grants[to] = this.grants[from] ?? 0;
      write++;
    }
    this.size -= removed;
    return removed;
  }

  private grow(): void {
    const capacity = Math.max(this.size + 1, Math.min(this.buf.length * 2, this.maxCapacity));
    const next = new Float64Array(capacity);
    const nextGrants = new Float64Array(capacity);
    for (let i = 0; i < this.size; i++) {
      const from = (this.head + i) % this.buf.length;
      next[i] = this.buf[from] ?? 0;
      nextGrants[i] = this.grants[from] ?? 0;
    }
    this.buf = next;
    this.grants = nextGrants;
    this.head = 0;
  }
}

export class MemoryRateLimiter implements RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly maxDelayMs: number;
  private readonly now: () => number;
  readonly maxKeys: number;
  readonly revokedTtlMs: number;
  readonly maxRevoked: number;
  /** In order of last use: the first entry is the least recently used key. */
  private readonly logs = new Map<string, AcceptedLog>();
  /** Key id → when it was revoked (ms), oldest first. */
  private readonly revoked = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  /** Names the entries of the last accepted decision: each accepted decision takes the next one. */
  private lastGrant = 0;

  constructor(options: MemoryRateLimiterOptions = {}) {
    const { limit, windowMs, maxDelayMs } = resolveRateLimitOptions(options);
    this.limit = limit;
    this.windowMs = windowMs;
    this.maxDelayMs = maxDelayMs;
    this.now = options.now ?? defaultNow;
    this.maxKeys = positiveInteger("maxKeys", options.maxKeys ?? DEFAULT_MAX_KEYS);
    this.revokedTtlMs = positiveInteger("revokedTtlMs", options.revokedTtlMs ?? DEFAULT_REVOKED_TTL_MS);
    this.maxRevoked = positiveInteger("maxRevoked", options.maxRevoked ?? DEFAULT_MAX_REVOKED);
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

  /** Number of revoked keys remembered (expired ones go at the next sweep, revocation or lookup). */
  get revokedKeys(): number {
    return this.revoked.size;
  }

  consume(keyId: string, units = 1): Promise<RateLimitDecision> {
    return Promise.resolve(this.consumeSync(keyId, units));
  }

  /**
   * Synchronous core of `consume()`: one decision per call, so concurrent callers never share a slot. `units`
   * slots are taken at once, all at the same time, or none.
   */
  consumeSync(keyId: string, units = 1): RateLimitDecision {
    const { limit, windowMs } = this;
    checkUnits(units);
    const now = this.now();
    if (this.isRevoked(keyId, now)) return revokedDecision(limit);
    // More than the whole window allows can never pass: refused, and nothing is recorded.
    if (units > limit) return refused(limit, windowMs);
    let log = this.logs.get(keyId);
    if (log === undefined) {
      this.makeRoom();
      log = new AcceptedLog(2 * limit);
      const grant = this.record(log, keyId, units, now);
      this.logs.set(keyId, log);
      return {
        allowed: true,
        revoked: false,
        limit,
        remaining: limit - units,
        resetMs: windowMs,
        retryAfterMs: 0,
        delayMs: 0,
        grant,
      };
    }
    // Most recently used last.
    this.logs.delete(keyId);
    this.logs.set(keyId, log);
    log.prune(now - windowMs);
    let at = now;
    if (log.size > 0) at = Math.max(at, log.newest());
    // The window ending at `at` may hold limit - units of the kept entries: the older ones must have left it.
    if (log.size + units > limit) at = Math.max(at, log.at(log.size + units - 1 - limit) + windowMs);
    const wait = at - now;
    if (wait > this.maxDelayMs) return refused(limit, wait);
    const grant = this.record(log, keyId, units, at);
    // As of `at`, when the request goes through: the entries in (at - windowMs, at].
    const first = log.firstAfter(at - windowMs);
    return {
      allowed: true,
      revoked: false,
      limit,
      remaining: limit - (log.size - first),
      resetMs: Math.ceil(log.at(first) + windowMs - at),
      retryAfterMs: 0,
      delayMs: Math.ceil(wait),
      grant,
    };
  }

  /** Records `units` entries at `at`, named by the next grant. */
  private record(log: AcceptedLog, keyId: string, units: number, at: number): RateLimitGrant {
    this.lastGrant = (this.lastGrant % Number.MAX_SAFE_INTEGER) + 1;
    for (let i = 0; i < units; i++) log.push(at, this.lastGrant);
    return { keyId, units, at, id: String(this.lastGrant) };
  }

  /** Removes the grant's entries still in the window, if its key's log is kept. */
  refund(grant: RateLimitGrant): Promise<number> {
    const log = this.logs.get(grant.keyId);
    if (log === undefined) return Promise.resolve(0);
    log.prune(this.now() - this.windowMs);
    const removed = log.remove(grant.at, Number(grant.id));
    if (log.size === 0) this.logs.delete(grant.keyId);
    return Promise.resolve(removed);
  }

  markRevoked(keyId: string): Promise<void> {
    const now = this.now();
    this.forgetExpiredRevocations(now);
    this.revoked.delete(keyId);
    if (this.revoked.size >= this.maxRevoked) {
      const oldest = this.revoked.keys().next();
      if (oldest.done !== true) this.revoked.delete(oldest.value);
    }
    this.revoked.set(keyId, now);
    this.logs.delete(keyId);
    return Promise.resolve();
  }

  isMarkedRevoked(keyId: string): Promise<boolean> {
    return Promise.resolve(this.isRevoked(keyId, this.now()));
  }

  /** Forgets keys with no request in the last window (nor reserved ahead), so memory tracks active keys only. */
  sweep(): void {
    const now = this.now();
    const cutoff = now - this.windowMs;
    for (const [keyId, log] of this.logs) {
      log.prune(cutoff);
      if (log.size === 0) this.logs.delete(keyId);
    }
    this.forgetExpiredRevocations(now);
  }

  private isRevoked(keyId: string, now: number): boolean {
    const at = this.revoked.get(keyId);
    if (at === undefined) return false;
    if (now - at < this.revokedTtlMs) return true;
    this.revoked.delete(keyId);
    return false;
  }

  /** Revocations are kept oldest first: drop from the front while they are past their time. */
  private forgetExpiredRevocations(now: number): void {
    for (const [keyId, at] of this.revoked) {
      if (now - at < this.revokedTtlMs) return;
      this.revoked.delete(keyId);
    }
  }

  /** Before a new key's log is added at the cap: drop the least recently used log, idle or not. */
  private makeRoom(): void {
    if (this.logs.size < this.maxKeys) return;
    const leastRecent = this.logs.keys().next();
    if (leastRecent.done !== true) this.logs.delete(leastRecent.value);
  }

  close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.logs.clear();
    this.revoked.clear();
    return Promise.resolve();
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/** A refusal: one slot frees in `wait` ms (at least 1). */
function refused(limit: number, wait: number): RateLimitDecision {
  const retry = Math.max(1, Math.ceil(wait));
  return { allowed: false, revoked: false, limit, remaining: 0, resetMs: retry, retryAfterMs: retry, delayMs: 0 };
}

function checkUnits(units: number): void {
  if (!Number.isSafeInteger(units) || units < 1) throw new RangeError(`units must be a positive integer, got ${units}`);
}
