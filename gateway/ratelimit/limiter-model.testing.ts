// Test-only: the limiter's promise stated without its algorithm (the busiest rolling window over acceptance
// times, and whether a request could be accepted at a given ms), and the arrival patterns the property tests
// replay against the in-process and the Redis limiter.

/** Index of the first element of the ascending `times` that is > t. */
function firstAfter(times: readonly number[], t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((times[mid] ?? 0) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Number of the ascending `times` in the window (to - windowMs, to]. */
export function countInWindow(times: readonly number[], to: number, windowMs: number): number {
  return firstAfter(times, to) - firstAfter(times, to - windowMs);
}

/** The most of the ascending `times` in any rolling window (t - windowMs, t]. */
export function busiestWindow(times: readonly number[], windowMs: number): number {
  let best = 0;
  for (const t of times) best = Math.max(best, countInWindow(times, t, windowMs));
  return best;
}

/** Inserts t into the ascending `times`, keeping them ascending. */
export function insertSorted(times: number[], t: number): void {
  times.splice(firstAfter(times, t), 0, t);
}

/**
 * Whether one more request accepted at t keeps every rolling window at most `limit`. A window holding t ends
 * in [t, t + windowMs); its count only rises where it reaches a recorded time, so the windows ending at t and
 * at each recorded time in that range are the ones to check.
 */
export function fitsAt(accepted: readonly number[], t: number, limit: number, windowMs: number): boolean {
  if (countInWindow(accepted, t, windowMs) + 1 > limit) return false;
  for (let i = firstAfter(accepted, t); i < accepted.length; i++) {
    const end = accepted[i] ?? 0;
    if (end >= t + windowMs) break;
    if (countInWindow(accepted, end, windowMs) + 1 > limit) return false;
  }
  return true;
}

/** The earliest whole ms in [now, now + maxDelayMs] at which a request fits, if any (integer times only). */
export function earliestFit(
  accepted: readonly number[],
  now: number,
  maxDelayMs: number,
  limit: number,
  windowMs: number,
): number | undefined {
  for (let t = now; t <= now + maxDelayMs; t++) if (fitsAt(accepted, t, limit, windowMs)) return t;
  return undefined;
}

export const PATTERNS = ["steady", "jitter", "bursts", "mixed"] as const;
export type Pattern = (typeof PATTERNS)[number];

/**
 * Ascending whole-ms arrival times of one key over `durationMs`, around `limit` per window: exactly paced,
 * paced with jitter up to `jitterMs`, bursts of simultaneous requests with idle gaps, or a mix of all three at
 * rates from half to twice the limit.
 */
export function arrivals(
  pattern: Pattern,
  random: () => number,
  o: { limit: number; windowMs: number; durationMs: number; jitterMs: number },
): number[] {
  const interval = o.windowMs / o.limit;
  const out: number[] = [];
  if (pattern === "steady" || pattern === "jitter") {
    const jitter = pattern === "jitter" ? o.jitterMs : 0;
    for (let k = 0; k * interval < o.durationMs; k++) out.push(Math.floor(k * interval + random() * jitter));
  } else if (pattern === "bursts") {
    for (let t = 0; t < o.durationMs; t += Math.floor(random() * o.windowMs)) {
      const size = 1 + Math.floor(random() * o.limit);
      for (let i = 0; i < size; i++) out.push(t);
    }
  } else {
    let t = 0;
    while (t < o.durationMs) {
      const phase = Math.floor(random() * 3);
      const speed = 0.5 + 1.5 * random();
      const until = t + Math.floor(random() * o.windowMs);
      for (; t < until; t += Math.max(1, Math.floor(interval / speed))) {
        if (phase === 0) out.push(t);
        else if (phase === 1) out.push(t + Math.floor(random() * o.jitterMs));
        else if (random() < 0.1) for (let i = 0; i < 1 + Math.floor(random() * 5); i++) out.push(t);
      }
    }
  }
  return out.sort((a, b) => a - b);
}
