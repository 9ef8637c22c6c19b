// A standby's choice of a dead engine's index (docs/scale-out.md, "Standbys") on a real PostgreSQL: it leaves
// live and never-leased indices alone, takes a lapsed index whole under a new epoch (never part of one, never
// two), two standbys racing for one index do not split it, and the lease keeper holds what it took at once.
import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { partitionsOfEngine } from "../../kernel/partition.js";
import { migratedEngineDatabase } from "./database.testing.js";
import { holdPartitions } from "./lease-keeper.js";
import { PartitionLeases, readLeases } from "./leases.js";
import { takeDeadIndex, type StandbyOptions } from "./standby.js";

const db = migratedEngineDatabase(8);
const ENGINES = 2;
const TTL_MS = 60_000;

const quiet = pino(
  { level: "silent" },
  new Writable({
    write: (_chunk, _encoding, done) => {
      done();
    },
  }),
);

function standby(owner: string): StandbyOptions {
  return {
    leases: new PartitionLeases(db.pool, owner, TTL_MS),
    engines: ENGINES,
    pollMs: 10,
    log: quiet,
    now: () => performance.now(),
  };
}

/** Engine `index`'s partitions leased to `owner` (live for a minute). */
const lease = (owner: string, index: number): Promise<Map<number, number>> =>
  new PartitionLeases(db.pool, owner, TTL_MS).acquire(partitionsOfEngine(index, ENGINES));

/** Engine `index`'s leases lapse, as after a kill -9 once ENGINE_LEASE_TTL_MS passed. */
const lapse = async (index: number): Promise<void> => {
  await db.pool.query("UPDATE engine_partition_leases SET expires_at = now() WHERE partition % $1 = $2", [
    ENGINES,
    index,
  ]);
};

const owners = async (index: number): Promise<string[]> => [
  ...new Set((await readLeases(db.pool, partitionsOfEngine(index, ENGINES))).map((row) => row.owner)),
];

/** Lets a few polls pass. */
const polls = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 100));

describe("takeDeadIndex", () => {
  it("waits while every index is live, then takes the one whose leases lapsed, whole, under a new epoch", async () => {
    await lease("engine-0-a", 0);
    await lease("engine-1-a", 1);
    const stop = new AbortController();
    let took: Awaited<ReturnType<typeof takeDeadIndex>> | undefined;
    const taking = takeDeadIndex(standby("engine-standby-a"), stop.signal).then((taken) => {
      took = taken;
    });
    await polls();
    expect(took).toBeUndefined();
    await lapse(1);
    await taking;
    expect(took?.index).toBe(1);
    expect(took?.partitions).toEqual(partitionsOfEngine(1, ENGINES));
    expect(new Set(took?.epochs.values())).toEqual(new Set([2]));
    expect(await owners(1)).toEqual(["engine-standby-a"]);
    expect(await owners(0)).toEqual(["engine-0-a"]);
  });

  it("leaves an index never leased to its own engine, and an index only partly lapsed to its owner", async () => {
    await lease("engine-1-a", 1);
    // One partition of index 1 lapsed, the others live: nothing of it may be taken.
    await db.pool.query("UPDATE engine_partition_leases SET expires_at = now() WHERE partition = 1");
    const stop = new AbortController();
    const taking = takeDeadIndex(standby("engine-standby-a"), stop.signal).catch((error: unknown) => error);
    await polls();
    stop.abort();
    expect(await taking).toBeInstanceOf(Error);
    expect(await readLeases(db.pool, partitionsOfEngine(0, ENGINES))).toEqual([]);
    expect(await owners(1)).toEqual(["engine-1-a"]);
  });

  it("lets two standbys racing for one lapsed index split nothing: one takes it all, the other keeps waiting", async () => {
    await lease("engine-0-a", 0);
    await lease("engine-1-a", 1);
    await lapse(1);
    const stop = new AbortController();
    let resolved = 0;
    const racing = ["a", "b"].map((name) =>
      takeDeadIndex(standby(`engine-standby-${name}`), stop.signal).then(
        () => resolved++,
        () => undefined,
      ),
    );
    while (!(await owners(1)).every((owner) => owner.startsWith("engine-standby-"))) await polls();
    await polls();
    expect(resolved).toBe(1);
    stop.abort();
    await Promise.all(racing);
    const winner = await owners(1);
    expect(winner).toHaveLength(1);
    expect(winner[0]).toMatch(/^engine-standby-[ab]$/);
    expect(await owners(0)).toEqual(["engine-0-a"]);
  });

  it("hands what it took to the lease keeper, which holds it at once and renews it", async () => {
    await lease("engine-0-a", 0);
    await lapse(0);
    const taken = await takeDeadIndex(standby("engine-standby-a"), new AbortController().signal);
    const held = await holdPartitions(
      {
        leases: new PartitionLeases(db.pool, "engine-standby-a", TTL_MS),
        partitions: taken.partitions,
        ttlMs: TTL_MS,
        renewMs: 20,
        log: quiet,
        now: () => performance.now(),
        onLost: () => undefined,
        taken: taken.epochs,
      },
      new AbortController().signal,
    );
    expect(held.fence.owner).toBe("engine-standby-a");
    expect(Object.keys(held.fence.epochs)).toHaveLength(128);
    expect(new Set(Object.values(held.fence.epochs))).toEqual(new Set([2]));
    expect(held.serving()).toBe(true);
    await held.release();
    expect((await readLeases(db.pool, [0]))[0]?.expired).toBe(true);
  });
});
