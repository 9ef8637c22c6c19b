// Partition leases and the journal's fence on a real PostgreSQL: acquire, renew, expiry, no stealing of a live
// lease, and a stale owner (expired, or taken over with a new epoch) whose appends write nothing.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { partitionOf } from "../../kernel/partition.js";
import { Journal } from "./journal.js";
import { PartitionLeases, isFenced, readLeases, type Fence } from "./leases.js";
import { migratedEngineDatabase } from "./database.testing.js";

const db = migratedEngineDatabase();

const TTL_MS = 60_000;

/** Expires the leases of `partitions` now, by the database clock (no waiting). */
async function expire(partitions: number[]): Promise<void> {
  await db.pool.query(
    "UPDATE engine_partition_leases SET expires_at = now() - interval '1 second' WHERE partition = ANY($1)",
    [partitions],
  );
}

/** A fresh account id in `partition`. */
function accountIn(partition: number): string {
  for (;;) {
    const id = randomUUID();
    if (partitionOf(id) === partition) return id;
  }
}

function batch(accountId: string, partition: number) {
  return {
    accounts: [{ accountId, userId: "user-1", partition }],
    events: [{ accountId, seq: 1, type: "Opened", payload: JSON.stringify({ type: "Opened" }) }],
    outbox: [
      {
        accountId,
        sequence: 1,
        eventId: randomUUID(),
        type: "account.opened",
        userId: "user-1",
        at: Date.now(),
        data: "{}",
      },
    ],
  };
}

/** What an append wrote; `pending` counts the fan-out queue's entries that match an outbox row. */
async function counts(): Promise<{ accounts: number; events: number; outbox: number; pending: number }> {
  const result = await db.pool.query<{ accounts: string; events: string; outbox: string; pending: string }>(
    `SELECT (SELECT count(*) FROM engine_accounts) AS accounts, (SELECT count(*) FROM engine_events) AS events,
            (SELECT count(*) FROM engine_outbox) AS outbox,
            (SELECT count(*) FROM engine_outbox_pending JOIN engine_outbox USING (created_at, event_id)) AS pending`,
  );
  const row = result.rows[0];
  return {
    accounts: Number(row?.accounts),
    events: Number(row?.events),
    outbox: Number(row?.outbox),
    pending: Number(row?.pending),
  };
}

function fenceOf(owner: string, epochs: Map<number, number>): Fence {
  return { owner, epochs: Object.fromEntries(epochs) };
}

describe("PartitionLeases", () => {
  it("acquires free partitions under epoch 1 and names the owner in the rows", async () => {
    const a = new PartitionLeases(db.pool, "engine-0-a", TTL_MS);
    const taken = await a.acquire([0, 2, 4]);
    expect([...taken]).toEqual([
      [0, 1],
      [2, 1],
      [4, 1],
    ]);
    const rows = await readLeases(db.pool, [0, 2, 4]);
    expect(rows.map((r) => [r.partition, r.owner, r.epoch, r.expired])).toEqual([
      [0, "engine-0-a", 1, false],
      [2, "engine-0-a", 1, false],
      [4, "engine-0-a", 1, false],
    ]);
  });

  it("never lets a second owner take a live lease", async () => {
    const a = new PartitionLeases(db.pool, "engine-0-a", TTL_MS);
    const b = new PartitionLeases(db.pool, "engine-0-b", TTL_MS);
    await a.acquire([0, 2]);
    expect([...(await b.acquire([0, 2, 4]))]).toEqual([[4, 1]]);
    const rows = await readLeases(db.pool, [0, 2, 4]);
    expect(rows.map((r) => [r.owner, r.epoch])).toEqual([
      ["engine-0-a", 1],
      ["engine-0-a", 1],
      ["engine-0-b", 1],
    ]);
  });

  it("renews the leases it holds, moving their expiry forward", async () => {
    const a = new PartitionLeases(db.pool, "engine-0-a", TTL_MS);
    const taken = await a.acquire([0, 2]);
    await db.pool.query("UPDATE engine_partition_leases SET expires_at = now() + interval '1 second'");
    const before = await readLeases(db.pool, [0, 2]);
    expect([...(await a.renew(taken))].sort()).toEqual([0, 2]);
    const after = await readLeases(db.pool, [0, 2]);
    after.forEach((row, i) => {
      expect(row.expiresAt).toBeGreaterThan(before[i]?.expiresAt ?? Infinity);
    });
  });

  it("hands an expired lease to the next owner under a new epoch, and the old owner can no longer renew it", async () => {
    const a = new PartitionLeases(db.pool, "engine-0-a", TTL_MS);
    const b = new PartitionLeases(db.pool, "engine-0-b", TTL_MS);
    const held = await a.acquire([0, 2]);
    await expire([0]);
    expect([...(await b.acquire([0, 2]))]).toEqual([[0, 2]]);
    expect([...(await a.renew(held))]).toEqual([2]);
    const rows = await readLeases(db.pool, [0, 2]);
    expect(rows.map((r) => [r.owner, r.epoch])).toEqual([
      ["engine-0-b", 2],
      ["engine-0-a", 1],
    ]);
  });

  it("renews its own expired lease while nobody took it (the epoch did not move)", async () => {
    const a = new PartitionLeases(db.pool, "engine-0-a", TTL_MS);
    const held = await a.acquire([0]);
    await expire([0]);
    expect([...(await a.renew(held))]).toEqual([0]);
    expect((await readLeases(db.pool, [0])).map((r) => [r.owner, r.epoch, r.expired])).toEqual([
      ["engine-0-a", 1, false],
    ]);
  });

  it("releases its leases on a clean stop, so a successor takes them at once", async () => {
    const a = new PartitionLeases(db.pool, "engine-0-a", TTL_MS);
    const b = new PartitionLeases(db.pool, "engine-0-b", TTL_MS);
    await a.acquire([0, 2]);
    await a.release([0, 2]);
    expect([...(await b.acquire([0, 2]))]).toEqual([
      [0, 2],
      [2, 2],
    ]);
  });
});

