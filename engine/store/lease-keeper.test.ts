// The engine's lease keeper on a real PostgreSQL: it waits out a live owner instead of stealing, serves only
// while a renewal succeeded within the lease's time to live, reports a takeover once, and releases on stop.
import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { holdPartitions, type LeaseKeeperOptions } from "./lease-keeper.js";
import { PartitionLeases, readLeases } from "./leases.js";
import { migratedEngineDatabase } from "./database.testing.js";

const db = migratedEngineDatabase();

/** A logger whose lines the test can read. */
function capturingLog(): { log: LeaseKeeperOptions["log"]; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString("utf8"));
      done();
    },
  });
  return { log: pino({ level: "info" }, stream), lines };
}

const until = async (condition: () => boolean | Promise<boolean>): Promise<void> => {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 10));
};

function options(owner: string, partitions: number[], overrides: Partial<LeaseKeeperOptions> = {}): LeaseKeeperOptions {
  return {
    leases: new PartitionLeases(db.pool, owner, 60_000),
    partitions,
    ttlMs: 60_000,
    renewMs: 20,
    log: capturingLog().log,
    now: () => performance.now(),
    onLost: () => undefined,
    ...overrides,
  };
}

describe("holdPartitions", () => {
  it("waits while another live engine holds a partition, and holds everything once that lease expired", async () => {
    await new PartitionLeases(db.pool, "engine-0-old", 60_000).acquire([2]);
    const { log, lines } = capturingLog();
    const holding = holdPartitions(options("engine-0-new", [0, 2], { log }), new AbortController().signal);
    await until(() => lines.some((line) => line.includes("waiting until they are released or expire")));
    expect(lines.find((line) => line.includes("waiting"))).toContain("engine-0-old");
    // Still the old owner's: waiting never steals.
    expect((await readLeases(db.pool, [2]))[0]?.owner).toBe("engine-0-old");
    await db.pool.query("UPDATE engine_partition_leases SET expires_at = now() WHERE partition = 2");
    const held = await holding;
    expect(held.fence).toEqual({ owner: "engine-0-new", epochs: { 0: 1, 2: 2 } });
    expect(held.serving()).toBe(true);
    await held.release();
  });

  it("stops serving once no renewal succeeded within the TTL, and serves again after the next renewal", async () => {
    let clock = 0;
    const held = await holdPartitions(
      options("engine-0-a", [0], { ttlMs: 1_000, renewMs: 20, now: () => clock }),
      new AbortController().signal,
    );
    expect(held.serving()).toBe(true);
    clock = 1_000;
    // Between renewals: the last success is a TTL old.
    expect(held.serving()).toBe(false);
    await until(() => held.serving());
    await held.release();
  });

  it("reports a partition another owner took (epoch moved) once, and never serves again", async () => {
    const lost: number[][] = [];
    const held = await holdPartitions(
      options("engine-0-a", [0, 2], {
        onLost: (partitions) => {
          lost.push(partitions);
        },
      }),
      new AbortController().signal,
    );
    await db.pool.query("UPDATE engine_partition_leases SET expires_at = now() WHERE partition = 2");
    await new PartitionLeases(db.pool, "engine-0-b", 60_000).acquire([2]);
    await until(() => lost.length > 0);
    expect(lost).toEqual([[2]]);
    expect(held.serving()).toBe(false);
    await held.release();
    // After a loss nothing is released (the engine exits; its other leases run out): 2 stays with its new owner.
    expect((await readLeases(db.pool, [0, 2])).map((r) => [r.owner, r.expired])).toEqual([
      ["engine-0-a", false],
      ["engine-0-b", false],
    ]);
  });

  it("releases its leases on stop, so a successor holds them at once", async () => {
    const first = await holdPartitions(options("engine-0-a", [0, 2]), new AbortController().signal);
    await first.release();
    const second = await holdPartitions(options("engine-0-b", [0, 2]), new AbortController().signal);
    expect(second.fence.epochs).toEqual({ 0: 2, 2: 2 });
    await second.release();
  });

  it("takes leases a stopping owner releases at its next poll, not its next renewal", async () => {
    const first = await holdPartitions(options("engine-0-a", [0, 2]), new AbortController().signal);
    const { log, lines } = capturingLog();
    // Renewals half a minute apart: only the poll can take the released leases while the test runs.
    const waiting = holdPartitions(
      options("engine-0-b", [0, 2], { log, renewMs: 30_000, pollMs: 20 }),
      new AbortController().signal,
    );
    await until(() => lines.some((line) => line.includes("waiting until they are released")));
    await first.release();
    const second = await waiting;
    expect(second.fence).toEqual({ owner: "engine-0-b", epochs: { 0: 2, 2: 2 } });
    // Logged once while waiting, not once per poll.
    expect(lines.filter((line) => line.includes("waiting until")).length).toBe(1);
    await second.release();
  });
});
