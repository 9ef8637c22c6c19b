import { randomUUID } from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { migrate, readMigrations } from "../../kernel/migrate.js";
import { freshDatabase } from "./fresh-database.testing.js";
import { Journal, isDuplicateSeq, type StoredEvent } from "./journal.js";
import { ENGINE_MIGRATIONS_DIR, migrateEngine } from "./schema.js";
import { migratedEngineDatabase } from "./database.testing.js";

const db = migratedEngineDatabase(2);

function events(
  accountId: string,
  from: number,
  count: number,
): { accountId: string; seq: number; type: string; payload: string }[] {
  return Array.from({ length: count }, (_, i) => ({
    accountId,
    seq: from + i,
    type: "Noted",
    payload: JSON.stringify({ type: "Noted", n: from + i, text: 'quotes " and \\ backslashes' }),
  }));
}

/** A fresh database with the first `count` engine migrations applied and one account of user "ua" in it. */
async function migratedUpTo(count: number): Promise<{ pool: pg.Pool; a: string }> {
  const pool = new pg.Pool({ connectionString: await freshDatabase(db.serverUrl), max: 1 });
  try {
    await migrate(pool, "engine", readMigrations(ENGINE_MIGRATIONS_DIR).slice(0, count));
    const a = randomUUID();
    await pool.query("INSERT INTO engine_accounts (account_id, user_id, partition) VALUES ($1, 'ua', 0)", [a]);
    return { pool, a };
  } catch (error) {
    await pool.end();
    throw error;
  }
}

describe("migrations", () => {
  it("applies each engine migration once under service engine", async () => {
    expect(await migrateEngine(db.pool)).toEqual([]);
    const applied = await db.pool.query<{ version: number; name: string }>(
      "SELECT version, name FROM schema_migrations WHERE service = 'engine' ORDER BY version",
    );
    expect(applied.rows).toEqual([
      { version: 1, name: "journal" },
      { version: 2, name: "calendar" },
      { version: 3, name: "outbox" },
      { version: 4, name: "partition_leases" },
      { version: 5, name: "outbox_pending" },
      { version: 6, name: "events_json" },
      { version: 7, name: "account_slots" },
      { version: 8, name: "snapshots" },
      { version: 9, name: "order_archive" },
      { version: 10, name: "kept_prices" },
      { version: 11, name: "spent_client_ids" },
      { version: 12, name: "events_created_at" },
    ]);
  });

  it("moves the events not fanned out yet to engine_outbox_pending and drops the flag (005)", async () => {
    const { pool, a } = await migratedUpTo(4);
    try {
      // Sequences 1 and 3 fanned out, 2 and 4 not; created_at with microseconds, which the move must keep.
      const rows = [
        [1, true, "2026-11-25 12:00:00.000001+00"],
        [2, false, "2026-11-25 12:00:00.000002+00"],
        [3, true, "2026-11-25 12:00:00.000003+00"],
        [4, false, "2026-11-25 12:00:00.000004+00"],
      ] as const;
      const ids = rows.map(() => randomUUID());
      for (const [i, [sequence, fanned, at]] of rows.entries()) {
        await pool.query(
          `INSERT INTO engine_outbox (account_id, sequence, event_id, type, user_id, created_at, data, fanned_out)
           VALUES ($1, $2, $3, 'order.ack', 'ua', $4, '{}', $5)`,
          [a, sequence, ids[i], at, fanned],
        );
      }

      expect(await migrateEngine(pool)).toEqual([5, 6, 7, 8, 9, 10, 11, 12]);
      const pending = await pool.query<{ event_id: string; user_id: string; created_at: string }>(
        "SELECT event_id, user_id, created_at::text FROM engine_outbox_pending ORDER BY created_at",
      );
      expect(pending.rows).toEqual([
        { event_id: ids[1], user_id: "ua", created_at: "2026-11-25 12:00:00.000002+00" },
        { event_id: ids[3], user_id: "ua", created_at: "2026-11-25 12:00:00.000004+00" },
      ]);
      const outbox = await pool.query("SELECT * FROM engine_outbox ORDER BY sequence");
      expect(outbox.rows).toHaveLength(4);
      expect(Object.keys(outbox.rows[0] as object)).not.toContain("fanned_out");
      // One index on the queue (its primary key) and none left over from the flag.
      const indexes = await pool.query<{ tablename: string; indexname: string }>(
        `SELECT tablename, indexname FROM pg_indexes
          WHERE tablename IN ('engine_outbox', 'engine_outbox_pending') ORDER BY tablename, indexname`,
      );
      expect(indexes.rows).toEqual([
        { tablename: "engine_outbox", indexname: "engine_outbox_event_id_key" },
        { tablename: "engine_outbox", indexname: "engine_outbox_pkey" },
        { tablename: "engine_outbox_pending", indexname: "engine_outbox_pending_pkey" },
      ]);
    } finally {
      await pool.end();
    }
  });

  it("turns the payloads into json text that replays the same events, and old jsonb writers still work (006)", async () => {
    const { pool, a } = await migratedUpTo(5);
    try {
      const before = events(a, 1, 2).map((e) => ({
        ...e,
        payload: JSON.stringify({ ...(JSON.parse(e.payload) as object), big: 2 ** 53 - 1, nested: { x: [1, null] } }),
      }));
      for (const e of before) {
        await pool.query("INSERT INTO engine_events (account_id, seq, type, payload) VALUES ($1, $2, $3, $4::jsonb)", [
          e.accountId,
          e.seq,
          e.type,
          e.payload,
        ]);
      }

      expect(await migrateEngine(pool)).toEqual([6, 7, 8, 9, 10, 11, 12]);
      const column = await pool.query<{ data_type: string }>(
        "SELECT data_type FROM information_schema.columns WHERE table_name = 'engine_events' AND column_name = 'payload'",
      );
      expect(column.rows).toEqual([{ data_type: "json" }]);
      // An engine older than 006 still sends jsonb: it converts by assignment.
      const old = events(a, 3, 1)[0];
      await pool.query("INSERT INTO engine_events (account_id, seq, type, payload) VALUES ($1, $2, $3, $4::jsonb)", [
        a,
        3,
        old?.type,
        old?.payload,
      ]);
      // The current statement appends after them, and every event reads back as it was written.
      await new Journal(pool).append([], events(a, 4, 1));
      const read: StoredEvent[] = [];
      await new Journal(pool).readAccounts([a], (event) => read.push(event));
      expect(read).toEqual(
        [...before, ...events(a, 3, 2)].map((e) => ({
          accountId: a,
          seq: e.seq,
          event: JSON.parse(e.payload) as unknown,
        })),
      );
    } finally {
      await pool.end();
    }
  });
});