describe("the journal's lease fence", () => {
  it("appends while the writer holds every partition of the batch", async () => {
    const a = new PartitionLeases(db.pool, "engine-0-a", TTL_MS);
    const journal = new Journal(db.pool, 100, fenceOf(a.owner, await a.acquire([3])));
    const b = batch(accountIn(3), 3);
    await journal.append(b.accounts, b.events, b.outbox);
    expect(await counts()).toEqual({ accounts: 1, events: 1, outbox: 1, pending: 1 });
  });

  it("refuses a stale owner whose lease was taken over (epoch moved) and writes nothing", async () => {
    const a = new PartitionLeases(db.pool, "engine-0-a", TTL_MS);
    const b = new PartitionLeases(db.pool, "engine-0-b", TTL_MS);
    const stale = new Journal(db.pool, 100, fenceOf(a.owner, await a.acquire([3, 5])));
    await expire([3]);
    await b.acquire([3]);
    // One account on a partition it still holds, one on the partition it lost: the whole statement is refused.
    const kept = batch(accountIn(5), 5);
    const lost = batch(accountIn(3), 3);
    const error: unknown = await stale
      .append([...kept.accounts, ...lost.accounts], [...kept.events, ...lost.events], [...kept.outbox, ...lost.outbox])
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isFenced(error)).toBe(true);
    expect(await counts()).toEqual({ accounts: 0, events: 0, outbox: 0, pending: 0 });
  });

  it("refuses an owner whose lease expired even if nobody took it", async () => {
    const a = new PartitionLeases(db.pool, "engine-0-a", TTL_MS);
    const journal = new Journal(db.pool, 100, fenceOf(a.owner, await a.acquire([3])));
    await expire([3]);
    const b = batch(accountIn(3), 3);
    await expect(journal.append(b.accounts, b.events, b.outbox)).rejects.toMatchObject({ code: "FTS01" });
    expect(await counts()).toEqual({ accounts: 0, events: 0, outbox: 0, pending: 0 });
  });

  it("refuses a batch touching a partition the writer never leased", async () => {
    const a = new PartitionLeases(db.pool, "engine-0-a", TTL_MS);
    const journal = new Journal(db.pool, 100, fenceOf(a.owner, await a.acquire([3])));
    const b = batch(accountIn(4), 4);
    await expect(journal.append(b.accounts, b.events, b.outbox)).rejects.toMatchObject({ code: "FTS01" });
    expect(await counts()).toEqual({ accounts: 0, events: 0, outbox: 0, pending: 0 });
  });

  it("orders an append behind a takeover in flight: it waits for the row lock, sees the new epoch, writes nothing", async () => {
    const a = new PartitionLeases(db.pool, "engine-0-a", TTL_MS);
    // A live lease: without the row lock, the append's snapshot would still show it held by A.
    const journal = new Journal(db.pool, 100, fenceOf(a.owner, await a.acquire([3])));
    const takeover = await db.pool.connect();
    let append: Promise<unknown> | undefined;
    try {
      await takeover.query("BEGIN");
      await takeover.query("SELECT partition FROM engine_partition_leases WHERE partition = 3 FOR UPDATE");
      await takeover.query(
        "UPDATE engine_partition_leases SET owner = 'engine-0-b', epoch = epoch + 1 WHERE partition = 3",
      );
      const b = batch(accountIn(3), 3);
      append = journal.append(b.accounts, b.events, b.outbox).then(
        () => "written",
        (e: unknown) => (isFenced(e) ? "fenced" : e),
      );
      // Wait until the append is blocked on the lease row, then let the takeover commit.
      for (;;) {
        // On its own connection: inside a transaction pg_stat_activity is a snapshot that never changes.
        const waiting = await db.pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity
            WHERE wait_event_type = 'Lock' AND query LIKE '%engine_fence%'`,
        );
        if (Number(waiting.rows[0]?.n) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await takeover.query("COMMIT");
      expect(await append).toBe("fenced");
    } finally {
      takeover.release();
    }
    expect(await counts()).toEqual({ accounts: 0, events: 0, outbox: 0, pending: 0 });
  });
});
