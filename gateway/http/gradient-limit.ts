// The gateway's bound on /v1 requests in flight, found from their latency (docs/overload.md): a gradient
// limit in the manner of Netflix's concurrency-limits Gradient2. A short average of the requests' latency is
// compared with a long one; while the short one stays within `tolerance` × the long one the limit grows by about
// √limit per window when the requests use at least half of it, and when the short one rises above (requests wait
// somewhere: the event loop, the engine's queues) the limit shrinks in proportion, by at most half per window.

export interface GradientLimitOptions {
  initial: number;
  min: number;
  max: number;
  /** How much slower than the long average the short one may be before the limit shrinks. */
  tolerance?: number;
  /** Share of each window's new estimate taken into the limit. */
  smoothing?: number;
  /** Samples averaged into one short-term latency. */
  window?: number;
  /** Short-term latencies averaged (exponentially) into the long-term one. */
  longWindow?: number;
}

export class GradientLimit {
  private estimate: number;
  private readonly min: number;
  private readonly max: number;
  private readonly tolerance: number;
  private readonly smoothing: number;
  private readonly window: number;
  private readonly longFactor: number;
  private sum = 0;
  private count = 0;
  /** Highest in-flight count seen over the current window. */
  private peak = 0;
  /** Exponential average of the short-term latencies (ms); 0 before the first window. */
  private long = 0;

  constructor(options: GradientLimitOptions) {
    if (!(options.min >= 1 && options.min <= options.initial && options.initial <= options.max)) {
      throw new RangeError(`admission limits must satisfy 1 <= min <= initial <= max, got ${JSON.stringify(options)}`);
    }
    this.estimate = options.initial;
    this.min = options.min;
    this.max = options.max;
    this.tolerance = options.tolerance ?? 2;
    this.smoothing = options.smoothing ?? 0.2;
    this.window = options.window ?? 50;
    this.longFactor = 2 / ((options.longWindow ?? 100) + 1);
  }

  /** Requests allowed in flight. */
  get limit(): number {
    return Math.floor(this.estimate);
  }

  /** The long-term latency the limit is judged against (ms); 0 until the first window closed. */
  get baseline(): number {
    return this.long;
  }

  /** One request's latency (ms) from admission to its answer, and how many were in flight when it started. */
  sample(latencyMs: number, inFlight: number): void {
    this.sum += latencyMs;
    this.count += 1;
    if (inFlight > this.peak) this.peak = inFlight;
    if (this.count < this.window) return;
    const short = Math.max(this.sum / this.count, 0.001);
    const peak = this.peak;
    this.sum = 0;
    this.count = 0;
    this.peak = 0;
    this.update(short, peak);
  }

  private update(short: number, peak: number): void {
    if (this.long === 0) {
      this.long = short;
      return;
    }
    const gradient = Math.max(0.5, Math.min(1, (this.tolerance * this.long) / short));
    // A window beyond the tolerance moves the long average ten times slower than one within it: a sustained
    // overload does not become the norm the limit is judged against within seconds (the limit would drift up
    // again, queueing returning), yet a lasting change of the requests' cost is taken in over a few minutes.
    this.long += (short - this.long) * (gradient < 1 ? this.longFactor / 10 : this.longFactor);
    // After an overload the long average is inflated; once latency falls back it is pulled down faster than its
    // smoothing would, so the limit can shrink again when the next overload comes.
    if (this.long / short > 2) this.long *= 0.95;
    // Requests that use less than half the limit say nothing about a higher one: it does not grow then.
    if (gradient === 1 && peak < this.estimate / 2) return;
    const next = this.estimate * gradient + Math.sqrt(this.estimate);
    const smoothed = this.estimate * (1 - this.smoothing) + next * this.smoothing;
    this.estimate = Math.max(this.min, Math.min(this.max, smoothed));
  }
}
