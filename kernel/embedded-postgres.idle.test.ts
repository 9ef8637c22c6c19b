// The idle-in-transaction timeout of the embedded database's front (docs/embedded-database.md): a connection
// that holds the one session and sends nothing is closed and rolled back, and the session goes to the next in
// line; a connection that keeps sending, or that only waits in line, is never cut.
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "./embedded-postgres.js";

/** Small enough to wait out in a test, large enough that a busy machine's gaps between statements stay below it. */
const TIMEOUT_MS = 1_000;

const frame = (type: string, body: Buffer): Buffer => {
  const header = Buffer.alloc(5);
  header.write(type, 0, "latin1");
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
};

const query = (sql: string): Buffer => frame("Q", Buffer.from(`${sql}\0`));

/** A client on the raw wire protocol: what it sent and received, byte for byte. */
interface RawClient {
  socket: net.Socket;
  received(): string;
  /** Resolves once the bytes received contain `text`. */
  receives(text: string): Promise<void>;
  closed: Promise<void>;
}

async function rawClient(db: EmbeddedPostgres): Promise<RawClient> {
  const folder = new URL(db.url).searchParams.get("host") ?? "";
  const socket = net.connect(path.join(folder, ".s.PGSQL.5432"));
  const chunks: Buffer[] = [];
  const received = (): string => Buffer.concat(chunks).toString("latin1");
  const waiters: (() => void)[] = [];
  socket.on("data", (chunk: Buffer) => {
    chunks.push(chunk);
    for (const waiter of waiters.splice(0)) waiter();
  });
  const closed = new Promise<void>((resolve) =>
    socket.once("close", () => {
      resolve();
    }),
  );
  await new Promise<void>((resolve) =>
    socket.once("connect", () => {
      resolve();
    }),
  );
  const receives = async (text: string): Promise<void> => {
    while (!received().includes(text)) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const startup = Buffer.concat([Buffer.alloc(8), Buffer.from("user\0postgres\0database\0postgres\0\0")]);
  startup.writeInt32BE(startup.length, 0);
  startup.writeInt32BE(196608, 4);
  socket.write(startup);
  // ReadyForQuery, idle: Z, length 5, I.
  await receives("Z\0\0\0\x05I");
  return { socket, received, receives, closed };
}

describe("the embedded database's idle-in-transaction timeout", () => {
  let dir: string;
  let db: EmbeddedPostgres;
  let reader: pg.Pool;
  const clients: pg.Client[] = [];

  const connected = async (): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: db.url });
    clients.push(client);
    await client.connect();
    return client;
  };
  const ids = async (): Promise<number[]> =>
    (await reader.query<{ id: number }>("SELECT id FROM rows ORDER BY id")).rows.map((row) => row.id);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "fts-embedded-idle-"));
    db = await startEmbeddedPostgres(dir, "pglite", { idleInTransactionTimeoutMs: TIMEOUT_MS });
    reader = new pg.Pool({ connectionString: db.url, max: 1 });
    await reader.query("CREATE TABLE rows (id int PRIMARY KEY)");
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.end().catch(() => undefined)));
    await reader.query("TRUNCATE rows");
  });

  afterAll(async () => {
    await reader.end();
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("closes a connection silent inside a transaction with FATAL 25P03, rolls it back, and serves the one queued behind it", async () => {
    const idle = await connected();
    const queued = await connected();
    // The first error is the FATAL; the socket closing after it is the next.
    const failed = new Promise<Error>((resolve) => idle.on("error", resolve));
    await idle.query("BEGIN");
    await idle.query("INSERT INTO rows VALUES (1)");
    const before = db.stats().idleInTransactionKills;

    // The second connection waits in line for the session the silent one holds; then it runs as usual.
    await queued.query("BEGIN");
    const killsWhenServed = db.stats().idleInTransactionKills;
    await queued.query("INSERT INTO rows VALUES (2)");
    await queued.query("COMMIT");

    expect(killsWhenServed).toBe(before + 1);
    const error = (await failed) as Error & { code?: string; severity?: string };
    expect(error.code).toBe("25P03");
    expect(error.severity).toBe("FATAL");
    expect(error.message).toBe("terminating connection due to idle-in-transaction timeout");
    await expect(idle.query("SELECT 1")).rejects.toThrow();
    expect(await ids()).toEqual([2]);
  });

  it("keeps open a transaction that sends statements more often than the timeout for longer than it, and does not cut the connection queued behind it", async () => {
    const active = await connected();
    const queued = await connected();
    const before = db.stats().idleInTransactionKills;
    await active.query("BEGIN");
    let committed = false;
    const behind = (async (): Promise<boolean> => {
      await queued.query("BEGIN");
      const sawCommit = committed;
      await queued.query("INSERT INTO rows VALUES (100)");
      await queued.query("COMMIT");
      return sawCommit;
    })();
    // 30 statements a tenth of the timeout apart: the transaction lasts at least three timeouts.
    for (let id = 1; id <= 30; id++) {
      await sleep(TIMEOUT_MS / 10);
      await active.query("INSERT INTO rows VALUES ($1)", [id]);
    }
    await active.query("COMMIT");
    committed = true;

    expect(await behind).toBe(true);
    expect(db.stats().idleInTransactionKills).toBe(before);
    expect(await ids()).toEqual([...Array.from({ length: 30 }, (_, i) => i + 1), 100]);
  });

  it("closes a connection that sends part of a message inside a transaction and then nothing", async () => {
    const raw = await rawClient(db);
    raw.socket.write(query("BEGIN"));
    await raw.receives("Z\0\0\0\x05T");
    raw.socket.write(query("INSERT INTO rows VALUES (1)"));
    await raw.receives("INSERT 0 1");
    // The header of a Query and a few bytes of its body, never the rest.
    raw.socket.write(query("INSERT INTO rows VALUES (2)").subarray(0, 12));

    const result = await reader.query<{ n: string }>("SELECT count(*) AS n FROM rows");
    expect(result.rows[0]?.n).toBe("0");
    await raw.closed;
    expect(raw.received()).toContain("SFATAL");
    expect(raw.received()).toContain("C25P03");
  });

  it("closes a connection silent in the middle of an extended-query exchange, and ends the exchange", async () => {
    const raw = await rawClient(db);
    // Parse and Bind with no Sync: the session stays lent to this socket.
    raw.socket.write(
      Buffer.concat([
        frame("P", Buffer.concat([Buffer.from("\0INSERT INTO rows VALUES (3)\0"), Buffer.from([0, 0])])),
        frame("B", Buffer.concat([Buffer.from("\0\0"), Buffer.from([0, 0, 0, 0, 0, 0])])),
        frame("H", Buffer.alloc(0)),
      ]),
    );
    // ParseComplete and BindComplete, flushed.
    await raw.receives("2\0\0\0\x04");

    const result = await reader.query<{ n: string }>("SELECT count(*) AS n FROM rows");
    expect(result.rows[0]?.n).toBe("0");
    await raw.closed;
    expect(raw.received()).toContain("C25P03");
  });
});
