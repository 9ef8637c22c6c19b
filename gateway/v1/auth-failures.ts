// Failed authentications per source (the client address as `req.ip` gives it, TRUSTED_PROXIES honoured, counted
// as its block: an IPv4 address, an IPv6 /64, kernel/ip.ts `sourceBlock`): a source with `limit` failures in a
// window of `windowMs` is answered 429 `rate_limited` for the rest of that window, before the wallet is asked
// (docs/decisions.md, "Failed authentication"). A key that has authenticated on this gateway lately (`vouch`) is
// neither counted nor blocked: its failures are not guesses (a wrong secret, a key revoked since, answered without
// a database read), a client sharing the address with a guesser keeps working, and a client still using a revoked
// key keeps getting 401, not 429. Each gateway counts in memory (at most `maxAddresses` sources and KNOWN_KEYS
// keys, the least recently seen forgotten first); with a `shared` count (Redis, auth-failures-redis.ts) every
// gateway also counts there, and a source is blocked when either count says so: the shared one holds the failures
// of every gateway, the local one still holds while the shared one cannot be reached. After a failed call the
// shared count is left alone for SHARED_PAUSE_MS, so a Redis that hangs costs one request its command deadline,
// not every request.
import { sourceBlock } from "../../kernel/ip.js";

export interface AuthFailureOptions {
  /** Failures per source per window; 0 turns the limit off. */
  limit: number;
  windowMs: number;
  maxAddresses: number;
  /** Monotonic milliseconds. */
  now?: () => number;
  /** The count every gateway shares; absent: this gateway's own count only. */
  shared?: SharedFailureCount | undefined;
  /** Called when the shared count could not be read or written (the local count decided alone). */
  onSharedError?: (error: unknown) => void;
}

/** A failure count kept where every gateway sees it, with the same window rule as the local one. */
export interface SharedFailureCount {
  /** Counts one failure of `source`; its window starts with the first failure counted. */
  add(source: string, windowMs: number): Promise<void>;
  /** ms left of `source`'s window once it holds `limit` failures, else 0. */
  blockedFor(source: string, limit: number): Promise<number>;
}

/** How long the shared count is not asked after a call to it failed. */
export const SHARED_PAUSE_MS = 1_000;

/** Keys remembered as having authenticated (their public part: not a secret). */
export const KNOWN_KEYS = 100_000;

interface Tally {
  /** When this source's window started. */
  since: number;
  failures: number;
}

export class AuthFailureLimiter {
  private readonly tallies = new Map<string, Tally>();
  private readonly known = new Set<string>();
  private readonly now: () => number;
  /** Until when (monotonic ms) the shared count is not asked. */
  private sharedPausedUntil = -Infinity;

  constructor(private readonly options: AuthFailureOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  get size(): number {
    return this.tallies.size;
  }

  /** Remembers a key whose credentials were right (valid, or denied only for its allow-list or scope). */
  vouch(key: string): void {
    if (this.options.limit === 0) return;
    this.known.delete(key);
    this.known.add(key);
    if (this.known.size > KNOWN_KEYS) {
      const oldest = this.known.values().next();
      if (oldest.done !== true) this.known.delete(oldest.value);
    }
  }

  /** ms until this address may try this key; 0 when it may now. */
  async blockedFor(address: string, key: string): Promise<number> {
    if (this.options.limit === 0 || this.known.has(key)) return 0;
    const source = sourceBlock(address);
    const local = this.locallyBlockedFor(source);
    const shared = this.shared();
    if (local > 0 || shared === undefined) return local;
    try {
      return await shared.blockedFor(source, this.options.limit);
    } catch (error) {
      this.sharedFailed(error);
      return 0;
    }
  }

  /** Counts one failed authentication with this key from this address (none for a vouched key). */
  async failed(address: string, key: string): Promise<void> {
    if (this.options.limit === 0 || this.known.has(key)) return;
    const source = sourceBlock(address);
    this.countLocally(source);
    try {
      await this.shared()?.add(source, this.options.windowMs);
    } catch (error) {
      this.sharedFailed(error);
    }
  }

  /** The shared count, unless it is paused after a failure. */
  private shared(): SharedFailureCount | undefined {
    return this.now() < this.sharedPausedUntil ? undefined : this.options.shared;
  }

  private sharedFailed(error: unknown): void {
    this.sharedPausedUntil = this.now() + SHARED_PAUSE_MS;
    this.options.onSharedError?.(error);
  }

  private locallyBlockedFor(source: string): number {
    const tally = this.tallies.get(source);
    if (tally === undefined || tally.failures < this.options.limit) return 0;
    const left = tally.since + this.options.windowMs - this.now();
    if (left > 0) return Math.ceil(left);
    this.tallies.delete(source);
    return 0;
  }

  private countLocally(source: string): void {
    const now = this.now();
    let tally = this.tallies.get(source);
    if (tally !== undefined) this.tallies.delete(source);
    if (tally === undefined || tally.since + this.options.windowMs <= now) tally = { since: now, failures: 0 };
    tally.failures += 1;
    // Re-inserted last: the map's order is least recently failing first.
    this.tallies.set(source, tally);
    while (this.tallies.size > this.options.maxAddresses) {
      const oldest = this.tallies.keys().next();
      if (oldest.done === true) break;
      this.tallies.delete(oldest.value);
    }
  }
}
