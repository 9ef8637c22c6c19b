// Eviction, parking and reload: which accounts in a shard's memory may differ from the journal, and bringing
// them back. The shard is rebuilt from the journal on first use. A failed batch evicts the accounts it touched;
// they are reloaded from the journal before the next batch, so no uncommitted event survives, and the clock
// decides them again a little later at the current market. An account whose events the core threw applying
// is parked: the clock leaves it alone until a command or a price decides it again, or until a wake time of its
// own that was still to come when it was parked.
import { performance } from "node:perf_hooks";
import { partitionsOfShard } from "../../kernel/partition.js";
import type { JournalLook } from "../store/followed-journal.js";
import type {
  NewAccountRow,
  EventRow,
  OutboxRow,
  ReadCounts,
  SnapshotRow,
  StoredEvent,
  StoredSnapshot,
} from "../store/journal.js";
import type { Fence } from "../store/leases.js";
import type { ArchivedRow } from "../store/order-archive.js";
import type { SpentRecord, SpentRow } from "../store/spent-keys.js";
import type { ActorCore, CoreTypes } from "./core-contract.js";
import type { ShardClock } from "./clock.js";
import type { AccountMemory } from "./memory.js";
import type { ShardSnapshots } from "./snapshots.js";

/** What a shard needs of the journal (engine/store/journal.ts in production). */
export interface ShardJournal {
  append(
    accounts: readonly NewAccountRow[],
    events: readonly EventRow[],
    outbox: readonly OutboxRow[],
    archived?: readonly ArchivedRow[],
    spent?: readonly SpentRow[],
  ): Promise<void>;
  /**
   * Streams the accounts' latest snapshots (`onSnapshot`, when given) and then their events after them (all of
   * them without `onSnapshot`), in (account, seq) order.
   */
  readPartitions(
    partitions: readonly number[],
    onEvent: (event: StoredEvent) => void,
    onSnapshot?: (snapshot: StoredSnapshot) => void,
  ): Promise<ReadCounts>;
  readAccounts(
    accountIds: readonly string[],
    onEvent: (event: StoredEvent) => void,
    onSnapshot?: (snapshot: StoredSnapshot) => void,
  ): Promise<ReadCounts>;
  /** Stores snapshots (a newer one replaces an older one of the same account; an older one changes nothing). */
  saveSnapshots?(rows: readonly SnapshotRow[]): Promise<void>;
  /** Makes sure the order archive holds these forgotten records (those it holds stay as they are). */
  archive?(rows: readonly ArchivedRow[]): Promise<void>;
  /** Makes sure the table of spent keys holds these forgotten key records (those it holds stay as they are). */
  spend?(rows: readonly SpentRow[]): Promise<void>;
  /** A standby's looks (engine/store/journal.ts): accounts with events since a time, and every account, exactly. */
  changedSince?(partitions: readonly number[], since: number): Promise<JournalLook>;
  /** `bounded` false: no deadline (a take-over's last look, like a rebuild). */
  latestSeqs?(partitions: readonly number[], bounded?: boolean): Promise<JournalLook>;
  /** Each account's events after the seq given for it. */
  readAfter?(
    from: ReadonlyMap<string, number>,
    onEvent: (event: StoredEvent) => void,
    bounded?: boolean,
  ): Promise<number>;
  /** Fences every later append with these leases. */
  fenceWith?(fence: Fence): void;
  /** An account's spent key (docs/engine.md, "Idempotency"), or undefined when the table does not hold it. */
  recall?(accountId: string, key: string): Promise<SpentRecord | undefined>;
}

export interface AccountReloadOptions<T extends CoreTypes> {
  core: ActorCore<T>;
  journal: ShardJournal;
  memory: AccountMemory<T>;
  clock: ShardClock<T>;
  snapshots: ShardSnapshots<T>;
  /** Which partitions the shard loads: its index of `shards`, on this engine of `engines` (default 0 of 1). */
  shard: number;
  shards: number;
  engine?: number | undefined;
  engines?: number | undefined;
  log: (level: "info", message: string, fields: Record<string, unknown>) => void;
}

