import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from "vitest";
import { startPostgres, type PostgresServer } from "../../test/harness/postgres.js";
import { freshDatabase } from "../shard/test-support.js";
import { Journal, isDuplicateSeq, type StoredEvent } from "./journal.js";
import { migrateEngine } from "./schema.js";

let server: PostgresServer;
let pool: pg.Pool;

beforeAll(async () => {
  server = await startPostgres();
});

afterAll(async () => {
  await server.stop();
});

beforeEach(async () => {
  pool = new pg.Pool({ connectionString: await freshDatabase(server.url), max: 2 });
  await migrateEngine(pool);
});

afterEach(async () => {
  await pool.end();
});

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

describe("migrations", () => {
  it("applies each engine migration once under service engine", async () => {
    expect(await migrateEngine(pool)).toEqual([]);
    const applied = await pool.query<{ version: number; name: string }>(
      "SELECT version, name FROM schema_migrations WHERE service = 'engine' ORDER BY version",
    );
    expect(applied.rows).toEqual([
      { version: 1, name: "journal" },
      { version: 2, name: "calendar" },
    ]);
  });
});

describe("Journal", () => {
  it("appends a batch in one transaction and reads it back per partition, in seq order, page by page", async () => {
    const journal = new Journal(pool, 3);
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

  it("refuses a duplicate (account, seq) and keeps none of that append", async () => {
    const journal = new Journal(pool);
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
    const rows = await pool.query("SELECT 1 FROM engine_accounts WHERE account_id = $1", [b]);
    expect(rows.rowCount).toBe(0);
    const count = await pool.query<{ n: string }>("SELECT count(*) AS n FROM engine_events");
    expect(count.rows[0]?.n).toBe("2");
  });

  it("refuses events of an account it has no row for", async () => {
    const journal = new Journal(pool);
    await expect(journal.append([], events(randomUUID(), 1, 1))).rejects.toThrow(/foreign key/);
  });
});
