// The order archive on PostgreSQL (docs/engine.md, "The order archive"): the journal's append writes the records of
// forgotten orders with the events in one statement (all or none), and the reads find one by id with its owner,
// page an account's orders in (created_at, order_id) order with the keyset cursor, and find the newest order of a
// client_id.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "../../kernel/db-deadline.js";
import { migratedEngineDatabase } from "./database.testing.js";
import { Journal } from "./journal.js";
import { OrderArchive, type ArchivedRow } from "./order-archive.js";

const db = migratedEngineDatabase(2);

const T = Date.UTC(2026, 10, 25, 12, 0, 0);

/** Ids in a known order (the archive orders ties by order_id). */
const idNo = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

function row(accountId: string, n: number, createdAt: number, clientId: string | null = null): ArchivedRow {
  const id = idNo(n);
  return { accountId, id, createdAt, clientId, data: JSON.stringify({ order_id: id, n, client_id: clientId }) };
}

function event(accountId: string, seq: number) {
  return { accountId, seq, type: "Noted", payload: JSON.stringify({ type: "Noted", seq }) };
}

/** An account of `userId` with the rows archived by one append. */
async function archived(userId: string, rows: (accountId: string) => ArchivedRow[]): Promise<string> {
  const accountId = randomUUID();
  await new Journal(db.pool).append([{ accountId, userId, partition: 0 }], [event(accountId, 1)], [], rows(accountId));
  return accountId;
}

describe("the order archive", () => {
  it("is written in the same statement as the events: all of them or none", async () => {
    const journal = new Journal(db.pool);
    const a = randomUUID();
    await journal.append([{ accountId: a, userId: "ua", partition: 0 }], [event(a, 1)], [], [row(a, 1, T)]);
    const refused = await journal.append([], [event(a, 1)], [], [row(a, 2, T)]).then(
      () => "committed",
      () => "refused",
    );
    expect(refused).toBe("refused");
    const ids = await db.pool.query<{ order_id: string }>("SELECT order_id FROM engine_orders ORDER BY order_id");
    expect(ids.rows.map((r) => r.order_id)).toEqual([idNo(1)]);
  });

  it("finds an order by id with its account and owner, and nothing for an id it does not hold", async () => {
    const accountId = await archived("ua", (a) => [row(a, 1, T, "c-1")]);
    const archive = new OrderArchive(db.pool, 5_000);
    expect(await archive.find(idNo(1))).toEqual({
      accountId,
      userId: "ua",
      record: { order_id: idNo(1), n: 1, client_id: "c-1" },
    });
    expect(await archive.find(idNo(2))).toBeUndefined();
  });

  it("pages an account's orders by (created_at, order_id) within inclusive bounds, after the cursor", async () => {
    // Orders 1..6 of one account, two per instant, written out of order; another account's in between.
    const a = await archived("ua", (id) => [5, 1, 3, 2, 6, 4].map((n) => row(id, n, T + Math.floor((n - 1) / 2) * 10)));
    await archived("ub", (id) => [row(id, 7, T + 5)]);
    const archive = new OrderArchive(db.pool);
    const ns = async (page: Parameters<OrderArchive["page"]>[1]) =>
      ((await archive.page(a, page)) as { n: number }[]).map((r) => r.n);
    const all = { from: null, to: null, afterId: null, limit: 100 };
    expect(await ns(all)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await ns({ ...all, limit: 3 })).toEqual([1, 2, 3]);
    expect(await ns({ ...all, from: T + 10, to: T + 10 })).toEqual([3, 4]);
    // The cursor: strictly after (T + 10, order 3): order 4 at the same instant, then the later ones.
    expect(await ns({ ...all, from: T + 10, afterId: idNo(3) })).toEqual([4, 5, 6]);
    expect(await ns({ ...all, from: T + 10, afterId: idNo(4) })).toEqual([5, 6]);
    // A cursor without `from` is no cursor (the engine refuses it before it reads).
    expect(await ns({ ...all, afterId: idNo(4) })).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("finds the newest order of a client_id in the account, and none for another account's", async () => {
    const a = await archived("ua", (id) => [row(id, 1, T, "bot"), row(id, 3, T + 10, "bot"), row(id, 2, T + 10, "x")]);
    const b = await archived("ub", (id) => [row(id, 4, T + 20, "bot")]);
    const archive = new OrderArchive(db.pool);
    expect(await archive.byClientId(a, "bot")).toMatchObject({ n: 3 });
    expect(await archive.byClientId(a, "none")).toBeUndefined();
    expect(await archive.byClientId(b, "x")).toBeUndefined();
  });

  it("fails a read the database does not answer in time as unavailable (engine_unavailable at the handler)", async () => {
    const archive = new OrderArchive(db.pool, 1);
    const client = await db.pool.connect();
    try {
      // The table locked: the read waits past its deadline.
      await client.query("BEGIN");
      await client.query("LOCK TABLE engine_orders IN ACCESS EXCLUSIVE MODE");
      const error = await archive.find(idNo(1)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
  });
});
