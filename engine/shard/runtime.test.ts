import { randomUUID } from "node:crypto";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ServiceError } from "../../kernel/errors.js";
import { startPostgres, type PostgresServer } from "../../test/harness/postgres.js";
import { partitionOf, shardOf } from "../../kernel/partition.js";
import type { BatchStats } from "./batch-stats.js";
import type { ShardNotice } from "./protocol.js";
import type { ShardMetrics } from "./runtime.js";
import type { LedgerReply } from "./ledger-core.testing.js";
import { freshDatabase, withPool } from "../store/fresh-database.testing.js";
import { accountsOnShard, openAll, startLedger, stateOf } from "./runtime.testing.js";
import { mulberry32 } from "../../kernel/random.js";
import { engineMetrics } from "../metrics.js";

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});

afterAll(async () => {
  await server.stop();
});

/** A deterministic shuffle (mulberry32), so a failure replays. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = mulberry32(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

function expectOk(reply: LedgerReply): Extract<LedgerReply, { ok: true }> {
  if (!reply.ok) throw new Error(`expected ok, got ${reply.error}`);
  return reply;
}

describe("pinning", () => {
  it.each([
    { inFlightPerShard: 8, label: "through piscina's queue" },
    { inFlightPerShard: 4096, label: "straight to the thread" },
  ])("runs every command of an account on one thread, in submission order ($label)", async ({ inFlightPerShard }) => {
    const url = await freshDatabase(server.url);
    const runtime = await startLedger(url, { inFlightPerShard });
    try {
      const ids = Array.from({ length: 64 }, () => randomUUID());
      await openAll(runtime, ids);
      const perAccount = 40;
      const submissions = shuffled(
        ids.flatMap((id) => Array.from({ length: perAccount }, () => id)),
        inFlightPerShard,
      );
      const sent = new Map<string, number>();
      const calls = submissions.map((id) => {
        const n = sent.get(id) ?? 0;
        sent.set(id, n + 1);
        return runtime.command(id, { type: "touch", n }).then((reply) => ({ id, n, reply: expectOk(reply) }));
      });
      const results = await Promise.all(calls);

      const threadOfAccount = new Map<string, number>();
      const threadsOfShard = new Map<number, Set<number>>();
      for (const { id, n, reply } of results) {
        // The n-th touch sent to the account was the n-th one it executed.
        expect(reply.touches).toBe(n);
        const first = threadOfAccount.get(id) ?? reply.threadId;
        expect(reply.threadId).toBe(first);
        threadOfAccount.set(id, first);
        const shard = shardOf(id, 2);
        threadsOfShard.set(shard, (threadsOfShard.get(shard) ?? new Set()).add(reply.threadId));
      }
      expect(results).toHaveLength(ids.length * perAccount);
      expect([...threadsOfShard.keys()].sort()).toEqual([0, 1]);
      const [zero, one] = [threadsOfShard.get(0), threadsOfShard.get(1)];
      expect(zero?.size).toBe(1);
      expect(one?.size).toBe(1);
      expect([...(zero ?? [])][0]).not.toBe([...(one ?? [])][0]);
    } finally {
      await runtime.stop();
    }
  });
});

describe("hand-over", () => {
  /** Records every task handed to a shard: [shard, requests]. */
  const recorder = (): { handovers: [number, number][]; metrics: ShardMetrics } => {
    const handovers: [number, number][] = [];
    return { handovers, metrics: { handover: (shard, requests) => handovers.push([shard, requests]) } };
  };

  it("hands the requests of one turn to each shard as one task, commands and queries together", async () => {
    const url = await freshDatabase(server.url);
    const { handovers, metrics } = recorder();
    const runtime = await startLedger(url, { metrics });
    try {
      const [a, b] = accountsOnShard(0, 2, 2) as [string, string];
      const [c] = accountsOnShard(1, 2, 1) as [string];
      await openAll(runtime, [a, b, c]);
      handovers.length = 0;
      const calls = Array.from({ length: 30 }, (_, i) => {
        const id = [a, b, c][i % 3] ?? a;
        return i % 2 === 0 ? runtime.command(id, { type: "deposit", amount: 1 }) : stateOf(runtime, id);
      });
      const settled = await Promise.all(calls);
      expect(settled).toHaveLength(30);
      expect(handovers.sort()).toEqual([
        [0, 20],
        [1, 10],
      ]);
      // Each query saw the deposits sent to its account before it in the same task.
      expect(settled[3]).toMatchObject({ balance: 1 });
      expect(settled[29]).toMatchObject({ balance: 5 });
    } finally {
      await runtime.stop();
    }
  });

  it("keeps each shard's order across many tasks in flight, commands and queries mixed", async () => {
    const url = await freshDatabase(server.url);
    const { handovers, metrics } = recorder();
    // At most 2 tasks on the thread: the rest wait in piscina's queue.
    const runtime = await startLedger(url, { metrics, inFlightPerShard: 2 });
    try {
      const ids = Array.from({ length: 16 }, () => randomUUID());
      await openAll(runtime, ids);
      handovers.length = 0;
      const random = mulberry32(7);
      const sent = new Map<string, number>();
      const touches: Promise<void>[] = [];
      const reads: Promise<void>[] = [];
      for (let turn = 0; turn < 40; turn++) {
        const count = 1 + Math.floor(random() * 30);
        for (let i = 0; i < count; i++) {
          const id = ids[Math.floor(random() * ids.length)] ?? "";
          const n = sent.get(id) ?? 0;
          if (random() < 0.3) {
            // A query sees exactly the touches sent to its account before it.
            reads.push(
              stateOf(runtime, id).then((state) => {
                expect(state?.touches).toBe(n);
              }),
            );
          } else {
            sent.set(id, n + 1);
            touches.push(
              runtime.command(id, { type: "touch", n }).then((reply) => {
                expect(expectOk(reply).touches).toBe(n);
              }),
            );
          }
        }
        // The next requests are made in a later turn, before these are answered.
        await new Promise((resolve) => setImmediate(resolve));
      }
      await Promise.all([...touches, ...reads]);
      expect(reads.length).toBeGreaterThan(0);
      expect(handovers.length).toBeGreaterThan(40);
      expect(handovers.reduce((sum, [, requests]) => sum + requests, 0)).toBe(touches.length + reads.length);
    } finally {
      await runtime.stop();
    }
  });

  it("fails only the requests of a task that failed, each with its own error", async () => {
    const url = await freshDatabase(server.url);
    const { handovers, metrics } = recorder();
    const runtime = await startLedger(url, { metrics });
    try {
      const [a] = accountsOnShard(0, 2, 1) as [string];
      await runtime.command(a, { type: "open", userId: "u" });
      handovers.length = 0;
      const results = await Promise.allSettled([
        runtime.command(a, { type: "deposit", amount: 1 }),
        runtime.command(a, { type: "explode" }),
        runtime.query(a, { type: "state" }),
        runtime.command(a, { type: "withdraw", amount: 5 }),
        runtime.command(a, { type: "deposit", amount: 2 }),
      ]);
      expect(handovers).toEqual([[0, 5]]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled", "fulfilled"]);
      expect(results[1]).toMatchObject({ reason: { code: "conflict" } });
      expect(results[2]).toMatchObject({ value: { balance: 1 } });
      expect(results[3]).toMatchObject({ value: { ok: false, error: "insufficient_funds" } });
      expect(results[4]).toMatchObject({ value: { ok: true, balance: 3 } });
    } finally {
      await runtime.stop();
    }
  });
});