describe("Journal", () => {
  it("appends through a statement each connection prepares once, and falls back to unnamed when a session clashes", async () => {
    // Both connections of the pool at once: `clashing` is a session that has prepared nothing yet.
    const client = await db.pool.connect();
    const clashing = await db.pool.connect();
    try {
      // A pool of this one connection: the second append reuses the statement the first prepared.
      const pool = { query: client.query.bind(client) } as unknown as ConstructorParameters<typeof Journal>[0];
      const journal = new Journal(pool);
      const a = randomUUID();
      await journal.append([{ accountId: a, userId: "ua", partition: 1 }], events(a, 1, 1));
      await journal.append([], events(a, 2, 1));
      const prepared = await client.query<{ name: string }>("SELECT name FROM pg_prepared_statements");
      expect(prepared.rows.map((r) => r.name)).toContain("engine_journal_append");
    } finally {
      client.release();
    }
    // As under the embedded PGlite (one session behind every connection): a statement of the same name already
    // exists in the session, unknown to this connection's client, so the journal's Parse fails; it appends
    // unnamed instead, and keeps doing so.
    try {
      await clashing.query("PREPARE engine_journal_append AS SELECT 1");
      const pool = { query: clashing.query.bind(clashing) } as unknown as ConstructorParameters<typeof Journal>[0];
      const other = new Journal(pool);
      const b = randomUUID();
      await other.append([{ accountId: b, userId: "ub", partition: 1 }], events(b, 1, 1));
      await other.append([], events(b, 2, 1));
      const read: StoredEvent[] = [];
      await other.readAccounts([b], (event) => read.push(event));
      expect(read.map((e) => e.seq)).toEqual([1, 2]);
    } finally {
      await clashing.query("DEALLOCATE ALL");
      clashing.release();
    }
  });

  it("appends a batch in one transaction and reads it back per partition, in seq order, page by page", async () => {
    const journal = new Journal(db.pool, 3);
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await journal.append(
      [
        { accountId: a, userId: "ua", partition: 1 },
        { accountId: b, userId: "ub", partition: 2 },
        { accountId: c, userId: "uc", partition: 3 },
      ],
      [...events(b, 1, 4), ...events(a, 1, 5), ...events(c, 1, 2)],
    );
    await journal.append([], events(a, 6, 2));

    const read: StoredEvent[] = [];
    const counts = await journal.readPartitions([1, 2], (event) => read.push(event));
    expect(counts).toEqual({ accounts: 2, events: 11 });
    const ofA = read.filter((e) => e.accountId === a);
    expect(ofA.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(ofA[0]?.event).toEqual({ type: "Noted", n: 1, text: 'quotes " and \\ backslashes' });
    expect(read.some((e) => e.accountId === c)).toBe(false);

    const some: StoredEvent[] = [];
    expect(await journal.readAccounts([c], (event) => some.push(event))).toEqual({ accounts: 1, events: 2 });
  });

  it("reads an IdempotencyRecorded event of the first shape in the current one, keeping its whole answer", async () => {
    const journal = new Journal(db.pool);
    const a = randomUUID();
    const response = {
      order: { order_id: "o-1", status: "NEW" },
      fills: [],
      violations: [{ rule: "exposure_cap" }],
      risk_headroom: { margin: 1 },
    };
    const first = { type: "IdempotencyRecorded", at: 5, client_id: "c-1", order_id: "o-1", fingerprint: "f", response };
    const current = {
      type: "IdempotencyRecorded",
      at: 6,
      client_id: "c-2",
      order_id: "o-2",
      fingerprint: "g",
      violations: [],
      risk_headroom: { margin: 2 },
    };
    await journal.append(
      [{ accountId: a, userId: "ua", partition: 1 }],
      [first, current].map((event, i) => ({
        accountId: a,
        seq: i + 1,
        type: event.type,
        payload: JSON.stringify(event),
      })),
    );
    const read: StoredEvent[] = [];
    await journal.readAccounts([a], (event) => read.push(event));
    expect(read.map((stored) => stored.event)).toEqual([
      { ...first, violations: response.violations, risk_headroom: response.risk_headroom },
      current,
    ]);
  });

  it("refuses a duplicate (account, seq) and keeps none of that append", async () => {
    const journal = new Journal(db.pool);
    const a = randomUUID();
    const b = randomUUID();
    await journal.append([{ accountId: a, userId: "u", partition: 0 }], events(a, 1, 2));
    const error: unknown = await journal
      .append([{ accountId: b, userId: "u", partition: 0 }], [...events(b, 1, 1), ...events(a, 2, 1)])
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isDuplicateSeq(error)).toBe(true);
    const rows = await db.pool.query("SELECT 1 FROM engine_accounts WHERE account_id = $1", [b]);
    expect(rows.rowCount).toBe(0);
    const count = await db.pool.query<{ n: string }>("SELECT count(*) AS n FROM engine_events");
    expect(count.rows[0]?.n).toBe("2");
  });

  it("writes the outbox rows in the same statement as their events: all of them or none", async () => {
    const journal = new Journal(db.pool);
    const [a, b] = [randomUUID(), randomUUID()];
    const at = Date.parse("2026-11-25T12:00:00.123Z");
    const row = (accountId: string, sequence: number) => ({
      accountId,
      sequence,
      eventId: randomUUID(),
      type: "order.ack",
      userId: "u",
      at,
      data: JSON.stringify({ n: sequence, text: 'quotes " and \\ backslashes' }),
    });
    await journal.append([{ accountId: a, userId: "u", partition: 0 }], events(a, 1, 2), [row(a, 1), row(a, 2)]);
    const stored = await db.pool.query<{ sequence: string; created_at: Date; data: unknown }>(
      "SELECT sequence, created_at, data FROM engine_outbox WHERE account_id = $1 ORDER BY sequence",
      [a],
    );
    expect(stored.rows.map((r) => [Number(r.sequence), r.created_at.getTime(), r.data])).toEqual([
      [1, at, { n: 1, text: 'quotes " and \\ backslashes' }],
      [2, at, { n: 2, text: 'quotes " and \\ backslashes' }],
    ]);

    // A duplicate seq of a fails the statement: b's account, events and outbox rows are all gone.
    await expect(
      journal.append(
        [{ accountId: b, userId: "u", partition: 0 }],
        [...events(b, 1, 1), ...events(a, 2, 1)],
        [row(b, 1), row(a, 3)],
      ),
    ).rejects.toThrow();
    const count = await db.pool.query<{ n: string }>("SELECT count(*) AS n FROM engine_outbox");
    expect(count.rows[0]?.n).toBe("2");

    // A duplicate outbox sequence fails the events with it.
    await expect(journal.append([], events(a, 3, 1), [row(a, 2)])).rejects.toThrow();
    const events3 = await db.pool.query("SELECT 1 FROM engine_events WHERE account_id = $1 AND seq = 3", [a]);
    expect(events3.rowCount).toBe(0);
  });

  it("queues each outbox row for fan-out in the same statement, with the row's key: all of them or none", async () => {
    const journal = new Journal(db.pool);
    const [a, b] = [randomUUID(), randomUUID()];
    const row = (accountId: string, sequence: number, userId: string) => ({
      accountId,
      sequence,
      eventId: randomUUID(),
      type: "order.ack",
      userId,
      at: Date.parse("2026-11-25T12:00:00.000Z") + sequence,
      data: "{}",
    });
    const queue = async (): Promise<{ event_id: string; user_id: string; same_time: boolean }[]> =>
      (
        await db.pool.query<{ event_id: string; user_id: string; same_time: boolean }>(
          `SELECT p.event_id, p.user_id, p.created_at = o.created_at AS same_time
             FROM engine_outbox_pending p LEFT JOIN engine_outbox o ON o.event_id = p.event_id
            ORDER BY p.created_at`,
        )
      ).rows;

    // Events without outbox rows queue nothing.
    await journal.append([{ accountId: a, userId: "ua", partition: 0 }], events(a, 1, 2));
    expect(await queue()).toEqual([]);

    const written = [row(a, 1, "ua"), row(a, 2, "ua")];
    await journal.append([], events(a, 3, 1), written);
    expect(await queue()).toEqual(written.map((r) => ({ event_id: r.eventId, user_id: "ua", same_time: true })));

    // A failed append (duplicate seq of a) queues none of its outbox rows.
    await expect(
      journal.append(
        [{ accountId: b, userId: "ub", partition: 0 }],
        [...events(b, 1, 1), ...events(a, 3, 1)],
        [row(b, 1, "ub"), row(a, 3, "ua")],
      ),
    ).rejects.toThrow();
    expect(await queue()).toHaveLength(2);
  });

  it("refuses events of an account it has no row for", async () => {
    const journal = new Journal(db.pool);
    await expect(journal.append([], events(randomUUID(), 1, 1))).rejects.toThrow(/foreign key/);
  });

  it("reads each account's snapshot and then only its events after it, page by page, in (account, seq) order", async () => {
    const journal = new Journal(db.pool, 3, undefined, undefined, 2);
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()].sort();
    const ids = [a, b, c] as [string, string, string];
    await journal.append(
      ids.map((accountId) => ({ accountId, userId: "u", partition: 5 })),
      [...events(ids[0], 1, 8), ...events(ids[1], 1, 4), ...events(ids[2], 1, 7)],
    );
    const snapshot = (accountId: string, seq: number) => ({
      accountId,
      seq,
      outbox: seq * 2,
      at: 1_000 + seq,
      payload: JSON.stringify({ upTo: seq }),
    });
    await journal.saveSnapshots([snapshot(ids[0], 5), snapshot(ids[2], 7)]);
    // An older snapshot never replaces a newer one.
    await journal.saveSnapshots([snapshot(ids[0], 3)]);

    const snapshots: unknown[] = [];
    const read: [string, number][] = [];
    const counts = await journal.readPartitions(
      [5],
      (event) => read.push([event.accountId, event.seq]),
      (stored) => snapshots.push(stored),
    );
    expect(snapshots).toEqual([
      { accountId: ids[0], seq: 5, outbox: 10, at: 1_005, snapshot: { upTo: 5 } },
      { accountId: ids[2], seq: 7, outbox: 14, at: 1_007, snapshot: { upTo: 7 } },
    ]);
    expect(read).toEqual([
      [ids[0], 6],
      [ids[0], 7],
      [ids[0], 8],
      [ids[1], 1],
      [ids[1], 2],
      [ids[1], 3],
      [ids[1], 4],
    ]);
    expect(counts).toEqual({ accounts: 2, events: 7, snapshots: 2 });
    // Without a snapshot reader, every event.
    expect((await journal.readAccounts(ids, () => undefined)).events).toBe(19);
  });
});
