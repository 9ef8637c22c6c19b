// The dead-man's switch of an account (docs/risk.md, "Cancel-after"): its bounds, the state it keeps, and the
// record the API answers (`GET`/`POST /v1/account/{id}/cancel-after`).
import type { Issue } from "../../kernel/errors.js";
import { toIso } from "./time.js";

/** The shortest timeout that arms the switch (ms); 0 disarms it. */
export const CANCEL_AFTER_MIN_MS = 1_000;
/** The longest timeout (ms): 24 hours. */
export const CANCEL_AFTER_MAX_MS = 86_400_000;

/** An armed switch: it fires at `deadline` (epoch ms) unless re-armed or disarmed before. */
export interface CancelAfter {
  readonly timeout_ms: number;
  readonly deadline: number;
}

/** The wire record: `armed` with its timeout and deadline, or disarmed (both null). */
export interface CancelAfterRecord {
  account_id: string;
  armed: boolean;
  timeout_ms: number | null;
  deadline: string | null;
}

export function cancelAfterRecord(accountId: string, armed: CancelAfter | null): CancelAfterRecord {
  return armed === null
    ? { account_id: accountId, armed: false, timeout_ms: null, deadline: null }
    : { account_id: accountId, armed: true, timeout_ms: armed.timeout_ms, deadline: toIso(armed.deadline) };
}

/** What is wrong with a requested timeout (empty when it is 0 or within the bounds). */
export function cancelAfterIssues(timeoutMs: unknown): Issue[] {
  if (typeof timeoutMs !== "number" || !Number.isSafeInteger(timeoutMs)) {
    return [{ path: "timeout_ms", message: "must be a whole number of milliseconds" }];
  }
  if (timeoutMs === 0 || (timeoutMs >= CANCEL_AFTER_MIN_MS && timeoutMs <= CANCEL_AFTER_MAX_MS)) return [];
  return [
    {
      path: "timeout_ms",
      message: `must be 0 (disarm) or between ${CANCEL_AFTER_MIN_MS} and ${CANCEL_AFTER_MAX_MS} ms (24 h)`,
    },
  ];
}
