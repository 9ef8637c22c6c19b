// The revocations the wallet pushed to this engine's webhook dispatcher (WatchKeys), kept just long enough. An entry
// only has to stop the lanes that were already running when the key was revoked: every later claim asks the wallet,
// which no longer lists the key. So each entry lives `ttlMs` (far longer than any lane) and at most `maxEntries`
// are kept. An entry dropped for room before its time makes the set incomplete until that time has passed: the
// guard then stops vouching for keys, and the dispatcher asks the wallet before each attempt instead.
import type { RevocationGuard } from "./targets.js";

/** Longer than any lane runs (a claim's lease is perKey × WEBHOOK_TIMEOUT_MS + 30 s, about 80 s by default). */
export const REVOKED_KEY_MEMORY_MS = 3_600_000;
/** More revocations than any hour sees; past it the oldest go first (and the guard asks the wallet). */
export const MAX_REVOKED_KEYS = 100_000;

export interface RevokedKeysOptions {
  ttlMs?: number;
  maxEntries?: number;
  /** Monotonic clock in ms. */
  now: () => number;
}

export class RevokedKeys {
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  /** Key id → when its revocation arrived, oldest first. */
  private readonly entries = new Map<string, number>();
  /** Until when an entry dropped for room would still have been kept (-Infinity: none was). */
  private incompleteUntil = Number.NEGATIVE_INFINITY;

  constructor(options: RevokedKeysOptions) {
    this.ttlMs = options.ttlMs ?? REVOKED_KEY_MEMORY_MS;
    this.maxEntries = options.maxEntries ?? MAX_REVOKED_KEYS;
    this.now = options.now;
    if (!(this.ttlMs > 0) || !Number.isSafeInteger(this.maxEntries) || this.maxEntries < 1) {
      throw new RangeError("revoked keys need a positive lifetime and a cap of at least one");
    }
  }

  get size(): number {
    return this.entries.size;
  }

  add(keyId: string): void {
    const now = this.now();
    this.expire(now);
    this.entries.delete(keyId);
    if (this.entries.size >= this.maxEntries) {
      const [oldest] = this.entries;
      if (oldest !== undefined) {
        this.entries.delete(oldest[0]);
        this.incompleteUntil = Math.max(this.incompleteUntil, oldest[1] + this.ttlMs);
      }
    }
    this.entries.set(keyId, now);
  }

  has(keyId: string): boolean {
    this.expire(this.now());
    return this.entries.has(keyId);
  }

  /** Whether every revocation of the last `ttlMs` is still here. */
  complete(): boolean {
    return this.now() >= this.incompleteUntil;
  }

  /** The dispatcher's guard: vouches for a key only while the stream is trusted and nothing was dropped early. */
  guard(streamTrusted: () => boolean): RevocationGuard {
    return {
      trusted: () => streamTrusted() && this.complete(),
      revoked: (keyId) => this.has(keyId),
    };
  }

  private expire(now: number): void {
    for (const [keyId, at] of this.entries) {
      if (now - at < this.ttlMs) return;
      this.entries.delete(keyId);
    }
  }
}
