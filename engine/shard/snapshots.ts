// A shard's account snapshots (docs/engine.md, "Snapshots"): written after a commit for the accounts that
// passed `snapshotEvery` events since their last one, restored on a rebuild or reload so the journal is
// replayed only after them.
import type { SnapshotRow, StoredSnapshot } from "../store/journal.js";
import { errorText } from "../../kernel/errors.js";
import type { ActorCore, CoreTypes } from "./core-contract.js";
import type { ShardClock } from "./clock.js";
import type { AccountMemory } from "./memory.js";

export interface SnapshotOptions<T extends CoreTypes> {
  core: ActorCore<T>;
  /** The journal's `saveSnapshots` (a newer snapshot replaces an older one of the same account); none: no snapshots. */
  save: ((rows: readonly SnapshotRow[]) => Promise<void>) | undefined;
  memory: AccountMemory<T>;
  clock: ShardClock<T>;
  /** Snapshot an account once this many events were journaled for it since its last snapshot; never when absent. */
  every: number | undefined;
  log: (level: "warn", message: string, fields: Record<string, unknown>) => void;
}

export class ShardSnapshots<T extends CoreTypes> {
  /** The snapshot writes in flight (a stop or a reload waits for them). */
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly options: SnapshotOptions<T>) {}

  /** Resolves once every snapshot write started so far ended (failed ones included). */
  settled(): Promise<void> {
    return this.writes;
  }

  /**
   * After a commit: snapshots the touched accounts that passed `every` events since their last one (and as many
   * JSON characters of events as that snapshot had). The state is serialised now, as committed (the next batch
   * mutates it); the write goes on behind the batch's answers, and a failed one only means a longer replay
   * (logged, retried after as many events again).
   */
  write(touched: Iterable<string>): void {
    const { core, save, memory, every } = this.options;
    const snapshotOf = core.snapshot?.bind(core);
    if (every === undefined || save === undefined || snapshotOf === undefined) return;
    const rows: SnapshotRow[] = [];
    for (const accountId of touched) {
      const entry = memory.accounts.get(accountId);
      if (entry === undefined || entry.seq - entry.snapshotSeq < every) continue;
      // Never more snapshot than journal: a large state is snapshotted once as much was journaled since its last
      // snapshot, so snapshots at most double what is written, and a replay reads at most about a snapshot's
      // worth of events after one.
      if ((entry.journaledSince ?? 0) < (entry.snapshotSize ?? 0)) continue;
      const payload = JSON.stringify(snapshotOf(entry.state));
      rows.push({ accountId, seq: entry.seq, outbox: entry.outbox, at: this.options.clock.latestTime(), payload });
      entry.snapshotSeq = entry.seq;
      entry.snapshotSize = payload.length;
      entry.journaledSince = 0;
    }
    if (rows.length === 0) return;
    const write = save(rows).catch((error: unknown) => {
      this.options.log("warn", "snapshot write failed", { err: errorText(error), accounts: rows.length });
    });
    this.writes = this.writes.then(() => write);
  }

  /** Loads snapshots on a rebuild or reload, when the core can restore them. */
  restorer(): ((snapshot: StoredSnapshot) => void) | undefined {
    const { core, memory, clock } = this.options;
    const restore = core.restore?.bind(core);
    if (restore === undefined || this.options.every === undefined) return undefined;
    return (stored) => {
      const state = restore(stored.snapshot);
      // A snapshot the core cannot read (another version) fails the rebuild loudly: the events before it were not
      // read. A change of the snapshot's shape comes with a migration that deletes the old ones.
      if (state === undefined) throw new Error(`snapshot of account ${stored.accountId} cannot be restored`);
      memory.accounts.set(stored.accountId, {
        state,
        seq: stored.seq,
        outbox: stored.outbox,
        ordinal: memory.nextOrdinal(),
        snapshotSeq: stored.seq,
      });
      clock.saw(stored.at);
      memory.indexState(stored.accountId, state);
    };
  }
}
