import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startPostgres, type PostgresServer } from "../../test/harness/postgres.js";
import type { ShardMetrics } from "./runtime.js";
import { freshDatabase, withPool } from "../store/fresh-database.testing.js";
import { accountsOnShard, openAll, startLedger } from "./runtime.testing.js";

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});

afterAll(async () => {
  await server.stop();
});

async function eventTypes(url: string, accountId: string): Promise<[number, string][]> {
  const rows = await withPool(url, (pool) =>
    pool.query<{ seq: string; type: string }>(
      "SELECT seq, type FROM engine_events WHERE account_id = $1 ORDER BY seq",
      [accountId],
    ),
  );
  return rows.rows.map((r) => [Number(r.seq), r.type]);
}

describe("a failed commit", () => {
  it("fails every reply of its batch and leaves no ghost state", async () => {
    const url = await freshDatabase(server.url);
    let failedCommits = 0;
    const metrics: ShardMetrics = {
      stats: (notice) => (failedCommits += notice.batches.commitFailed.count),
    };
    const runtime = await startLedger(url, { metrics, statsIntervalMs: 50 });
    try {
      const [a, b, c] = accountsOnShard(0, 2, 3) as [string, string, string];
      await openAll(runtime, [a, b, c]);
      await runtime.command(a, { type: "deposit", amount: 100 });
      await runtime.command(b, { type: "deposit", amount: 100 });

      // Hold the shard so the next three messages wait on its port and are decided as one batch.
      const spin = runtime.command(a, { type: "spin", ms: 300 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const results = await Promise.allSettled([
        runtime.command(a, { type: "deposit", amount: 10 }),
        runtime.command(b, { type: "withdraw", amount: 30 }),
        runtime.command(c, { type: "poison" }),
      ]);
      expect(await spin).toMatchObject({ ok: true });
      // All three were decided in one batch: the poison's failed commit took the other two with it.
      for (const result of results) {
        expect(result.status).toBe("rejected");
        if (result.status === "rejected") expect(result.reason).toMatchObject({ code: "engine_error" });
      }
      // The batch figures come with the shard's next stats notice, so the metric trails the replies.
      await vi.waitFor(() => {
        expect(failedCommits).toBe(1);
      });

      // The decided-but-uncommitted events are gone from memory and from the journal.
      expect(await runtime.query(a, { type: "state" })).toMatchObject({ balance: 100 });
      expect(await runtime.query(b, { type: "state" })).toMatchObject({ balance: 100 });
      expect(await eventTypes(url, c)).toEqual([[1, "Opened"]]);

      // The accounts go on from the journal: the next seq is the right one.
      expect(await runtime.command(a, { type: "deposit", amount: 5 })).toMatchObject({ ok: true, balance: 105 });
      expect(await runtime.command(c, { type: "deposit", amount: 1 })).toMatchObject({ ok: true, balance: 1 });
      expect(await eventTypes(url, a)).toEqual([
        [1, "Opened"],
        [2, "Deposited"],
        [3, "Deposited"],
      ]);

      const fresh = await startLedger(url);
      try {
        expect(await fresh.query(a, { type: "state" })).toMatchObject({ balance: 105 });
        expect(await fresh.query(b, { type: "state" })).toMatchObject({ balance: 100 });
      } finally {
        await fresh.stop();
      }
    } finally {
      await runtime.stop();
    }
  });

  it("fails while the journal is unavailable and recovers, without ghosts, when it is back", async () => {
    const url = await freshDatabase(server.url);
    const runtime = await startLedger(url);
    try {
      const id = randomUUID();
      await runtime.command(id, { type: "open", userId: "u" });
      await runtime.command(id, { type: "deposit", amount: 50 });
      await withPool(url, (pool) => pool.query("ALTER TABLE engine_events RENAME TO engine_events_away"));

      await expect(runtime.command(id, { type: "deposit", amount: 7 })).rejects.toMatchObject({ code: "engine_error" });
      // The account is reloaded before its next use, which fails too while the table is away.
      await expect(runtime.query(id, { type: "state" })).rejects.toMatchObject({ code: "engine_error" });

      await withPool(url, (pool) => pool.query("ALTER TABLE engine_events_away RENAME TO engine_events"));
      expect(await runtime.query(id, { type: "state" })).toMatchObject({ balance: 50 });
      expect(await runtime.command(id, { type: "deposit", amount: 7 })).toMatchObject({ ok: true, balance: 57 });
    } finally {
      await runtime.stop();
    }
  });
});

describe("a shard thread that dies", () => {
  it("fails every request of its task with engine_error, and the shard goes on from the journal", async () => {
    const url = await freshDatabase(server.url);
    const handovers: number[] = [];
    const runtime = await startLedger(url, { metrics: { handover: (_shard, requests) => handovers.push(requests) } });
    try {
      const [a, b] = accountsOnShard(0, 2, 2) as [string, string];
      await openAll(runtime, [a, b]);
      await runtime.command(a, { type: "deposit", amount: 10 });
      handovers.length = 0;
      // One turn, one task: the thread ends while it decides the second request.
      const results = await Promise.allSettled([
        runtime.command(a, { type: "deposit", amount: 5 }),
        runtime.command(b, { type: "crash" }),
        runtime.query(a, { type: "state" }),
        runtime.command(b, { type: "deposit", amount: 1 }),
      ]);
      expect(handovers).toEqual([4]);
      for (const result of results) {
        expect(result.status).toBe("rejected");
        if (result.status === "rejected") {
          expect(result.reason).toMatchObject({ code: "engine_error", message: "shard unavailable" });
        }
      }
      // piscina starts a new thread for the shard; it rebuilds from the journal, where the deposit never got.
      expect(await runtime.query(a, { type: "state" })).toMatchObject({ balance: 10 });
      expect(await runtime.command(b, { type: "deposit", amount: 3 })).toMatchObject({ ok: true, balance: 3 });
    } finally {
      await runtime.stop();
    }
  });
});

describe("an apply that throws", () => {
  it("drops its whole batch and reloads the half-applied account", async () => {
    const url = await freshDatabase(server.url);
    const runtime = await startLedger(url);
    try {
      const [a, b] = accountsOnShard(1, 2, 2) as [string, string];
      await openAll(runtime, [a, b]);
      const spin = runtime.command(a, { type: "spin", ms: 300 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const results = await Promise.allSettled([
        runtime.command(b, { type: "deposit", amount: 3 }),
        runtime.command(a, { type: "break" }),
      ]);
      expect(await spin).toMatchObject({ ok: true });
      expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
      // `break` applied a deposit of 1 before the throw: it is gone with the rest of the batch.
      expect(await runtime.query(a, { type: "state" })).toMatchObject({ balance: 0 });
      expect(await runtime.query(b, { type: "state" })).toMatchObject({ balance: 0 });
      expect(await runtime.command(a, { type: "deposit", amount: 2 })).toMatchObject({ ok: true, balance: 2 });
      expect(await eventTypes(url, a)).toEqual([
        [1, "Opened"],
        [2, "Deposited"],
      ]);
    } finally {
      await runtime.stop();
    }
  });
});

describe("a second owner", () => {
  it("is refused on the duplicate seq, never applied twice, and the loser reloads the account", async () => {
    const url = await freshDatabase(server.url);
    const first = await startLedger(url);
    // Both runtimes own every partition: the situation the (account_id, seq) key exists to catch.
    const second = await startLedger(url);
    try {
      const id = randomUUID();
      await first.command(id, { type: "open", userId: "u" });
      const late = await startLedger(url);
      try {
        // `late` rebuilt after the open; `first` deposits, `late` does not know and collides on seq 2.
        expect(await first.command(id, { type: "deposit", amount: 100 })).toMatchObject({ ok: true, balance: 100 });
        await expect(late.command(id, { type: "deposit", amount: 50 })).rejects.toMatchObject({ code: "engine_error" });
        expect(await eventTypes(url, id)).toEqual([
          [1, "Opened"],
          [2, "Deposited"],
        ]);
        // The refused owner reloaded the account from the journal and continues after seq 2.
        expect(await late.command(id, { type: "deposit", amount: 50 })).toMatchObject({ ok: true, balance: 150 });
        // `second` never saw the account at all: its open collides on the account row.
        await expect(second.command(id, { type: "open", userId: "x" })).rejects.toMatchObject({ code: "engine_error" });
        expect(await second.query(id, { type: "state" })).toMatchObject({ userId: "u", balance: 150 });
      } finally {
        await late.stop();
      }
      const sums = await withPool(url, (pool) =>
        pool.query<{ n: string; total: string }>(
          "SELECT count(*) AS n, sum((payload->>'amount')::int) AS total FROM engine_events WHERE account_id = $1 AND type = 'Deposited'",
          [id],
        ),
      );
      expect(sums.rows[0]).toEqual({ n: "2", total: "150" });
    } finally {
      await second.stop();
      await first.stop();
    }
  });
});
