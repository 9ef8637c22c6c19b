// One decision in progress, as the execution modules see it: the clock, prices and ids it was given, the
// state as of the events emitted so far, and `emit`. The core implements it (emit = record the event and
// apply it to a draft), so placement and execution code never import the core.
import type { AccountState, IdempotencyRecord } from "./account-state.js";
import type { BookSide, MarketView } from "../market/book.js";
import type { NewsEvent } from "../market/calendar.js";
import type { EngineEvent } from "./events.js";

export interface Run {
  readonly now: number;
  /**
   * The time the daily reset is judged at: `now`, or the earlier funding boundary the decision pays for (a start
   * that caught it up; docs/risk.md "Daily reset").
   */
  readonly dayAt: number;
  readonly market: MarketView;
  /** The news calendar (time order) the news_freeze rule reads. */
  readonly calendar: readonly NewsEvent[];
  /** The most working orders the account may hold (docs/engine.md, "Limits"). */
  readonly maxWorkingOrders: number;
  /** A fresh UUID (the shell's randomness). */
  nextId(): string;
  /** The state after the events emitted so far; never the caller's state once an event is emitted. */
  readonly state: AccountState;
  emit(event: EngineEvent): void;
  /** How many events this decision has emitted so far. */
  readonly emitted: number;
  /** Whether the decision has filled anything (equity moved: the limits must be looked at). */
  readonly filled: boolean;
  /** Steps this decision has taken from a side of the symbol's current book (not yet in the view). */
  localTaken(symbol: string, side: BookSide): number;
  /** HELD children activated by fills in this decision, in order. */
  readonly activated: string[];
  /**
   * The record of a client_id the account forgot, when the shell looked it up for this decision (docs/engine.md,
   * "Idempotency"); undefined otherwise, or when the table of spent client_ids does not hold it.
   */
  recalled(clientId: string): IdempotencyRecord | undefined;
}
