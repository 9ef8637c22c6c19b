// The per-user account cap on a real PostgreSQL: slots up to the limit, none past it, concurrent creations of
// one user never both taking the last slot, and reservations that stop counting (refused or lapsed).
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { partitionOf } from "../../kernel/partition.js";
import { AccountSlots, RESERVATION_TTL_S } from "./account-slots.js";
import { Journal } from "./journal.js";
import { migratedEngineDatabase } from "./database.testing.js";

const db = migratedEngineDatabase(8);

/** Journals an account for `userId`, as a shard's commit of its OpenAccount does. */
async function journalAccount(userId: string, accountId = randomUUID()): Promise<string> {
  await new Journal(db.pool).append(
    [{ accountId, userId, partition: partitionOf(accountId) }],
    [{ accountId, seq: 1, type: "AccountOpened", payload: "{}" }],
  );
  return accountId;
}

describe("account slots", () => {
  it("reserves up to the limit and refuses the next with the limit", async () => {
    const slots = new AccountSlots(db.pool);
    expect(await slots.reserve("u-1", randomUUID(), 2)).toEqual({ ok: true });
    expect(await slots.reserve("u-1", randomUUID(), 2)).toEqual({ ok: true });
    expect(await slots.reserve("u-1", randomUUID(), 2)).toEqual({ ok: false, limit: 2 });
    // Another user's count is its own.
    expect(await slots.reserve("u-2", randomUUID(), 2)).toEqual({ ok: true });
  });

  it("counts journaled accounts once, whether or not their reservation is still there", async () => {
    const slots = new AccountSlots(db.pool);
    const reserved = randomUUID();
    expect(await slots.reserve("u-1", reserved, 3)).toEqual({ ok: true });
    await journalAccount("u-1", reserved);
    await journalAccount("u-1");
    expect(await slots.reserve("u-1", randomUUID(), 3)).toEqual({ ok: true });
    expect(await slots.reserve("u-1", randomUUID(), 3)).toEqual({ ok: false, limit: 3 });
  });

  it("lets exactly one of two parallel creations at limit − 1 take the last slot", async () => {
    for (let round = 0; round < 10; round++) {
      const user = `u-race-${round}`;
      await journalAccount(user);
      const slots = [new AccountSlots(db.pool), new AccountSlots(db.pool)];
      const answers = await Promise.all(slots.map((s) => s.reserve(user, randomUUID(), 2)));
      expect(answers.filter((a) => a.ok)).toHaveLength(1);
      expect(answers.filter((a) => !a.ok)).toEqual([{ ok: false, limit: 2 }]);
    }
  });

  it("holds at most two connections however many creations of one user arrive at once", async () => {
    const slots = new AccountSlots(db.pool);
    const answers = await Promise.all(Array.from({ length: 20 }, () => slots.reserve("u-flood", randomUUID(), 5)));
    expect(answers.filter((a) => a.ok)).toHaveLength(5);
    // The pool (8 connections) opened no more than the two reservations in the database at once needed.
    expect(db.pool.totalCount).toBeLessThanOrEqual(2);
  });

  it("gives a released slot back", async () => {
    const slots = new AccountSlots(db.pool);
    const refused = randomUUID();
    expect(await slots.reserve("u-1", refused, 1)).toEqual({ ok: true });
    expect(await slots.reserve("u-1", randomUUID(), 1)).toEqual({ ok: false, limit: 1 });
    await slots.release(refused);
    expect(await slots.reserve("u-1", randomUUID(), 1)).toEqual({ ok: true });
  });

  it("stops counting a reservation whose account was never journaled once it lapsed", async () => {
    const slots = new AccountSlots(db.pool);
    expect(await slots.reserve("u-1", randomUUID(), 1)).toEqual({ ok: true });
    await db.pool.query("UPDATE engine_account_reservations SET reserved_at = now() - make_interval(secs => $1 + 1)", [
      RESERVATION_TTL_S,
    ]);
    expect(await slots.reserve("u-1", randomUUID(), 1)).toEqual({ ok: true });
    const left = await db.pool.query("SELECT count(*)::int AS n FROM engine_account_reservations");
    expect(left.rows[0]).toEqual({ n: 1 });
  });
});
