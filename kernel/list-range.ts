// The bounds of a list of trades, closed positions or orders (docs/openapi.yaml: `from`, `to`, `limit`, `after_id`):
// one definition of each rule and of its message. The gateway answers /v1 with them (with every problem of the
// query at once, unknown parameters included) and the engine applies them to the gRPC request.
import type { Issue } from "./errors.js";
import { parseIsoDateTime } from "./time.js";
import { isUuid } from "./uuid.js";

export const LIST_LIMIT_DEFAULT = 100;
export const LIST_LIMIT_MAX = 1000;

/** A field's value, or the issue that refuses it. */
export type Checked<T> = { ok: true; value: T } | { ok: false; issue: Issue };

const refuse = (path: string, message: string): { ok: false; issue: Issue } => ({
  ok: false,
  issue: { path, message },
});

/** `from` or `to`: inclusive, epoch ms of an ISO 8601 date-time with a time zone. */
export function checkListBound(path: "from" | "to", text: string): Checked<number> {
  const ms = parseIsoDateTime(text);
  return Number.isNaN(ms) ? refuse(path, "must be an ISO 8601 date-time with a time zone") : { ok: true, value: ms };
}

/** `limit`: a whole number of at least 1; more than LIST_LIMIT_MAX is read as LIST_LIMIT_MAX. */
export function checkListLimit(value: string | number): Checked<number> {
  const n = typeof value === "number" ? value : /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n)) return refuse("limit", "must be a positive integer");
  if (n < 1) return refuse("limit", "must be at least 1");
  return { ok: true, value: Math.min(n, LIST_LIMIT_MAX) };
}

/** `after_id`: the last row's id (a UUID), compared in lower case as the engine mints ids. */
export function checkListAfterId(text: string): Checked<string> {
  return isUuid(text) ? { ok: true, value: text.toLowerCase() } : refuse("after_id", "must be a UUID");
}

/**
 * The rules across fields, judged once each field is well-formed: `from` is not after `to`, and `after_id` (the
 * keyset cursor) comes with `from`, the last row's time.
 */
export function listRangeIssues(range: { from: number | null; to: number | null; afterId: string | null }): Issue[] {
  const issues: Issue[] = [];
  if (range.from !== null && range.to !== null && range.from > range.to) {
    issues.push({ path: "from", message: "must not be after to" });
  }
  if (range.afterId !== null && range.from === null) {
    issues.push({ path: "after_id", message: "needs from: the last row's time" });
  }
  return issues;
}
