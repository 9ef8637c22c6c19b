// Test-only: the limiter's promise stated without its algorithm (the busiest rolling window over acceptance
// times, and whether a request could be accepted at a given ms), and the arrival patterns the property tests
// replay against the in-process and the Redis limiter, and a replay of consumes and refunds checked against that
// promise.

import { expect } from "vitest";
import type { RateLimitDecision, RateLimitGrant } from "./types.js";

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

/** A limiter under test on a clock the test sets, in whole ms; `at` of its grants converted to ms. */
export interface ModelSubject {
  setNow(ms: number): void;
  consume(units: number): Promise<RateLimitDecision>;
  refund(grant: RateLimitGrant): Promise<number>;
  /** The grant's recorded time in ms (the Redis limiter records µs). */
  grantMs(grant: RateLimitGrant): number;
}

interface ModelGrant {
  grant: RateLimitGrant;
  at: number;
  units: number;
  refunded: boolean;
}

/** Whether `units` more entries at t keep every rolling window at most `limit` (fitsAt for several). */
function fitsUnitsAt(accepted: readonly number[], t: number, units: number, limit: number, windowMs: number): boolean {
  const withOthers = [...accepted];
  for (let i = 1; i < units; i++) insertSorted(withOthers, t);
  return fitsAt(withOthers, t, limit, windowMs);
}

/**
 * Replays a random interleaving of consumes (1 to limit + 1 units) and refunds (of a recent grant, refunded or
 * not, its entries in the window or gone) against `subject`, checking each answer against the model: the entries
 * accepted and not refunded, as times. After every step no rolling window holds more than `limit`; a consume is
 * refused exactly when no whole ms within `maxDelayMs` fits it, and an accepted one is recorded at a ms that fits
 * with the remaining count the model has; a refund removes the grant's units once, while they are in the window.
 * Returns how many consumes were accepted and refunds removed something, so a caller can check both happened.
 */
export async function replayWithRefunds(
  subject: ModelSubject,
  random: () => number,
  o: { limit: number; windowMs: number; maxDelayMs: number; steps: number },
): Promise<{ accepted: number; refunded: number }> {
  const { limit, windowMs, maxDelayMs } = o;
  const log: number[] = [];
  const grants: ModelGrant[] = [];
  let now = 0;
  let accepted = 0;
  let refunded = 0;
  for (let step = 0; step < o.steps; step++) {
    now += Math.floor(random() * random() * (windowMs / 4));
    subject.setNow(now);
    if (grants.length > 0 && random() < 0.4) {
      const g = grants[grants.length - 1 - Math.floor(random() * Math.min(grants.length, 2 * limit))];
      if (g === undefined) continue;
      const expected = !g.refunded && g.at > now - windowMs ? g.units : 0;
      expect(await subject.refund(g.grant)).toBe(expected);
      if (expected > 0) {
        g.refunded = true;
        for (let i = 0; i < g.units; i++) log.splice(log.indexOf(g.at), 1);
        refunded++;
      }
      continue;
    }
    const units = 1 + Math.floor(random() * random() * (limit + 1));
    const d = await subject.consume(units);
    let fit: number | undefined;
    for (let t = now; t <= now + maxDelayMs && units <= limit && fit === undefined; t++)
      if (fitsUnitsAt(log, t, units, limit, windowMs)) fit = t;
    expect(d.allowed).toBe(fit !== undefined);
    if (d.grant === undefined) continue;
    const at = subject.grantMs(d.grant);
    expect(at).toBe(now + d.delayMs);
    expect(at - now).toBeLessThanOrEqual(maxDelayMs);
    expect(fitsUnitsAt(log, at, units, limit, windowMs)).toBe(true);
    for (let i = 0; i < units; i++) insertSorted(log, at);
    grants.push({ grant: d.grant, at, units, refunded: false });
    accepted++;
    expect(d.remaining).toBe(limit - countInWindow(log, at, windowMs));
    expect(busiestWindow(log, windowMs)).toBeLessThanOrEqual(limit);
  }
  return { accepted, refunded };
}
