// Failed authentications per source address (the client address as `req.ip` gives it, TRUSTED_PROXIES
// honoured): an address with `limit` failures in a window of `windowMs` is answered 429 `rate_limited` for the
// rest of that window, before the wallet is asked (docs/decisions.md, "Failed authentication"). Each gateway
// counts for itself, in memory; at most `maxAddresses` addresses are tracked (the least recently failing
// address is forgotten first).

export interface AuthFailureOptions {
  /** Failures per address per window; 0 turns the limit off. */
  limit: number;
  windowMs: number;
  maxAddresses: number;
  /** Monotonic milliseconds. */
  now?: () => number;
}

interface Tally {
  /** When this address's window started. */
  since: number;
  failures: number;
}

export class AuthFailureLimiter {
  private readonly tallies = new Map<string, Tally>();
  private readonly now: () => number;

  constructor(private readonly options: AuthFailureOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  get size(): number {
    return this.tallies.size;
  }

  /** ms until this address may try again; 0 when it may now. */
  blockedFor(address: string): number {
    if (this.options.limit === 0) return 0;
    const tally = this.tallies.get(address);
    if (tally === undefined || tally.failures < this.options.limit) return 0;
    const left = tally.since + this.options.windowMs - this.now();
    if (left > 0) return Math.ceil(left);
    this.tallies.delete(address);
    return 0;
  }

  /** Counts one failed authentication from this address. */
  failed(address: string): void {
    if (this.options.limit === 0) return;
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
