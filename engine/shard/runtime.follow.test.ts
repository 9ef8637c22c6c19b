// A standby's shards follow the journal (docs/scale-out.md, "Standbys"), on PostgreSQL: shards started with
// `follow` rebuild, then apply every event an owner journals, each exactly once; they refuse every command (also
// one that reaches the shard) and append nothing; once the owner stopped and the standby holds the leases,
// `serve` reads exactly what was not applied yet, and the shards then serve the owner's books, their appends
// fenced by the leases `serve` brought.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../test/harness/eventually.js";
import { startPostgres, type PostgresServer } from "../../test/harness/postgres.js";
import { freshDatabase, withPool } from "../store/fresh-database.testing.js";
import { PartitionLeases, type Fence } from "../store/leases.js";
import { migrateEngine } from "../store/schema.js";
import type { LedgerState, LedgerTypes } from "./ledger-core.testing.js";
import type { Followed, ShardRuntime } from "./runtime.js";
import { openAll, startLedger, stateOf } from "./runtime.testing.js";

const ALL_PARTITIONS = Array.from({ length: 256 }, (_, p) => p);

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});

afterAll(async () => {
  await server.stop();
});

/** Takes every partition for `owner` (each free or expired), as a lease keeper does; its fence. */
async function take(url: string, owner: string): Promise<{ fence: Fence; release: () => Promise<void> }> {
  return withPool(url, async (pool) => {
    await migrateEngine(pool);
    const leases = new PartitionLeases(pool, owner, 600_000);
    const epochs = await leases.acquire(ALL_PARTITIONS);
    expect(epochs.size).toBe(ALL_PARTITIONS.length);
    return {
      fence: { owner, epochs: Object.fromEntries(epochs) },
      release: () => withPool(url, (p) => new PartitionLeases(p, owner, 600_000).release(ALL_PARTITIONS)),
    };
  });
}

const journaled = (url: string): Promise<number> =>
  withPool(url, async (pool) => {
    const { rows } = await pool.query<{ n: string }>("SELECT count(*) AS n FROM engine_events");
    return Number(rows[0]?.n);
  });

async function deposits(runtime: ShardRuntime<LedgerTypes>, ids: readonly string[], each: number): Promise<void> {
  for (let n = 0; n < each; n++) {
    await Promise.all(ids.map((id) => runtime.command(id, { type: "deposit", amount: n + 1 })));
  }
}

async function states(runtime: ShardRuntime<LedgerTypes>, ids: readonly string[]): Promise<(LedgerState | null)[]> {
  return Promise.all(ids.map((id) => stateOf(runtime, id)));
}

