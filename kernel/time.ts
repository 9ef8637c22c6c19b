// Time as the services count it: the length of a day, and ISO 8601 date-times as the API accepts them (a date
// and a time with a zone, real calendar dates only).

/** One day in milliseconds (a UTC day: no leap seconds). */
export const DAY_MS = 86_400_000;

export const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/** Parses an ISO 8601 date-time with a zone; NaN for impossible dates (Feb 30) that Date.parse would shift. */
export function parseIsoDateTime(text: string): number {
  const match = ISO_DATE_TIME.exec(text);
  if (match === null) return NaN;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match
    .slice(1)
    .map((part) => (part === undefined ? 0 : Number(part)));
  const daysInMonth = new Date(Date.UTC(year ?? 0, month ?? 0, 0)).getUTCDate();
  if ((month ?? 0) < 1 || (month ?? 0) > 12 || (day ?? 0) < 1 || (day ?? 0) > daysInMonth) return NaN;
  if ((hour ?? 0) > 23 || (minute ?? 0) > 59 || (second ?? 0) > 59) return NaN;
  if ((offsetHours ?? 0) > 23 || (offsetMinutes ?? 0) > 59) return NaN;
  return Date.parse(text);
}

/** The longest delay setTimeout honours (ms): a longer one runs after 1 ms, so a far wait goes in steps. */
export const MAX_TIMER_MS = 2_147_483_647;
