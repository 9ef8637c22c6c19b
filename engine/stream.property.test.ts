// The live stream's contract on the engine's real parts (docs/streaming.md): a shard on a journal in memory posts
// the committed outbox rows of watched accounts, AccountWatches merges them with reads of the outbox, and a
// client reconnects at random points with the last sequence it got. Commits fail at random, some after their
// rows landed (a commit that timed out). Whatever happens, the sequence delivered over all the client's
// connections equals the journal's outbox, event for event, at every moment a prefix of it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createLogger } from "../kernel/log.js";
import type { ActorCore, CoreTypes } from "./shard/core-contract.js";
import { MemoryJournal } from "./shard/shard.testing.js";
import { Shard } from "./shard/shard.js";
import type { EventRow, NewAccountRow, OutboxRow } from "./store/journal.js";
import type { OutboxEvent } from "./webhooks/delivery-log.js";
import { AccountWatches, type Watch } from "./webhooks/watch.js";

interface CounterTypes extends CoreTypes {
  state: { count: number };
  command: { type: "add"; events: number };
  event: { type: "Added"; n: number };
  reply: { count: number };
  query: null;
  queryResult: null;
  update: null;
  market: null;
}

/** Each command adds 1 to 3 events, each with an outbox row. */
const core: ActorCore<CounterTypes> = {
  decide: (state, command) => {
    const from = state?.count ?? 0;
    const events = Array.from({ length: command.events }, (_, i) => ({ type: "Added" as const, n: from + i + 1 }));
    return { events, reply: { count: from + command.events } };
  },
  apply: (_state, event) => ({ count: event.n }),
  query: () => null,
  userId: () => "u1",
  outbox: (state) => [{ type: "counter.added", at: 1, data: JSON.stringify({ count: state.count }) }],
  outboxCount: () => 1,
};

/** Appends that fail, some after their rows landed (a commit that timed out on the client's side). */
class FlakyJournal extends MemoryJournal {
  landNext = 0;
  override append(accounts: readonly NewAccountRow[], events: readonly EventRow[], outbox: readonly OutboxRow[]) {
    if (this.landNext > 0) {
      this.landNext--;
      this.events.push(...events);
      this.outbox.push(...outbox);
      return Promise.reject(new Error("no answer in time"));
    }
    return super.append(accounts, events, outbox);
  }
}

const A = "0a0a0a0a-0000-4000-8000-000000000001";
const B = "0a0a0a0a-0000-4000-8000-000000000002";
const settle = async (): Promise<void> => {
  for (let i = 0; i < 30; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("the account stream over a shard and the outbox", () => {
  it("delivers exactly the journal's outbox sequence across random commits, failures and reconnects", async () => {
    const step = fc.oneof(
      fc.record({
        kind: fc.constant("command" as const),
        account: fc.constantFrom(A, B),
        events: fc.integer({ min: 1, max: 3 }),
      }),
      fc.record({ kind: fc.constant("fail" as const), landed: fc.boolean() }),
      fc.record({ kind: fc.constant("reconnect" as const) }),
      fc.record({ kind: fc.constant("wait" as const) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 4 }),
        async (steps, pageSize) => {
          const journal = new FlakyJournal();
          const shard = new Shard<CounterTypes>({
            shard: 0,
            shards: 1,
            core,
            journal,
            maxBatch: 8,
            close: () => Promise.resolve(),
            notify: (notice) => {
              if (notice.kind === "outbox") watches.committed(notice.rows);
              if (notice.kind === "outboxUncertain") watches.uncertain(notice.accounts);
            },
          });
          let requestId = 1;
          const rowsOf = (accountId: string): OutboxRow[] => journal.outbox.filter((r) => r.accountId === accountId);
          const watches = new AccountWatches({
            source: {
              watch: async (accountId, on) => {
                await shard.enqueue({ kind: "watch", requestId: requestId++, accountId, on });
              },
            },
            store: {
              checkOwner: () => Promise.resolve(),
              lastSequence: (accountId) => Promise.resolve(rowsOf(accountId).length),
              listEvents: async (_u, accountId, after, limit) => {
                await new Promise((resolve) => setImmediate(resolve));
                const events: OutboxEvent[] = rowsOf(accountId)
                  .filter((r) => r.sequence > after)
                  .map((r) => ({
                    eventId: r.eventId,
                    type: r.type,
                    accountId,
                    sequence: r.sequence,
                    createdAt: r.at,
                    data: r.data,
                  }));
                return { events: events.slice(0, limit), hasMore: events.length > limit };
              },
            },
            log: createLogger("test", "silent"),
            pageSize,
            recheckDelaysMs: [],
          });
          const delivered: OutboxEvent[] = [];
          const open = (after: number): Promise<Watch> =>
            watches.open("u1", A, after, {
              send: (e) => delivered.push(e),
              fail: (error) => {
                throw error;
              },
            });
          let watch = await open(0);
          const pending: Promise<unknown>[] = [];
          for (const s of steps) {
            if (s.kind === "command") {
              pending.push(
                shard.enqueue({
                  kind: "command",
                  requestId: requestId++,
                  to: { accountId: s.account },
                  command: { type: "add", events: s.events },
                }),
              );
            } else if (s.kind === "fail") {
              if (s.landed) journal.landNext = 1;
              else journal.failNext = 1;
            } else if (s.kind === "reconnect") {
              watch.close();
              watch = await open(delivered.at(-1)?.sequence ?? 0);
            } else await settle();
            expect(delivered.map((e) => e.sequence)).toEqual(
              rowsOf(A)
                .slice(0, delivered.length)
                .map((r) => r.sequence),
            );
          }
          await Promise.allSettled(pending);
          await settle();
          // Nothing committed is left undelivered, not even rows whose commit reported a failure.
          expect(delivered.map((e) => e.sequence)).toEqual(rowsOf(A).map((r) => r.sequence));
          journal.failNext = 0;
          journal.landNext = 0;
          await shard.enqueue({
            kind: "command",
            requestId: requestId++,
            to: { accountId: A },
            command: { type: "add", events: 1 },
          });
          await settle();
          const expected = rowsOf(A).map((r) => [r.sequence, r.eventId, r.data]);
          expect(expected.map(([s]) => s)).toEqual(expected.map((_, i) => i + 1));
          expect(delivered.map((e) => [e.sequence, e.eventId, e.data])).toEqual(expected);
          watch.close();
        },
      ),
      { numRuns: 150 },
    );
  });
});
