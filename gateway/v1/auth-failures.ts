// Failed authentications per source address (the client address as `req.ip` gives it, TRUSTED_PROXIES
// honoured): an address with `limit` failures in a window of `windowMs` is answered 429 `rate_limited` for the
// rest of that window, before the wallet is asked (docs/decisions.md, "Failed authentication"). A key that has
// authenticated on this gateway lately (`vouch`) is neither counted nor blocked: its failures are not guesses
// (a wrong secret, a key revoked since, answered without a database read), a client sharing the address with
// a guesser keeps working, and a client still using a revoked key keeps getting 401, not 429. Each gateway
// counts for itself, in memory; at most `maxAddresses` addresses and KNOWN_KEYS keys are tracked (the least
// recently seen forgotten first).

export interface AuthFailureOptions {
  /** Failures per address per window; 0 turns the limit off. */
  limit: number;
  windowMs: number;
  maxAddresses: number;
  /** Monotonic milliseconds. */
  now?: () => number;
}

/** Keys remembered as having authenticated (their public part: not a secret). */
export const KNOWN_KEYS = 100_000;

interface Tally {
  /** When this address's window started. */
  since: number;
  failures: number;
}

export class AuthFailureLimiter {
  private readonly tallies = new Map<string, Tally>();
  private readonly known = new Set<string>();
  private readonly now: () => number;

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
  blockedFor(address: string, key: string): number {
    if (this.options.limit === 0) return 0;
    if (this.known.has(key)) return 0;
    const tally = this.tallies.get(address);
    if (tally === undefined || tally.failures < this.options.limit) return 0;
    const left = tally.since + this.options.windowMs - this.now();
    if (left > 0) return Math.ceil(left);
    this.tallies.delete(address);
    return 0;
  }

  /** Counts one failed authentication with this key from this address (none for a vouched key). */
  failed(address: string, key: string): void {
    if (this.options.limit === 0 || this.known.has(key)) return;
    const now = this.now();
    let tally = this.tallies.get(address);
    if (tally !== undefined) this.tallies.delete(address);
    if (tally === undefined || tally.since + this.options.windowMs <= now) tally = { since: now, failures: 0 };
    tally.failures += 1;
    // Re-inserted last: the map's order is least recently failing first.
    this.tallies.set(address, tally);
    while (this.tallies.size > this.options.maxAddresses) {
      const oldest = this.tallies.keys().next();
      if (oldest.done === true) break;
      this.tallies.delete(oldest.value);
    }
  }
}
