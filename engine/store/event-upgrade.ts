// Events of an older shape the journal may still hold, read in the one shape the core reads (docs/engine.md,
// "Idempotency").

/**
 * `IdempotencyRecorded` as the journal may hold it in its first shape: the whole answer sent (`response`),
 * without the `violations` and `risk_headroom` the answer is rebuilt from (docs/engine.md, "Idempotency").
 */
export interface FirstIdempotencyRecorded {
  type: "IdempotencyRecorded";
  at: number;
  client_id: string;
  order_id: string;
  fingerprint: string;
  response: { violations: unknown[]; risk_headroom?: unknown };
}

/**
 * An event read from the journal in the one shape the core reads: a first-shape `IdempotencyRecorded` gets
 * its answer's violations and headroom next to the answer it keeps (a retry answers exactly that answer).
 * Every other event, and every event of the current shape, is returned as it is.
 */
export function upgradeEvent(payload: unknown): unknown {
  const event = payload as Partial<FirstIdempotencyRecorded> & { violations?: unknown };
  if (event.type !== "IdempotencyRecorded" || event.response === undefined || event.violations !== undefined) {
    return payload;
  }
  return { ...event, violations: event.response.violations, risk_headroom: event.response.risk_headroom };
}
