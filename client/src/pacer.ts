// Client-side pacing from the gateway's `RateLimit-Policy` and `RateLimit` headers, so a bot sending as fast as
// it can stays inside the per-key rolling window and never meets a 429. A slot is held from a request's send
// until one window after its answer arrived (the server counted it at some moment in between), so no window
// the server looks at can hold more than the limit; a `RateLimit` with `remaining=0` (another process on the
// same key) blocks until its `reset`. Until the first answer names the policy, one request is in flight.

export interface PacerStats {
  /** Requests sent through the pacer. */
  sent: number;
  /** Requests that could not be sent at once (a slot was not free, or others were waiting before them). */
  held: number;
}

export interface Policy {
  limit: number;
  windowMs: number;
}

/** `1200;w=60` → { limit: 1200, windowMs: 60000 }. */
export function parsePolicy(header: string | null): Policy | undefined {
  const match = header === null ? null : /^\s*(\d+)\s*;\s*w=(\d+)/.exec(header);
  if (match === null) return undefined;
  return { limit: Number(match[1]), windowMs: Number(match[2]) * 1000 };
}

/** `limit=1200, remaining=5, reset=12` → its numbers. */
export function parseRateLimit(
  header: string | null,
): { limit: number; remaining: number; resetMs: number } | undefined {
  if (header === null) return undefined;
  const field = (name: string): number | undefined => {
    const match = new RegExp(`(?:^|[,;\\s])${name}=(\\d+)`).exec(header);
    return match === null ? undefined : Number(match[1]);
  };
  const limit = field("limit");
  const remaining = field("remaining");
  const reset = field("reset");
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  return { limit, remaining, resetMs: reset * 1000 };
}

export interface PacerOptions {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Added to every slot's window, for clock granularity (default 5 ms). */
  marginMs?: number;
}

export class Pacer {
  private policy: Policy | undefined;
  private inFlight = 0;
  /** Requests between `acquire` and their slot. */
  private waiting = 0;
  /** When each answered request's slot frees, ascending. */
  private frees: number[] = [];
  private blockedUntil = 0;
  private queue: Promise<void> = Promise.resolve();
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly marginMs: number;
  readonly stats: PacerStats = { sent: 0, held: 0 };

  constructor(options: PacerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.marginMs = options.marginMs ?? 5;
  }

  /**
   * Waits for `units` slots (a request the gateway counts as several: a batch of orders) and takes them; call
   * `release` with the answer's headers (or none) and the same units when it is done.
   */
  acquire(units = 1): Promise<void> {
    const queued = this.waiting > 0;
    this.waiting += 1;
    const turn = this.queue
      .then(() => this.waitForSlot(queued, units))
      .finally(() => {
        this.waiting -= 1;
      });
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  release(headers: Headers | undefined, units = 1): void {
    this.inFlight -= units;
    const now = this.now();
    const policy = headers === undefined ? undefined : parsePolicy(headers.get("ratelimit-policy"));
    if (policy !== undefined) this.policy = policy;
    if (this.policy !== undefined)
      for (let i = 0; i < units; i++) this.insert(now + this.policy.windowMs + this.marginMs);
    const state = headers === undefined ? undefined : parseRateLimit(headers.get("ratelimit"));
    if (state !== undefined && state.remaining === 0) {
      this.blockedUntil = Math.max(this.blockedUntil, now + state.resetMs + this.marginMs);
    }
    this.wake?.();
  }

  private wake: (() => void) | undefined;

  private insert(free: number): void {
    let i = this.frees.length;
    while (i > 0 && (this.frees[i - 1] ?? 0) > free) i -= 1;
    this.frees.splice(i, 0, free);
  }

  private async waitForSlot(queued: boolean, units: number): Promise<void> {
    let waited = queued;
    for (;;) {
      const now = this.now();
      while (this.frees.length > 0 && (this.frees[0] ?? 0) <= now) this.frees.shift();
      const limit = this.policy?.limit ?? 1;
      const used = this.inFlight + this.frees.length;
      // A request of more units than the limit is sent alone (the gateway refuses it; it is not held forever).
      if (now >= this.blockedUntil && (used + units <= limit || used === 0)) break;
      waited = true;
      if (now < this.blockedUntil) {
        await this.sleep(this.blockedUntil - now);
      } else if (this.frees.length > 0) {
        // The first answered request's slot frees at a known time (an answer coming back frees none sooner).
        await this.race(Math.max(0, (this.frees[0] ?? now) - now));
      } else {
        await this.race(undefined);
      }
    }
    if (waited) this.stats.held += 1;
    this.stats.sent += 1;
    this.inFlight += units;
  }

  /** Resolves when an answer comes back or after `ms` (when given). */
  private race(ms: number | undefined): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      this.wake = () => {
        this.wake = undefined;
        if (timer !== undefined) clearTimeout(timer);
        resolve();
      };
      if (ms !== undefined) {
        timer = setTimeout(() => {
          this.wake = undefined;
          resolve();
        }, ms);
      }
    });
  }
}
