// Client-side adaptive throttling (Google SRE book, "Handling Overload"): over a rolling window (2 minutes) the
// client counts its requests and the accepts among them, and refuses a request locally, without sending it, with
// probability max(0, (requests − K·accepts) / (requests + 1)), K = 2. While the service accepts everything the
// probability is 0; when it sheds most requests the client sends about K times what it accepts and keeps the rest
// off the network; as accepts come back the probability falls to 0 again. The probability is capped (0.9), so
// even while the service accepts nothing one request in ten still goes out and finds it when it is back.
// docs/client.md (Overload) says what counts as a request and an accept.

export interface ThrottleOptions {
  /** Length of the rolling window (default 120,000 ms). */
  windowMs?: number;
  /** Buckets the window is counted in (default 60: 2 s each for the default window). */
  buckets?: number;
  /** The multiplier K: the client sends up to K times what the service accepts (default 2). */
  k?: number;
  /** The highest probability of refusing (default 0.9). */
  maxProbability?: number;
  now?: () => number;
  random?: () => number;
}

export interface ThrottleStats {
  /** Requests in the window: those answered and those refused locally. */
  requests: number;
  /** Requests in the window the service did not refuse as overloaded. */
  accepts: number;
  /** Requests refused locally since the throttle was made. */
  refused: number;
  /** The probability the next request is refused locally. */
  probability: number;
}

export class AdaptiveThrottle {
  private readonly bucketMs: number;
  private readonly k: number;
  private readonly maxProbability: number;
  private readonly now: () => number;
  private readonly random: () => number;
  /** Per bucket: which bucket number it holds, and its counts. */
  private readonly epochs: number[];
  private readonly requests: number[];
  private readonly accepts: number[];
  private refused = 0;

  constructor(options: ThrottleOptions = {}) {
    const buckets = options.buckets ?? 60;
    this.bucketMs = Math.max(1, Math.ceil((options.windowMs ?? 120_000) / buckets));
    this.k = options.k ?? 2;
    this.maxProbability = options.maxProbability ?? 0.9;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.epochs = new Array<number>(buckets).fill(-Infinity);
    this.requests = new Array<number>(buckets).fill(0);
    this.accepts = new Array<number>(buckets).fill(0);
  }

  /** The probability the next request is refused: max(0, (requests − K·accepts) / (requests + 1)), capped. */
  probability(): number {
    const { requests, accepts } = this.totals();
    return Math.min(this.maxProbability, Math.max(0, (requests - this.k * accepts) / (requests + 1)));
  }

  /** Whether a request may be sent; a refused one is counted as a request that was not accepted. */
  admit(): boolean {
    const probability = this.probability();
    if (probability === 0 || this.random() >= probability) return true;
    this.count(false);
    this.refused += 1;
    return false;
  }

  /** Counts an answered request: `accepted` unless the service refused it as overloaded. */
  record(accepted: boolean): void {
    this.count(accepted);
  }

  get stats(): ThrottleStats {
    const { requests, accepts } = this.totals();
    return { requests, accepts, refused: this.refused, probability: this.probability() };
  }

  private count(accepted: boolean): void {
    const epoch = Math.floor(this.now() / this.bucketMs);
    const slot = ((epoch % this.epochs.length) + this.epochs.length) % this.epochs.length;
    if (this.epochs[slot] !== epoch) {
      this.epochs[slot] = epoch;
      this.requests[slot] = 0;
      this.accepts[slot] = 0;
    }
    this.requests[slot] = (this.requests[slot] ?? 0) + 1;
    if (accepted) this.accepts[slot] = (this.accepts[slot] ?? 0) + 1;
  }

  private totals(): { requests: number; accepts: number } {
    const current = Math.floor(this.now() / this.bucketMs);
    let requests = 0;
    let accepts = 0;
    for (let slot = 0; slot < this.epochs.length; slot++) {
      if ((this.epochs[slot] ?? -Infinity) > current - this.epochs.length) {
        requests += this.requests[slot] ?? 0;
        accepts += this.accepts[slot] ?? 0;
      }
    }
    return { requests, accepts };
  }
}