describe("a following runtime", () => {
  it("applies every event of the owner once, decides nothing, and serves the owner's books after serve", async () => {
    const url = await freshDatabase(server.url);
    const ownerLeases = await take(url, "owner-a");
    const owner = await startLedger(url, { fence: ownerLeases.fence });
    const follower = { steps: [] as Followed[], runtime: undefined as ShardRuntime<LedgerTypes> | undefined };
    try {
      const ids = Array.from({ length: 16 }, () => randomUUID());
      // Before the follower starts: its rebuild reads these.
      await openAll(owner, ids.slice(0, 8));
      await deposits(owner, ids.slice(0, 8), 2);
      const standby = await startLedger(url, {
        migrate: false,
        // The routing lets calls through: the shards themselves must refuse them.
        serving: () => true,
        follow: { everyMs: 20, onStep: (step) => follower.steps.push(step) },
      });
      follower.runtime = standby;
      const applied = (): number => follower.steps.reduce((sum, step) => sum + step.events, 0);

      // After: the follower's steps apply them, each once.
      await openAll(owner, ids.slice(8));
      await deposits(owner, ids, 3);
      const afterStart = 8 + 16 * 3;
      await eventually(() => Promise.resolve(applied() >= afterStart), "the follower applied the owner's events");
      expect(applied()).toBe(afterStart);

      // It decides nothing: a command and a query reaching its shards are refused, and nothing is journaled.
      const before = await journaled(url);
      await expect(standby.command(ids[0] ?? "", { type: "deposit", amount: 5 })).rejects.toMatchObject({
        code: "engine_not_serving",
      });
      await expect(stateOf(standby, ids[0] ?? "")).rejects.toMatchObject({ code: "engine_not_serving" });
      expect(await journaled(url)).toBe(before);

      // The owner's last writes, then it stops and the standby takes the leases and serves.
      await deposits(owner, ids.slice(0, 4), 5);
      const books = await states(owner, ids);
      await owner.stop();
      await ownerLeases.release();
      const standbyLeases = await take(url, "standby-b");
      const caughtUp = await standby.serve(standbyLeases.fence);
      // Exactly the events no step applied: every event after its rebuild, once.
      expect(applied() + caughtUp.events).toBe(afterStart + 4 * 5);
      expect(caughtUp.events).toBeLessThanOrEqual(4 * 5);
      expect(await states(standby, ids)).toEqual(books);

      // It serves, appending under the leases it was given.
      const reply = await standby.command(ids[0] ?? "", { type: "deposit", amount: 7 });
      expect(reply).toMatchObject({ ok: true });
      expect((await stateOf(standby, ids[0] ?? ""))?.balance).toBe((books[0]?.balance ?? 0) + 7);
      expect(await journaled(url)).toBe(before + 4 * 5 + 1);
      await expect(standby.serve(standbyLeases.fence)).resolves.toEqual(caughtUp);
    } finally {
      await owner.stop();
      await follower.runtime?.stop();
    }
  });

  it("serves with the fence from a thread started in place of a failed one after serve", async () => {
    const url = await freshDatabase(server.url);
    const first = await take(url, "owner-a");
    const owner = await startLedger(url, { fence: first.fence });
    const ids = Array.from({ length: 6 }, () => randomUUID());
    await openAll(owner, ids);
    await deposits(owner, ids, 2);
    const books = await states(owner, ids);
    await owner.stop();
    await first.release();
    const standby = await startLedger(url, { migrate: false, follow: { everyMs: 20 } });
    try {
      const leases = await take(url, "standby-b");
      await standby.serve(leases.fence);
      const [crashing] = ids as [string];
      await expect(standby.command(crashing, { type: "crash" })).rejects.toMatchObject({ code: "engine_error" });
      // piscina's new thread serves (not following), rebuilt, and appends under the standby's leases.
      expect(await states(standby, ids)).toEqual(books);
      expect(await standby.command(crashing, { type: "deposit", amount: 4 })).toMatchObject({ ok: true });
      await leases.release();
      // Fenced: without the leases its appends are refused.
      await expect(standby.command(crashing, { type: "deposit", amount: 4 })).rejects.toBeDefined();
    } finally {
      await standby.stop();
    }
  });

  it("appends under the fence serve brings: a stale one writes nothing", async () => {
    const url = await freshDatabase(server.url);
    const first = await take(url, "owner-a");
    const owner = await startLedger(url, { fence: first.fence });
    const id = randomUUID();
    await openAll(owner, [id]);
    await owner.stop();
    await first.release();
    // Another engine took the partitions since `first` was held: a standby serving with `first` is fenced out.
    const second = await take(url, "owner-b");
    const standby = await startLedger(url, { migrate: false, follow: { everyMs: 20 } });
    try {
      await standby.serve(first.fence);
      const before = await journaled(url);
      await expect(standby.command(id, { type: "deposit", amount: 1 })).rejects.toBeDefined();
      expect(await journaled(url)).toBe(before);
      await second.release();
    } finally {
      await standby.stop();
    }
  });

  it("stops while following without writing", async () => {
    const url = await freshDatabase(server.url);
    const owner = await startLedger(url);
    const ids = Array.from({ length: 4 }, () => randomUUID());
    await openAll(owner, ids);
    const standby = await startLedger(url, { migrate: false, follow: { everyMs: 20 } });
    const before = await journaled(url);
    await standby.stop();
    await expect(standby.serve({ owner: "x", epochs: {} })).rejects.toMatchObject({ code: "engine_not_serving" });
    await owner.stop();
    expect(await journaled(url)).toBe(before);
  });
});
