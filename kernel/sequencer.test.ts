import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Sequencer, type Page } from "./sequencer.js";

interface Ev {
  sequence: number;
}

/** A log, a queue of live notices and the fetches in flight, stepped by hand. */
class World {
  log: Ev[] = [];
  notices: Ev[] = [];
  fetches: { after: number; resolve: (page: Page<Ev>) => void; snapshot: number }[] = [];
  constructor(readonly pageSize: number) {}

  commit(notify: boolean): void {
    const event = { sequence: this.log.length + 1 };
    this.log.push(event);
    if (notify) this.notices.push(event);
  }

  fetch = (after: number): Promise<Page<Ev>> =>
    new Promise((resolve) => {
      this.fetches.push({ after, resolve, snapshot: this.log.length });
    });

  /** Answers the oldest fetch from the log as it was when asked, or as it is now. */
  answer(now: boolean): void {
    const fetch = this.fetches.shift();
    if (fetch === undefined) return;
    const end = now ? this.log.length : fetch.snapshot;
    const events = this.log.slice(fetch.after, end);
    fetch.resolve({ events: events.slice(0, this.pageSize), hasMore: events.length > this.pageSize });
  }
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function subscriber(world: World, after: number, delivered: number[], maxHeld = 1000): Sequencer<Ev> {
  const sequencer = new Sequencer<Ev>({
    after,
    fetch: world.fetch,
    deliver: (event) => delivered.push(event.sequence),
    fail: (error) => {
      throw error;
    },
    maxHeld,
  });
  sequencer.start();
  return sequencer;
}

/** Answers every fetch and notice until nothing is left. */
async function settle(world: World, subscribers: Sequencer<Ev>[]): Promise<void> {
  for (let round = 0; round < 1000; round++) {
    await tick();
    const notice = world.notices.shift();
    if (notice !== undefined) for (const s of subscribers) s.live(notice);
    else if (world.fetches.length > 0) world.answer(true);
    else return;
  }
  throw new Error("did not settle");
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i + 1);

describe("Sequencer", () => {
  it("reads the log first, then delivers live events in order without duplicates", async () => {
    const world = new World(2);
    for (let i = 0; i < 5; i++) world.commit(false);
    const delivered: number[] = [];
    const s = subscriber(world, 1, delivered);
    world.commit(true); // 6, live while the first read runs
    await settle(world, [s]);
    expect(delivered).toEqual([2, 3, 4, 5, 6]);
    world.commit(true);
    await settle(world, [s]);
    expect(delivered).toEqual([2, 3, 4, 5, 6, 7]);
  });

  it("fills a gap from the log when a live event skips ahead", async () => {
    const world = new World(10);
    const delivered: number[] = [];
    const s = subscriber(world, 0, delivered);
    await settle(world, [s]);
    world.commit(false); // 1: its notice is lost
    world.commit(true); // 2
    await settle(world, [s]);
    expect(delivered).toEqual([1, 2]);
  });

  it("holds at most maxHeld live events during a read and fetches the dropped ones", async () => {
    const world = new World(3);
    const delivered: number[] = [];
    const s = subscriber(world, 0, delivered, 2);
    for (let i = 0; i < 10; i++) world.commit(true);
    for (const notice of world.notices.splice(0)) s.live(notice);
    expect(s.heldCount).toBe(2);
    await settle(world, [s]);
    expect(delivered).toEqual(range(0, 10));
  });

  it("skips a hole the log does not have, once a read begun after the later event found nothing", async () => {
    const world = new World(10);
    const delivered: number[] = [];
    const s = subscriber(world, 0, delivered);
    await settle(world, [s]);
    world.log.push({ sequence: 1 }, { sequence: 3 }); // 2 was pruned
    world.fetch = (after: number) =>
      Promise.resolve({ events: world.log.filter((e) => e.sequence > after), hasMore: false });
    s.live({ sequence: 3 });
    await settle(world, [s]);
    expect(delivered).toEqual([1, 3]);
  });

  it("reads the log again on recheck: events committed without a notice are delivered", async () => {
    const world = new World(10);
    const delivered: number[] = [];
    const s = subscriber(world, 0, delivered);
    await settle(world, [s]);
    world.commit(false);
    world.commit(false);
    await settle(world, [s]);
    expect(delivered).toEqual([]);
    s.recheck();
    await settle(world, [s]);
    expect(delivered).toEqual([1, 2]);
  });

  it("stops delivering once stopped, even when a read answers later", async () => {
    const world = new World(10);
    world.commit(false);
    const delivered: number[] = [];
    const s = subscriber(world, 0, delivered);
    s.stop();
    await settle(world, [s]);
    expect(delivered).toEqual([]);
  });

  it("reports a failed read and delivers nothing more", async () => {
    const failures: unknown[] = [];
    const delivered: number[] = [];
    const s = new Sequencer<Ev>({
      after: 0,
      fetch: () => Promise.reject(new Error("database down")),
      deliver: (e) => delivered.push(e.sequence),
      fail: (error) => failures.push(error),
      maxHeld: 10,
    });
    s.start();
    await tick();
    s.live({ sequence: 1 });
    expect(failures).toHaveLength(1);
    expect(delivered).toEqual([]);
  });

  // The stream's contract: whatever the order of commits, notices (some lost) and reads, and wherever a client
  // reconnects with the last sequence it saw, what it is delivered over all its connections is the log's
  // sequence exactly.
  it("delivers the log's sequence exactly for random interleavings and reconnect points", async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant("commit" as const), lost: fc.boolean() }),
      fc.record({ kind: fc.constant("notice" as const) }),
      fc.record({ kind: fc.constant("answer" as const), now: fc.boolean() }),
      fc.record({ kind: fc.constant("reconnect" as const) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 120 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 1, max: 6 }),
        async (steps, pageSize, before, maxHeld) => {
          const world = new World(pageSize);
          for (let i = 0; i < before; i++) world.commit(false);
          const delivered: number[] = [];
          let current = subscriber(world, 0, delivered, maxHeld);
          for (const s of steps) {
            if (s.kind === "commit") world.commit(!s.lost);
            else if (s.kind === "notice") {
              const notice = world.notices.shift();
              if (notice !== undefined) current.live(notice);
            } else if (s.kind === "answer") world.answer(s.now);
            else {
              current.stop();
              world.fetches = [];
              world.notices = [];
              current = subscriber(world, delivered.at(-1) ?? 0, delivered, maxHeld);
            }
            await tick();
            // Never a duplicate or a hole, at any moment.
            expect(delivered).toEqual(range(0, delivered.length));
          }
          // One more committed event with its notice: any hole left by lost notices is filled.
          world.commit(true);
          await settle(world, [current]);
          expect(delivered).toEqual(range(0, world.log.length));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
