// When a shard snapshots an account (snapshots.ts, `write`): after `snapshotEvery` journaled events, and for a
// state whose snapshot is larger than that many events, only once as much was journaled as its last snapshot
// held, so snapshots never write more than the journal does. A counter core on an in-memory journal.
import { describe, expect, it } from "vitest";
import type { ReadCounts, SnapshotRow } from "../store/journal.js";
import type { ActorCore, CoreTypes } from "./core-contract.js";
import { Shard, type ShardJournal } from "./shard.js";

interface CounterTypes extends CoreTypes {
  state: { userId: string; count: number };
  command: { type: "add" };
  event: { type: "Added" };
  reply: { count: number };
  query: null;
  queryResult: null;
  update: null;
  market: null;
}

/** Events are a dozen characters; the snapshot is `snapshotSize` characters. */
function counterCore(snapshotSize: number): ActorCore<CounterTypes> {
  return {
    decide: (state) => ({ events: [{ type: "Added" }], reply: { count: (state?.count ?? 0) + 1 } }),
    apply: (state) => ({ userId: "u-1", count: (state?.count ?? 0) + 1 }),
    query: () => null,
    userId: (state) => state.userId,
    snapshot: (state) => ({ count: state.count, padding: "x".repeat(snapshotSize) }),
    restore: (snapshot) => ({ userId: "u-1", count: (snapshot as { count: number }).count }),
  };
}

class SnapshotJournal implements ShardJournal {
  readonly snapshots: SnapshotRow[] = [];
  append(): Promise<void> {
    return Promise.resolve();
  }
  readPartitions(): Promise<ReadCounts> {
    return Promise.resolve({ accounts: 0, events: 0 });
  }
  readAccounts(): Promise<ReadCounts> {
    return Promise.resolve({ accounts: 0, events: 0 });
  }
  saveSnapshots(rows: readonly SnapshotRow[]): Promise<void> {
    this.snapshots.push(...rows);
    return Promise.resolve();
  }
}

/** The seqs at which the account was snapshotted over `events` commands, one batch each. */
async function snapshotSeqs(snapshotSize: number, events: number): Promise<number[]> {
  const journal = new SnapshotJournal();
  const shard = new Shard<CounterTypes>({
    shard: 0,
    shards: 1,
    core: counterCore(snapshotSize),
    journal,
    maxBatch: 1,
    snapshotEvery: 10,
    close: () => Promise.resolve(),
  });
  const accountId = "00000000-0000-4000-8000-000000000001";
  for (let i = 1; i <= events; i++) {
    await shard.enqueue({ kind: "command", requestId: i, to: { accountId }, command: { type: "add" } });
  }
  return journal.snapshots.map((row) => row.seq);
}

describe("snapshot cadence", () => {
  it("snapshots a small state every snapshotEvery events", async () => {
    expect(await snapshotSeqs(10, 45)).toEqual([10, 20, 30, 40]);
  });

  it("snapshots a state larger than its events only once as much was journaled as its last snapshot", async () => {
    // Each event is {"type":"Added"}: 16 characters; a snapshot of 425: one every 27 events.
    const seqs = await snapshotSeqs(400, 100);
    expect(seqs[0]).toBe(10);
    for (let i = 1; i < seqs.length; i++) expect((seqs[i] ?? 0) - (seqs[i - 1] ?? 0)).toBe(27);
  });
});
