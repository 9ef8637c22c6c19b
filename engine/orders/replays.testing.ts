// What an idempotent retry must give (docs/engine.md, "Idempotency" and "Request ids"): the first answer as
// "replayed", from the live state and from a state rebuilt from the journal, without emitting anything.
import { expect } from "vitest";
import { decide, replay, type Command, type EngineEvent } from "../core.js";
import type { Harness } from "../core.testing.js";
import type { PlacedReply } from "../basics/replies.js";

/** The journal as PostgreSQL gives it back: plain JSON, no shared objects. */
export function journalCopy(h: Harness): EngineEvent[] {
  return JSON.parse(JSON.stringify(h.journal)) as EngineEvent[];
}

/**
 * Retries `command` on the live state and on a state rebuilt from the journal; both must answer the first
 * reply as "replayed", deep-equal and as the same JSON text, without emitting anything.
 */
export function expectReplays(h: Harness, command: Command, first: PlacedReply): void {
  const ctx = { now: h.now, market: h.market, nextId: h.nextId };
  for (const state of [h.account, replay(journalCopy(h))]) {
    const again = decide(state, command, ctx);
    expect(again.events).toEqual([]);
    expect(again.reply).toEqual({ ...first, kind: "replayed" });
    expect(JSON.stringify(again.reply)).toBe(JSON.stringify({ ...first, kind: "replayed" }));
  }
}
