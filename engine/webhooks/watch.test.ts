// The engine's account watches (docs/streaming.md): owner checked before anything, the shard told to watch
// before the starting sequence is read, outbox catch-up then live rows in order, a failed commit's recheck,
// and the shard's watch released on close.
import { describe, expect, it } from "vitest";
import { ServiceError } from "../../kernel/errors.js";
import { createLogger } from "../../kernel/log.js";
import type { OutboxRow } from "../store/journal.js";
import type { OutboxEvent } from "./delivery-log.js";
import { AccountWatches, type WatchStore } from "./watch.js";

const A = "0a0a0a0a-0000-4000-8000-000000000001";
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function row(sequence: number): OutboxRow {
  return {
    accountId: A,
    sequence,
    eventId: `e${sequence}`,
    type: "order.ack",
    userId: "u1",
    at: 1_000,
    data: `{"n":${sequence}}`,
  };
}

/** `whileReadingLast` runs after the last sequence was read and before the read answers. */
function setUp(whileReadingLast?: () => void) {
  const outbox: OutboxEvent[] = [];
  const calls: string[] = [];
  const store: WatchStore = {
    checkOwner: (userId) => (userId === "u1" ? Promise.resolve() : Promise.reject(new ServiceError("not_found"))),
    lastSequence: () => {
      calls.push("last");
      const last = outbox.length;
      whileReadingLast?.();
      return Promise.resolve(last);
    },
    listEvents: (_u, _a, after, limit) => {
      const events = outbox.filter((e) => e.sequence > after);
      return Promise.resolve({ events: events.slice(0, limit), hasMore: events.length > limit });
    },
  };
  const source = {
    watch: (accountId: string, on: boolean) => {
      calls.push(`${on ? "watch" : "unwatch"} ${accountId}`);
      return Promise.resolve();
    },
  };
  const watches = new AccountWatches({
    source,
    store,
    log: createLogger("test", "silent"),
    pageSize: 2,
    recheckDelaysMs: [],
  });
  const commit = (sequence: number, notify = true): void => {
    const r = row(sequence);
    outbox.push({ eventId: r.eventId, type: r.type, accountId: A, sequence, createdAt: r.at, data: r.data });
    if (notify) watches.committed([r]);
  };
  return { watches, calls, commit };
}

describe("AccountWatches", () => {
  it("refuses another user's account before watching anything", async () => {
    const { watches, calls } = setUp();
    await expect(watches.open("u2", A, 0, { send: () => undefined, fail: () => undefined })).rejects.toMatchObject({
      code: "not_found",
    });
    expect(calls).toEqual([]);
  });

  it("from the last event on: one committed while the last sequence was read, its notice before the watch was listed, is delivered at once", async () => {
    let commitNow = (): void => undefined;
    const { watches, commit } = setUp(() => {
      commitNow();
    });
    for (let s = 1; s <= 3; s++) commit(s, false);
    commitNow = () => {
      commitNow = () => undefined;
      commit(4);
    };
    const got: number[] = [];
    const watch = await watches.open("u1", A, undefined, { send: (e) => got.push(e.sequence), fail: () => undefined });
    expect(watch.after).toBe(3);
    await tick();
    await tick();
    expect(got).toEqual([4]);
    commit(5);
    await tick();
    expect(got).toEqual([4, 5]);
    watch.close();
  });

  it("reads the outbox after `after`, then delivers live rows in order, and unwatches on close", async () => {
    const { watches, calls, commit } = setUp();
    for (let s = 1; s <= 5; s++) commit(s, false);
    const got: number[] = [];
    const watch = await watches.open("u1", A, 1, { send: (e) => got.push(e.sequence), fail: () => undefined });
    commit(6);
    await tick();
    await tick();
    await tick();
    commit(7);
    await tick();
    expect(got).toEqual([2, 3, 4, 5, 6, 7]);
    watch.close();
    await tick();
    expect(calls).toEqual([`watch ${A}`, `unwatch ${A}`]);
    expect(watches.size).toBe(0);
  });

  it("starts after the last committed event when no `after` is given, read once the shard watches", async () => {
    const { watches, calls, commit } = setUp();
    commit(1, false);
    const got: number[] = [];
    const watch = await watches.open("u1", A, undefined, { send: (e) => got.push(e.sequence), fail: () => undefined });
    expect(watch.after).toBe(1);
    expect(calls).toEqual([`watch ${A}`, "last"]);
    commit(2);
    // Held while the read after the start runs (it finds nothing), then delivered.
    await tick();
    await tick();
    expect(got).toEqual([2]);
    watch.close();
  });

  it("reads the outbox again for a watched account whose commit failed (it may have landed)", async () => {
    const { watches, commit } = setUp();
    const got: number[] = [];
    const watch = await watches.open("u1", A, undefined, { send: (e) => got.push(e.sequence), fail: () => undefined });
    commit(1, false); // landed, but no notice
    watches.uncertain([A]);
    await tick();
    await tick();
    expect(got).toEqual([1]);
    watch.close();
  });
});
