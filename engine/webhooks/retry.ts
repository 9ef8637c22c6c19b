// What follows a webhook attempt (docs/webhooks.md, "Delivery, retries and ordering"): a 2xx succeeds, a 410
// Gone disables the key's webhook, anything else is tried again on the schedule (with ±10% jitter, and no
// sooner than a 429's or 503's Retry-After, capped at a day) until the schedule runs out.
import type { SendResult } from "./transport.js";

export type Outcome = "succeeded" | "retry" | "failed" | "disabled" | "canceled";

/** The default retry schedule (ms): the first attempt at once, then after 5 s, 30 s, 2 min, ... 12 h. */
export const DEFAULT_SCHEDULE_MS: readonly number[] = [
  0, 5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000,
];

/** A Retry-After longer than this is capped (a receiver cannot park a delivery for ever). */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** ±10% jitter on a delay, so retries of many deliveries do not arrive in lockstep. */
export function jittered(delayMs: number, random: () => number): number {
  return delayMs <= 0 ? 0 : Math.round(delayMs * (0.9 + 0.2 * random()));
}

/** What to do after an attempt: the delivery's next status and when to try again. */
export function nextStep(
  result: SendResult,
  attempt: number,
  schedule: readonly number[],
  random: () => number,
): { outcome: Outcome; nextDelayMs: number | null; statusCode: number | null; error: string | null } {
  if (result.ok && result.status >= 200 && result.status < 300) {
    return { outcome: "succeeded", nextDelayMs: null, statusCode: result.status, error: null };
  }
  const statusCode = result.ok ? result.status : null;
  const error = result.ok ? `HTTP ${result.status}` : result.error;
  if (result.ok && result.status === 410) return { outcome: "disabled", nextDelayMs: null, statusCode, error };
  const scheduled = schedule[attempt];
  if (scheduled === undefined) return { outcome: "failed", nextDelayMs: null, statusCode, error };
  let delay = jittered(scheduled, random);
  if (result.ok && (result.status === 429 || result.status === 503) && result.retryAfterMs !== null) {
    delay = Math.max(delay, Math.min(result.retryAfterMs, MAX_RETRY_AFTER_MS));
  }
  return { outcome: "retry", nextDelayMs: delay, statusCode, error };
}