export class AccountReload<T extends CoreTypes> {
  /** Accounts whose in-memory state may differ from the journal: reloaded before the next batch. */
  private readonly stale = new Set<string>();
  /**
   * Accounts whose events the core threw applying: the clock leaves them alone (no retry, and none of their
   * wake times that had come) until a command or a price decides them again. A wake time still to come when
   * the account was parked (a dead-man's switch's deadline) is kept: it is decided once more then. Each
   * parked account → the shard's time when it was parked.
   */
  private readonly parked = new Map<string, number>();
  /** What the rebuild read; undefined until the shard was rebuilt. */
  private rebuilt: ReadCounts | undefined;
  /** What the replay in progress forgot, for the order archive (written before the accounts serve). */
  private forgotten: ArchivedRow[] = [];
  /** The key records the replay in progress forgot, for the table of spent keys (the same). */
  private spent: SpentRow[] = [];

  constructor(private readonly options: AccountReloadOptions<T>) {}

  /** The events the rebuild replayed (0 before it). */
  rebuiltEvents(): number {
    return this.rebuilt?.events ?? 0;
  }

  /** The account is decided again: no longer parked. */
  unpark(accountId: string): void {
    if (this.parked.size > 0) this.parked.delete(accountId);
  }

  /**
   * Drops the accounts from memory until their reload. An evicted account's wake time may be lost with its
   * uncommitted state (an expiry decided, not journaled): with `retry`, a clock request a little later reloads
   * it and decides it at the current market; without, it is parked.
   */
  evict(accountIds: Iterable<string>, retry = true): void {
    const { memory, clock } = this.options;
    const retryAt = retry ? clock.retryAt() : undefined;
    for (const id of accountIds) {
      memory.accounts.delete(id);
      memory.noteInterests(id, undefined);
      this.stale.add(id);
      if (retryAt !== undefined) clock.noteAt(id, retryAt);
      else if (!retry) {
        this.parked.set(id, clock.latestTime());
        // A later wake time (a dead-man's switch's deadline, a GTD expiry) still comes: it reloads the account
        // and decides it once more then.
        clock.dropUnlessLater(id);
      }
    }
  }

  /** Rebuilds the shard on first use, and reloads the accounts of a failed batch. */
  async ensureCurrent(): Promise<void> {
    if (this.rebuilt === undefined) await this.rebuild();
    else if (this.stale.size > 0) await this.reloadStale();
  }

  private async rebuild(): Promise<void> {
    const { memory, clock, journal } = this.options;
    memory.clear();
    this.stale.clear();
    clock.clear();
    this.forgotten = [];
    this.spent = [];
    const started = performance.now();
    const counts = await journal.readPartitions(
      this.partitions(),
      (event) => {
        this.replay(event);
      },
      this.options.snapshots.restorer(),
    );
    this.endReplay(memory.accounts.keys());
    await this.archiveForgotten();
    this.rebuilt = counts;
    clock.noteAll(memory.accounts);
    for (const [id, entry] of memory.accounts) memory.noteInterests(id, entry.state);
    this.options.log("info", "shard rebuilt from the journal", {
      ...counts,
      ms: Math.round(performance.now() - started),
    });
  }

  /**
   * A standby's step (docs/scale-out.md, "Standbys"): applies the events journaled since the accounts in memory
   * were read, for the accounts whose latest seq in `latest` is beyond theirs (an account new to the shard is
   * read with its snapshot). Nothing is decided; the clock notes the accounts' wake times as a rebuild does.
   * Returns the events applied. `bounded` false: the reads have no deadline (a take-over's last look).
   */
  async follow(latest: ReadonlyMap<string, number>, bounded = true): Promise<{ accounts: number; events: number }> {
    await this.ensureCurrent();
    const { memory, clock, journal } = this.options;
    if (journal.readAfter === undefined) throw new Error("this journal cannot be followed");
    const known = new Map<string, number>();
    const added: string[] = [];
    for (const [id, seq] of latest) {
      const entry = memory.accounts.get(id);
      if (entry === undefined) added.push(id);
      else if (seq > entry.seq) known.set(id, entry.seq);
    }
    if (known.size === 0 && added.length === 0) return { accounts: 0, events: 0 };
    this.forgotten = [];
    this.spent = [];
    let events = await journal.readAfter(
      known,
      (event) => {
        this.replay(event);
      },
      bounded,
    );
    if (added.length > 0) {
      const counts = await journal.readAccounts(
        added,
        (event) => {
          this.replay(event);
        },
        this.options.snapshots.restorer(),
      );
      events += counts.events;
    }
    const ids = [...known.keys(), ...added];
    this.endReplay(ids);
    await this.archiveForgotten();
    for (const id of ids) {
      const state = memory.accounts.get(id)?.state;
      clock.note(id, state);
      memory.noteInterests(id, state);
    }
    return { accounts: ids.length, events };
  }

