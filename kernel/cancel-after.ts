// The bounds of the dead-man's switch's timeout (docs/risk.md, "Cancel-after"), shared by the gateway (which
// refuses a value before it reaches the engine's uint32 field) and the engine (which judges every caller).
import type { Issue } from "./errors.js";

/** The shortest timeout that arms the switch (ms); 0 disarms it. */
export const CANCEL_AFTER_MIN_MS = 1_000;
/** The longest timeout (ms): 24 hours. */
export const CANCEL_AFTER_MAX_MS = 86_400_000;

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
