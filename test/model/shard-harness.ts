// The engine side of the restart lockstep (test/model/restart.ts) as a shard runs its one account: every
// decision goes through the trading core (engine/trading-core.ts) with the limits `configure` set, the events
// are applied with the core's `apply` (which keeps the retention bookkeeping), and the core forgets after each
// decision that emitted events, handing each client_id record it drops to the table of spent client_ids (a Map
// here that outlives every restart, first write kept as `ON CONFLICT DO NOTHING` keeps it). A placement or a close
// whose client_id the core asks to recall (`recallKey`) is decided with what the table holds under it, read back
// through JSON as from the database (engine/shard/decide.ts, shard.ts `recall`; docs/engine.md "Idempotency").
import type { ActorLimits } from "../../engine/accounts/limits.js";
import type { AccountState, Command, EngineEvent, ReplyByCommand } from "../../engine/core.js";
import { Harness, USER_ID } from "../../engine/core.testing.js";
import type { NewsEvent } from "../../engine/market/calendar.js";
import type { ActorCore, Recalled, SpentKey } from "../../engine/shard/core-contract.js";
import { createCore, type EngineTypes } from "../../engine/trading-core.js";

/** The client_id limits of the lockstep's shard: small, so random sequences forget often. */
export type ClientIdLimits = Pick<ActorLimits, "clientIdsKept" | "clientIdWindowMs">;

/** A command decided with a record looked up in the table: its client_id and what the table held. */
export interface Recall {
  readonly key: string;
  readonly found: boolean;
}

export class ShardHarness extends Harness {
  /** The table of spent client_ids: what the shard wrote from `forget`, across restarts. */
  readonly spent = new Map<string, SpentKey>();
  /** The core of the running process (a restart makes a new one: `newProcess`). */
  core: ActorCore<EngineTypes>;
  /** The lookup the last command needed, if it needed one. */
  lastRecall: Recall | undefined;
  /** The calendar the core holds (it is sent to the core when the harness's changes). */
  private sentCalendar: readonly NewsEvent[] | undefined;

  constructor(
    readonly limits: ClientIdLimits,
    now?: number,
  ) {
    super(now);
    this.core = this.newProcess();
  }

  /** A new process's core, configured with the lockstep's limits (the state is rebuilt by the caller). */
  newProcess(): ActorCore<EngineTypes> {
    const core = createCore();
    core.configure?.({ ...this.limits });
    this.core = core;
    this.sentCalendar = undefined;
    return core;
  }

  override run<C extends Command>(command: C): ReplyByCommand[C["type"]] {
    const core = this.core;
    if (this.sentCalendar !== this.calendar) {
      core.updateMarket?.(this.market, { prices: [], calendar: this.calendar }, this.now);
      this.sentCalendar = this.calendar;
    }
    const full = { userId: USER_ID, command };
    const key = core.recallKey?.(this.state, full);
    const ctx = { now: this.now, market: this.market, nextId: this.nextId };
    const recalled = key === undefined ? undefined : this.recall(key);
    this.lastRecall = recalled === undefined ? undefined : { key: recalled.key, found: recalled.record !== undefined };
    const decision = core.decide(this.state, full, recalled === undefined ? ctx : { ...ctx, recalled });
    this.applyDecided(decision.events);
    return decision.reply as ReplyByCommand[C["type"]];
  }

  /**
   * A decision's events as the shard applies them (engine/shard/decide.ts `applyEvents`): each applied and
   * journaled, then the core forgets once, then the book depth the fills took.
   */
  applyDecided(events: readonly EngineEvent[]): void {
    this.lastEvents = [...events];
    if (events.length === 0) return;
    let state = this.state;
    for (const event of events) state = this.core.apply(state, event);
    this.state = state;
    this.journal.push(...events);
    if (state !== undefined) this.forget(state);
    this.core.onDecided?.(this.market, events);
  }

  /** The core's forgetting: each client_id record it drops written to the table (a row once written stays). */
  forget(state: AccountState): void {
    this.core.forget?.(state, undefined, (record) => {
      if (!this.spent.has(record.key)) this.spent.set(record.key, record);
    });
  }

  /** What the shard reads back for a key: the row's answer parsed, or nothing. */
  private recall(key: string): Recalled {
    const row = this.spent.get(key);
    return { key, record: row === undefined ? undefined : { ...row, data: JSON.parse(row.data) as unknown } };
  }
}
