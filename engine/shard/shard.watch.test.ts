// Live outbox notices (docs/streaming.md): a shard posts the committed outbox rows of the accounts it was told
// to watch, as one notice per batch, before the batch's answers; nothing for accounts nobody watches; and the
// watched accounts of a batch whose commit failed, so their watchers read the outbox again.
import { describe, expect, it } from "vitest";
import type { ActorCore, CoreTypes } from "./core-contract.js";
import type { ShardNotice } from "./protocol.js";
import { MemoryJournal } from "./shard.testing.js";
import { Shard } from "./shard.js";

interface CounterTypes extends CoreTypes {
  state: { count: number };
  command: { type: "add" };
  event: { type: "Added"; n: number };
  reply: { count: number };
  query: null;
  queryResult: null;
  update: null;
  market: null;
}

const core: ActorCore<CounterTypes> = {
  decide: (state) => ({
    events: [{ type: "Added", n: (state?.count ?? 0) + 1 }],
    reply: { count: (state?.count ?? 0) + 1 },
  }),
  apply: (_state, event) => ({ count: event.n }),
  query: () => null,
  userId: () => "user-1",
  outbox: (state) => [{ type: "counter.added", at: 1, data: JSON.stringify({ count: state.count }) }],
};

const A = "0a0a0a0a-0000-4000-8000-000000000001";
const B = "0a0a0a0a-0000-4000-8000-000000000002";

function start(journal: MemoryJournal): { shard: Shard<CounterTypes>; notices: ShardNotice[]; send: Send } {
  const notices: ShardNotice[] = [];
  const shard = new Shard<CounterTypes>({
    shard: 0,
    shards: 1,
    core,
    journal,
    maxBatch: 64,
    close: () => Promise.resolve(),
    notify: (notice) => {
      if (notice.kind !== "log") notices.push(notice);
    },
  });
  let requestId = 1;
  const send: Send = (accountId) =>
    shard.enqueue({ kind: "command", requestId: requestId++, to: { accountId }, command: { type: "add" } });
  return { shard, notices, send };
}
type Send = (accountId: string) => Promise<unknown>;

describe("shard outbox notices", () => {
  it("posts nothing while no account is watched", async () => {
    const { notices, send } = start(new MemoryJournal());
    await Promise.all([send(A), send(B)]);
    expect(notices).toEqual([]);
  });

  it("posts the watched accounts' committed rows, one notice per batch, before the answers", async () => {
    const { shard, notices, send } = start(new MemoryJournal());
    await shard.enqueue({ kind: "watch", requestId: 100, accountId: A, on: true });
    const answered = Promise.all([send(A), send(B), send(A)]).then(() => notices.length);
    expect(await answered).toBe(1);
    expect(notices).toEqual([
      {
        kind: "outbox",
        shard: 0,
        rows: [
          expect.objectContaining({ accountId: A, sequence: 1, type: "counter.added", data: '{"count":1}' }),
          expect.objectContaining({ accountId: A, sequence: 2, data: '{"count":2}' }),
        ],
      },
    ]);
  });

  it("counts watches: the account is posted until its last watch stops", async () => {
    const { shard, notices, send } = start(new MemoryJournal());
    await shard.enqueue({ kind: "watch", requestId: 100, accountId: A, on: true });
    await shard.enqueue({ kind: "watch", requestId: 101, accountId: A, on: true });
    await shard.enqueue({ kind: "watch", requestId: 102, accountId: A, on: false });
    await send(A);
    expect(notices).toHaveLength(1);
    await shard.enqueue({ kind: "watch", requestId: 103, accountId: A, on: false });
    await send(A);
    expect(notices).toHaveLength(1);
  });

  it("names the watched accounts of a batch whose commit failed", async () => {
    const journal = new MemoryJournal();
    const { shard, notices, send } = start(journal);
    await shard.enqueue({ kind: "watch", requestId: 100, accountId: A, on: true });
    journal.failNext = 1;
    await Promise.allSettled([send(A), send(B)]);
    expect(notices).toEqual([{ kind: "outboxUncertain", shard: 0, accounts: [A] }]);
  });
});
