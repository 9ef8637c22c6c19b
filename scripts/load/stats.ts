// Statistics of a load run: nearest-rank percentiles, and how many accepted requests fall in a rolling window.

/** Nearest-rank percentile (p in 0–100) of an ascending array; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? NaN;
}

export interface LatencySummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export const round = (value: number, digits = 2): number =>
  Number.isFinite(value) ? Number(value.toFixed(digits)) : value;

export function summarize(values: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const n = sorted.length;
  return {
    count: n,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(n === 0 ? NaN : (sorted[n - 1] ?? NaN)),
    mean: round(n === 0 ? NaN : sum / n),
  };
}

const ascending = (values: ArrayLike<number>): Float64Array => Float64Array.from(values).sort();

/** The most of `times` inside any window [a, a + windowMs). */
export function maxInWindow(times: ArrayLike<number>, windowMs: number): number {
  const t = ascending(times);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < t.length; hi++) {
    while ((t[hi] ?? 0) - (t[lo] ?? 0) >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/**
 * An event known only to lie somewhere in [from, to] (a request was counted by the server at some moment
 * between sending it and receiving its answer).
 */
export interface Interval {
  from: number;
  to: number;
}

/**
 * Bounds on the most events in any window [a, a + windowMs) when each event's time is only known to an
 * interval: `certain` counts events whose whole interval fits in the window (they are in it whatever their
 * exact times), `possible` counts those whose interval meets the window (they might be). The true maximum lies
 * in [certain, possible].
 */
export function windowBounds(events: readonly Interval[], windowMs: number): { certain: number; possible: number } {
  const froms = ascending(events.map((e) => e.from));
  const tos = ascending(events.map((e) => e.to));

  // possible: for a window starting at a = some `to`, events with to >= a and from < a + W. The best window can
  // always be slid right until its start meets an event's `to` without losing any event.
  let possible = 0;
  let fromIdx = 0; // events with from < a + W
  for (let i = 0; i < tos.length; i++) {
    const a = tos[i] ?? 0;
    while (fromIdx < froms.length && (froms[fromIdx] ?? 0) < a + windowMs) fromIdx++;
    // Events with to < a all have from < a + W too, so they are exactly the ones to drop: i of them (ties
    // with `a` are kept because the array is ascending and `i` is the first index with that value or later).
    let below = i;
    while (below > 0 && (tos[below - 1] ?? 0) === a) below--;
    possible = Math.max(possible, fromIdx - below);
  }

  // certain: for a window starting at a = some `from`, events with from >= a and to < a + W. Sorted by from,
  // the events from index i on have from >= a; count those with to < a + W among them.
  const byFrom = [...events].sort((x, y) => x.from - y.from);
  let certain = 0;
  for (let i = 0; i < byFrom.length; i++) {
    const a = byFrom[i]?.from ?? 0;
    let count = 0;
    for (let j = i; j < byFrom.length; j++) {
      const e = byFrom[j];
      if (e === undefined || e.from >= a + windowMs) break;
      if (e.to < a + windowMs) count++;
    }
    certain = Math.max(certain, count);
  }
  return { certain, possible };
}

/** Count of `times` in each bucket [i × bucketMs, (i + 1) × bucketMs) for i < buckets; later times are left out. */
export function bucketCounts(times: ArrayLike<number>, bucketMs: number, buckets: number): number[] {
  const counts = new Array<number>(Math.max(0, buckets)).fill(0);
  for (let i = 0; i < times.length; i++) {
    const b = Math.floor((times[i] ?? 0) / bucketMs);
    if (b >= 0 && b < counts.length) counts[b] = (counts[b] ?? 0) + 1;
  }
  return counts;
}

/** The smallest, the median and the largest of `values` (NaN when empty). */
export function spread(values: readonly number[]): { min: number; median: number; max: number } {
  if (values.length === 0) return { min: NaN, median: NaN, max: NaN };
  const sorted = ascending(values);
  return { min: sorted[0] ?? NaN, median: percentile(sorted, 50), max: sorted[sorted.length - 1] ?? NaN };
}