  /** The partitions this shard loads. */
  partitions(): number[] {
    const { shard, shards, engine, engines } = this.options;
    return partitionsOfShard(shard, shards, engine, engines);
  }

  private async reloadStale(): Promise<void> {
    const { memory, clock } = this.options;
    // The events query skips what the snapshots read before it hold: none of ours may land in between.
    await this.options.snapshots.settled();
    const ids = [...this.stale];
    for (const id of ids) memory.accounts.delete(id);
    this.forgotten = [];
    this.spent = [];
    await this.options.journal.readAccounts(
      ids,
      (event) => {
        this.replay(event);
      },
      this.options.snapshots.restorer(),
    );
    this.endReplay(ids);
    await this.archiveForgotten();
    this.stale.clear();
    for (const id of ids) {
      memory.noteInterests(id, memory.accounts.get(id)?.state);
      const parkedAt = this.parked.get(id);
      if (parkedAt !== undefined) {
        clock.noteLater(id, memory.accounts.get(id)?.state, parkedAt);
        continue;
      }
      // The retry its eviction asked for stays, when earlier than the state's own wake time: the reloaded state
      // missed what the failed batch had decided for it (a price update's triggers and fills among them), and
      // `onClock` decides it again at the current market.
      const retry = clock.wakeOf(id);
      clock.note(id, memory.accounts.get(id)?.state);
      const own = clock.wakeOf(id);
      if (retry !== undefined && (own === undefined || retry < own)) clock.noteAt(id, retry);
    }
  }

  private replay(stored: StoredEvent): void {
    const { core, memory, clock } = this.options;
    const entry = memory.accounts.get(stored.accountId);
    const expected = (entry?.seq ?? 0) + 1;
    if (stored.seq !== expected) {
      throw new Error(`journal of account ${stored.accountId} has seq ${stored.seq} where ${expected} was expected`);
    }
    const event = stored.event as T["event"];
    const at = core.eventTime?.(event);
    // The live shard let the core forget after each decision: a replay does where one decision ends (the
    // events of a decision share its time), so it forgets exactly what the live actor forgot.
    if (entry?.replayedAt !== undefined && at !== entry.replayedAt) this.forget(stored.accountId, entry.state);
    const state = core.apply(entry?.state, event);
    if (at !== undefined) clock.saw(at);
    memory.index(stored.accountId, event);
    const outbox = (entry?.outbox ?? 0) + (core.outboxCount?.(state, event) ?? 0);
    if (entry === undefined) {
      memory.accounts.set(stored.accountId, {
        state,
        seq: stored.seq,
        outbox,
        ordinal: memory.nextOrdinal(),
        snapshotSeq: 0,
        replayedAt: at,
      });
    } else {
      entry.state = state;
      entry.seq = stored.seq;
      entry.outbox = outbox;
      entry.replayedAt = at;
    }
  }

  /** The end of a replay: the last decision of each account replayed ends there. */
  private endReplay(accountIds: Iterable<string>): void {
    const memory = this.options.memory;
    for (const id of accountIds) {
      const entry = memory.accounts.get(id);
      if (entry?.replayedAt === undefined) continue;
      this.forget(id, entry.state);
      entry.replayedAt = undefined;
    }
  }

  /** A replay's forgetting: what the core drops is noted for the archive and the table of spent keys. */
  private forget(accountId: string, state: T["state"]): void {
    this.options.memory.forget(
      state,
      (record) => this.forgotten.push({ accountId, ...record }),
      (record) => this.spent.push({ accountId, ...record }),
    );
  }

  /**
   * The orders and key records the replay forgot, made sure of in the archive and the table of spent keys: the
   * live actor wrote those it forgot, and a replay under a lower retention forgets more, which no lookup may
   * lose. A failure leaves the shard unloaded (the next batch tries again).
   */
  private async archiveForgotten(): Promise<void> {
    const rows = this.forgotten;
    const spent = this.spent;
    this.forgotten = [];
    this.spent = [];
    if (rows.length > 0) await this.options.journal.archive?.(rows);
    if (spent.length > 0) await this.options.journal.spend?.(spent);
  }
}
