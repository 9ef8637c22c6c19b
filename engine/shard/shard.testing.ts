// Test-only: a `Shard` driven in the test's own thread on a journal in memory (the shard's tests share it).
import type { JournalLook } from "../store/followed-journal.js";
import type { EventRow, NewAccountRow, OutboxRow, ReadCounts, StoredEvent } from "../store/journal.js";
import type { Fence } from "../store/leases.js";
import type { ActorCore, CoreTypes } from "./core-contract.js";
import type { ShardRequest, ShardResponse } from "./protocol.js";
import { Shard, type ShardJournal } from "./shard.js";

/** A journal in memory: every row appended, in order; `failNext` appends are refused. */
export class MemoryJournal implements ShardJournal {
  readonly events: EventRow[] = [];
  readonly outbox: OutboxRow[] = [];
  appends = 0;
  failNext = 0;

  append(
    _accounts: readonly NewAccountRow[],
    events: readonly EventRow[],
    outbox: readonly OutboxRow[],
  ): Promise<void> {
    this.appends++;
    if (this.failNext > 0) {
      this.failNext--;
      return Promise.reject(new Error("database down"));
    }
    this.events.push(...events);
    this.outbox.push(...outbox);
    return Promise.resolve();
  }

  readPartitions(_partitions: readonly number[], onEvent: (event: StoredEvent) => void): Promise<ReadCounts> {
    return this.read(undefined, onEvent);
  }

  readAccounts(accountIds: readonly string[], onEvent: (event: StoredEvent) => void): Promise<ReadCounts> {
    return this.read(new Set(accountIds), onEvent);
  }

  /** A standby's looks: every account's latest seq (this journal keeps no times; both looks are exact). */
  latestSeqs(): Promise<JournalLook> {
    const seqs = new Map<string, number>();
    for (const row of this.events) seqs.set(row.accountId, Math.max(row.seq, seqs.get(row.accountId) ?? 0));
    return Promise.resolve({ at: Date.now(), seqs });
  }

  changedSince(): Promise<JournalLook> {
    return this.latestSeqs();
  }

  readAfter(from: ReadonlyMap<string, number>, onEvent: (event: StoredEvent) => void): Promise<number> {
    let events = 0;
    for (const row of this.events) {
      const after = from.get(row.accountId);
      if (after === undefined || row.seq <= after) continue;
      events++;
      onEvent({ accountId: row.accountId, seq: row.seq, event: JSON.parse(row.payload) as unknown });
    }
    return Promise.resolve(events);
  }

  /** The fence a standby's `serve` brought (this journal checks none). */
  fence: Fence | undefined;
  fenceWith(fence: Fence): void {
    this.fence = fence;
  }

  private read(only: Set<string> | undefined, onEvent: (event: StoredEvent) => void): Promise<ReadCounts> {
    const accounts = new Set<string>();
    let events = 0;
    for (const row of this.events) {
      if (only !== undefined && !only.has(row.accountId)) continue;
      accounts.add(row.accountId);
      events++;
      onEvent({ accountId: row.accountId, seq: row.seq, event: JSON.parse(row.payload) as unknown });
    }
    return Promise.resolve({ accounts: accounts.size, events });
  }
}

/** A request without its id (the helper numbers them). */
export type Unnumbered<R> = R extends unknown ? Omit<R, "requestId"> : never;

/**
 * Shard 0 of 1 of `core` on `journal` (batches of 64, nothing to close), and `send`, which numbers each request
 * and queues it. `now`: the shard's wall clock (Date.now when absent).
 */
export function startTestShard<T extends CoreTypes>(
  core: ActorCore<T>,
  journal: ShardJournal,
  now?: () => number,
): { shard: Shard<T>; send: (request: Unnumbered<ShardRequest<T>>) => Promise<ShardResponse<T>> } {
  const shard = new Shard<T>({
    shard: 0,
    shards: 1,
    core,
    journal,
    maxBatch: 64,
    close: () => Promise.resolve(),
    ...(now === undefined ? {} : { now }),
  });
  let requestId = 1;
  const send = (request: Unnumbered<ShardRequest<T>>): Promise<ShardResponse<T>> =>
    shard.enqueue({ ...request, requestId: requestId++ });
  return { shard, send };
}