describe("group commit", () => {
  it("journals many concurrent commands in fewer transactions than commands", async () => {
    const url = await freshDatabase(server.url);
    const batches: BatchStats[] = [];
    const metrics: ShardMetrics = { stats: (notice) => batches.push(notice.batches) };
    const runtime = await startLedger(url, { metrics, statsIntervalMs: 50 });
    try {
      const ids = Array.from({ length: 40 }, () => randomUUID());
      await openAll(runtime, ids);
      const commands = 1000;
      const replies = await Promise.all(
        Array.from({ length: commands }, (_, i) =>
          runtime.command(ids[i % ids.length] ?? "", { type: "deposit", amount: 1 }),
        ),
      );
      for (const reply of replies) expectOk(reply);

      const transactions = await withPool(url, async (pool) => {
        const result = await pool.query<{ transactions: string; rows: string }>(
          "SELECT count(DISTINCT xmin::text) AS transactions, count(*) AS rows FROM engine_events WHERE type = 'Deposited'",
        );
        return { transactions: Number(result.rows[0]?.transactions), rows: Number(result.rows[0]?.rows) };
      });
      expect(transactions.rows).toBe(commands);
      expect(transactions.transactions).toBeLessThan(commands / 4);
      // The batch figures arrive with the shards' stats notices (every 50 ms here).
      await vi.waitFor(() => {
        const sum = (pick: (b: BatchStats) => number): number => batches.reduce((total, b) => total + pick(b), 0);
        expect(sum((b) => b.messages.sum)).toBeGreaterThanOrEqual(commands);
        // Batches of more than one message (the first bucket counts batches of 1).
        expect(sum((b) => b.messages.count - (b.messages.counts[0] ?? 0))).toBeGreaterThan(0);
        expect(Math.max(...batches.map((b) => b.mailboxDepth))).toBeGreaterThan(1);
        expect(sum((b) => b.commitOk.count)).toBeGreaterThan(0);
        expect(sum((b) => b.commitFailed.count)).toBe(0);
      });
      for (const id of ids) {
        expect((await stateOf(runtime, id))?.balance).toBe(commands / ids.length);
      }
    } finally {
      await runtime.stop();
    }
  });
});

