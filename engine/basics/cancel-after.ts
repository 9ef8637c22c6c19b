// The dead-man's switch of an account (docs/risk.md, "Cancel-after"): the state it keeps and the record the API
// answers (`GET`/`POST /v1/account/{id}/cancel-after`).
import { toIso } from "./time.js";

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
