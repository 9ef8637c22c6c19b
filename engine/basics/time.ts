// Instants at the edge: the API speaks ISO 8601 UTC with milliseconds, the core epoch milliseconds.
// Parsing is strict (a zone is required, impossible dates are refused) so `Date.parse` never shifts a value.
import { DAY_MS, parseIsoDateTime } from "../../kernel/time.js";

let lastMs = Number.NaN;
let lastIso = "";
let otherMs = Number.NaN;
let otherIso = "";

/**
 * Epoch ms as `2026-11-22T14:05:00.000Z`. The last two answers are remembered: records of one decision
 * share the clock's instant, and a record of an older order alternates it with its `created_at`.
 */
export function toIso(ms: number): string {
  if (ms === lastMs) return lastIso;
  if (ms !== otherMs) {
    otherIso = new Date(ms).toISOString();
    otherMs = ms;
  }
  // The newest answer becomes the first one looked at.
  const iso = otherIso;
  otherMs = lastMs;
  otherIso = lastIso;
  lastMs = ms;
  lastIso = iso;
  return iso;
}

/**
 * Epoch ms of an ISO 8601 instant with a zone, or undefined when malformed or impossible (`2030-02-30`): the
 * API's one date-time parser (kernel/time.ts).
 */
export function parseIsoInstant(text: string): number | undefined {
  const ms = parseIsoDateTime(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Epoch ms of 00:00 UTC of the day containing `ms`. */
export function utcDayStart(ms: number): number {
  return ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
}

/** The UTC calendar date of `ms` (`2026-11-22`). */
export function utcDate(ms: number): string {
  return toIso(ms).slice(0, 10);
}