describe("durability", () => {
  it("rebuilds exactly the acknowledged state in a fresh runtime on the same database", async () => {
    const url = await freshDatabase(server.url);
    const first = await startLedger(url);
    const ids = Array.from({ length: 30 }, () => randomUUID());
    try {
      await openAll(first, ids);
      const commands = ids.flatMap((id, i) => [
        first.command(id, { type: "deposit", amount: 10 + i }),
        first.command(id, { type: "withdraw", amount: 15 }),
        first.command(id, { type: "touch", n: 0 }),
        first.command(id, { type: "withdraw", amount: 1_000 }),
      ]);
      await Promise.all(commands);
      await first.market({ tick: 3 });
      const before = await Promise.all(ids.map((id) => first.query(id, { type: "state" })));
      // The first runtime is still running (no stop, no flush): acknowledged means committed.
      const second = await startLedger(url);
      try {
        const after = await Promise.all(ids.map((id) => second.query(id, { type: "state" })));
        expect(after).toEqual(before);
        // Account 0: +10, a refused withdrawal of 15 (only 10 there), a touch, a refused 1000.
        expect(after[0]).toEqual({ userId: "u-0", balance: 10, touches: 1, lastTick: 3 });
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
    }
  });
});

describe("commands", () => {
  it("denies a withdrawal below zero with a reply and journals nothing", async () => {
    const url = await freshDatabase(server.url);
    const runtime = await startLedger(url);
    try {
      const id = randomUUID();
      await runtime.command(id, { type: "open", userId: "u" });
      await runtime.command(id, { type: "deposit", amount: 5 });
      const reply = await runtime.command(id, { type: "withdraw", amount: 6 });
      expect(reply).toMatchObject({ ok: false, error: "insufficient_funds" });
      const rows = await withPool(url, (pool) =>
        pool.query<{ type: string; seq: string }>("SELECT type, seq FROM engine_events ORDER BY seq"),
      );
      expect(rows.rows.map((r) => [r.type, Number(r.seq)])).toEqual([
        ["Opened", 1],
        ["Deposited", 2],
      ]);
    } finally {
      await runtime.stop();
    }
  });

  it("fails only the command whose decide throws, with its registry error", async () => {
    const url = await freshDatabase(server.url);
    const runtime = await startLedger(url);
    try {
      const id = randomUUID();
      await runtime.command(id, { type: "open", userId: "u" });
      const [before, exploded, after] = await Promise.allSettled([
        runtime.command(id, { type: "deposit", amount: 1 }),
        runtime.command(id, { type: "explode" }),
        runtime.command(id, { type: "deposit", amount: 2 }),
      ]);
      expect(before.status).toBe("fulfilled");
      expect(after.status).toBe("fulfilled");
      expect(exploded.status).toBe("rejected");
      const error = exploded.status === "rejected" ? (exploded.reason as unknown) : undefined;
      expect(error).toBeInstanceOf(ServiceError);
      expect(error).toMatchObject({ code: "conflict", fields: { reason: "exploded" } });
      expect((await stateOf(runtime, id))?.balance).toBe(3);
    } finally {
      await runtime.stop();
    }
  });

  it("lets each decision's events update the shard's market view before the next decision", async () => {
    const url = await freshDatabase(server.url);
    const runtime = await startLedger(url, { market: { tick: null, decided: 0 } });
    try {
      const [a, b] = accountsOnShard(0, 2, 2) as [string, string];
      await Promise.all([
        runtime.command(a, { type: "open", userId: "u" }),
        runtime.command(a, { type: "deposit", amount: 1 }),
        runtime.command(b, { type: "open", userId: "v" }),
        runtime.command(a, { type: "withdraw", amount: 5 }),
      ]);
      await runtime.market({ tick: 2 });
      // 3 decided events, then one Marked per account of the shard.
      expect(await runtime.query(b, { type: "market" })).toEqual({ tick: 2, decided: 5 });
    } finally {
      await runtime.stop();
    }
  });

  it("refuses an account id that is not a UUID with invalid_payload", async () => {
    const url = await freshDatabase(server.url);
    const runtime = await startLedger(url);
    try {
      await expect(runtime.command("not-a-uuid", { type: "noop" })).rejects.toMatchObject({ code: "invalid_payload" });
      const upper = randomUUID().toUpperCase();
      await runtime.command(upper, { type: "open", userId: "u" });
      expect(await runtime.query(upper.toLowerCase(), { type: "state" })).toMatchObject({ userId: "u" });
    } finally {
      await runtime.stop();
    }
  });
});

describe("market", () => {
  it("reaches every account of every shard and resolves after the events committed", async () => {
    const url = await freshDatabase(server.url);
    const runtime = await startLedger(url);
    try {
      const ids = Array.from({ length: 30 }, () => randomUUID());
      expect(new Set(ids.map((id) => shardOf(id, 2))).size).toBe(2);
      await openAll(runtime, ids);
      const applied = await runtime.market({ tick: 7 });
      expect(applied).toEqual({ accounts: 30, events: 30, faults: 0 });
      const marked = await withPool(url, (pool) =>
        pool.query<{ n: string }>("SELECT count(*) AS n FROM engine_events WHERE type = 'Marked'"),
      );
      expect(Number(marked.rows[0]?.n)).toBe(30);
      for (const id of ids) expect((await stateOf(runtime, id))?.lastTick).toBe(7);
    } finally {
      await runtime.stop();
    }
  });

  it("is ordered with the commands sent before and after it", async () => {
    const url = await freshDatabase(server.url);
    const runtime = await startLedger(url);
    try {
      const id = randomUUID();
      const opened = runtime.command(id, { type: "open", userId: "u" });
      const market = runtime.market({ tick: 1 });
      const late = runtime.command(randomUUID(), { type: "open", userId: "v" });
      await Promise.all([opened, late]);
      // The account opened before the update was marked; the one opened after it was not.
      expect(await market).toMatchObject({ accounts: 1, events: 1 });
      expect(await runtime.query(id, { type: "state" })).toMatchObject({ lastTick: 1 });
    } finally {
      await runtime.stop();
    }
  });
});

describe("stop", () => {
  it("answers every message already sent, then refuses new ones as not served (they did not run)", async () => {
    const url = await freshDatabase(server.url);
    const runtime = await startLedger(url);
    const ids = Array.from({ length: 20 }, () => randomUUID());
    await openAll(runtime, ids);
    let settled = 0;
    const calls = Array.from({ length: 2000 }, (_, i) =>
      runtime.command(ids[i % ids.length] ?? "", { type: "deposit", amount: 1 }).finally(() => {
        settled++;
      }),
    );
    await runtime.stop();
    expect(settled).toBe(calls.length);
    for (const result of await Promise.allSettled(calls)) expect(result.status).toBe("fulfilled");
    await expect(runtime.command(ids[0] ?? "", { type: "deposit", amount: 1 })).rejects.toMatchObject({
      code: "engine_not_serving",
    });
    await runtime.stop();

    const again = await startLedger(url);
    try {
      for (const id of ids) expect((await stateOf(again, id))?.balance).toBe(100);
    } finally {
      await again.stop();
    }
  });
});

describe("addressing by id", () => {
  it("routes a command by an id the account minted, across a restart, and answers not_found for others", async () => {
    const url = await freshDatabase(server.url);
    const [accountId] = [randomUUID()];
    if (accountId === undefined) throw new Error("no id");
    let receipt = "";
    const first = await startLedger(url);
    try {
      await openAll(first, [accountId]);
      await first.command(accountId, { type: "deposit", amount: 10 });
      receipt = expectOk(await first.command(accountId, { type: "receipt" })).receipt ?? "";
      expect(Number.parseInt(receipt.slice(0, 2), 16)).toBe(partitionOf(accountId));
      expect(receipt).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(expectOk(await first.commandByKey(receipt, { type: "deposit", amount: 5 })).balance).toBe(15);
    } finally {
      await first.stop();
    }
    const second = await startLedger(url);
    try {
      expect(expectOk(await second.commandByKey(receipt.toUpperCase(), { type: "deposit", amount: 1 })).balance).toBe(
        16,
      );
      await expect(second.commandByKey(randomUUID(), { type: "noop" })).rejects.toMatchObject({ code: "not_found" });
      await expect(second.commandByKey("zz-not-an-id", { type: "noop" })).rejects.toBeInstanceOf(ServiceError);
    } finally {
      await second.stop();
    }
  });
});

describe("stats notices", () => {
  it("tally committed events only, count accounts per state and report each thread's loop delay", async () => {
    const url = await freshDatabase(server.url);
    const notices: Extract<ShardNotice, { kind: "stats" }>[] = [];
    const runtime = await startLedger(url, {
      metrics: { stats: (notice) => notices.push(notice) },
      statsIntervalMs: 100,
    });
    try {
      const ids = Array.from({ length: 10 }, () => randomUUID());
      await openAll(runtime, ids);
      await Promise.all(ids.slice(0, 4).map((id) => runtime.command(id, { type: "deposit", amount: 5 })));
      // A batch whose commit fails: its event never counts.
      await expect(runtime.command(ids[5] ?? "", { type: "poison" })).rejects.toThrow(ServiceError);
      // The failed batch evicted the account; the next batch reloads it, and it is counted again.
      await runtime.command(ids[5] ?? "", { type: "noop" });
      const total = (type: string): number => notices.reduce((sum, notice) => sum + (notice.tallies[type] ?? 0), 0);
      const latestStates = (): Record<string, number> => {
        const totals: Record<string, number> = {};
        for (const shard of [0, 1]) {
          const latest = notices.filter((n) => n.shard === shard).at(-1);
          for (const [state, count] of Object.entries(latest?.states ?? {}))
            totals[state] = (totals[state] ?? 0) + count;
        }
        return totals;
      };
      await vi.waitFor(
        () => {
          expect(total("Deposited")).toBe(4);
          expect(latestStates()).toEqual({ funded: 4, empty: 6 });
        },
        { timeout: 20_000, interval: 50 },
      );
      expect(total("Opened")).toBe(10);
      expect(total("Poisoned\u0000")).toBe(0);
      expect(new Set(notices.map((n) => n.shard))).toEqual(new Set([0, 1]));
      for (const notice of notices) {
        expect(notice.loopLagP99Ms).toBeGreaterThanOrEqual(0);
        expect(notice.loopLagMaxMs).toBeGreaterThanOrEqual(notice.loopLagP99Ms);
      }
    } finally {
      await runtime.stop();
    }
  });

  it("bring every batch's figures to the engine's journal and mailbox series", async () => {
    const url = await freshDatabase(server.url);
    const registry = new Registry();
    const runtime = await startLedger(url, { metrics: engineMetrics(registry, 2), statsIntervalMs: 100 });
    try {
      const ids = Array.from({ length: 10 }, () => randomUUID());
      await openAll(runtime, ids);
      await Promise.all(ids.map((id) => runtime.command(id, { type: "deposit", amount: 1 })));
      await expect(runtime.command(ids[0] ?? "", { type: "poison" })).rejects.toThrow(ServiceError);
      // Per shard its start, then the opens and the deposits; the poison: 23 messages, 21 events.
      const value = (text: string, series: string): number =>
        Number(new RegExp(`^${series.replace(/[{}"+]/g, "\\$&")} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
      await vi.waitFor(
        async () => {
          const text = await registry.metrics();
          expect(value(text, "engine_journal_batch_messages_sum")).toBe(23);
          expect(value(text, "engine_journal_batch_events_sum")).toBe(21);
          expect(value(text, 'engine_journal_commit_duration_seconds_count{outcome="failed"}')).toBe(1);
          expect(value(text, 'engine_journal_commit_duration_seconds_count{outcome="ok"}')).toBeGreaterThanOrEqual(2);
        },
        { timeout: 10_000, interval: 50 },
      );
      const text = await registry.metrics();
      expect(value(text, "engine_journal_batch_messages_count")).toBe(
        value(text, 'engine_journal_batch_messages_bucket{le="+Inf"}'),
      );
      expect(text).toMatch(/^engine_shard_mailbox_depth\{shard="0"\} \d+$/m);
    } finally {
      await runtime.stop();
    }
  });
});
