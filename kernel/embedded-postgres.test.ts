import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startEmbeddedDatabaseProcess } from "../test/harness/embedded.js";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "./embedded-postgres.js";
import { mayChangeSession } from "./embedded-postgres/session-state.js";
import { MAX_MESSAGE_LENGTH, finalReadyStatus, scopeNames } from "./embedded-postgres/wire.js";

const frame = (type: string, body: Buffer): Buffer => {
  const header = Buffer.alloc(5);
  header.write(type, 0, "latin1");
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
};

describe("finalReadyStatus", () => {
  it("reads the status of a response that ends with ReadyForQuery", () => {
    const response = Buffer.concat([frame("C", Buffer.from("SELECT 1\0")), frame("Z", Buffer.from("T"))]);
    expect(finalReadyStatus(response)).toBe("T".charCodeAt(0));
  });

  it("answers undefined when the response ends with another message", () => {
    const response = Buffer.concat([frame("Z", Buffer.from("I")), frame("C", Buffer.from("SELECT 1\0"))]);
    expect(finalReadyStatus(response)).toBeUndefined();
    expect(finalReadyStatus(new Uint8Array(0))).toBeUndefined();
  });
});

describe("scopeNames", () => {
  const message = (type: string, body: Buffer): { type: number; bytes: Uint8Array } => ({
    type: type.charCodeAt(0),
    bytes: frame(type, body),
  });

  it("prefixes a named Parse and reports the statement it declares", () => {
    const parse = message("P", Buffer.concat([Buffer.from("stmt\0SELECT 1\0"), Buffer.from([0, 0])]));
    const scoped = scopeNames(parse, "c7_");
    expect(scoped.parsed).toBe("c7_stmt");
    expect(Buffer.from(scoped.bytes)).toEqual(
      frame("P", Buffer.concat([Buffer.from("c7_stmt\0SELECT 1\0"), Buffer.from([0, 0])])),
    );
  });

  it("leaves the unnamed statement and portal unnamed", () => {
    const bind = message("B", Buffer.concat([Buffer.from("\0\0"), Buffer.from([0, 0, 0, 0, 0, 0])]));
    expect(scopeNames(bind, "c7_").bytes).toBe(bind.bytes);
  });

  it("prefixes both names of a Bind, and Execute, Describe and Close", () => {
    const rest = Buffer.from([0, 0, 0, 0, 0, 0]);
    const bind = scopeNames(message("B", Buffer.concat([Buffer.from("p\0s\0"), rest])), "c1_");
    expect(Buffer.from(bind.bytes)).toEqual(frame("B", Buffer.concat([Buffer.from("c1_p\0c1_s\0"), rest])));
    const execute = scopeNames(message("E", Buffer.concat([Buffer.from("p\0"), Buffer.from([0, 0, 0, 0])])), "c1_");
    expect(Buffer.from(execute.bytes)).toEqual(
      frame("E", Buffer.concat([Buffer.from("c1_p\0"), Buffer.from([0, 0, 0, 0])])),
    );
    const describe = scopeNames(message("D", Buffer.from("Ss\0")), "c1_");
    expect(Buffer.from(describe.bytes)).toEqual(frame("D", Buffer.from("Sc1_s\0")));
    const close = scopeNames(message("C", Buffer.from("Ss\0")), "c1_");
    expect(close.closed).toBe("c1_s");
    expect(scopeNames(message("C", Buffer.from("Pp\0")), "c1_").closed).toBeUndefined();
  });
});

describe("mayChangeSession", () => {
  it("passes the statements the services send", () => {
    for (const sql of [
      "SELECT $1::int + $2::int AS s",
      "INSERT INTO rows VALUES ($1, $2)",
      "UPDATE counter SET v = $1 WHERE id = 1",
      "BEGIN",
      "COMMIT",
      "SELECT set_config('jit', 'off', true), pg_advisory_xact_lock(hashtext($1))",
      "WITH x AS (SELECT 1) SELECT * FROM x;",
    ]) {
      expect(mayChangeSession(sql), sql).toBe(false);
    }
  });

  it("flags what may change the session beyond its transaction", () => {
    for (const sql of [
      "SET default_transaction_read_only = on",
      "set local statement_timeout = 1",
      "SELECT set_config('x.y', 'z', false)",
      "SELECT pg_advisory_lock(1)",
      "SELECT 1 INTO TEMP t",
      "LISTEN channel",
      "PREPARE p AS SELECT 1",
      "DECLARE c CURSOR WITH HOLD FOR SELECT 1",
      "SELECT 1; SET role = x",
      "CREATE TEMP TABLE t (a int)",
    ]) {
      expect(mayChangeSession(sql), sql).toBe(true);
    }
  });
});

describe("the embedded database under concurrency", () => {
  let dir: string;
  let db: EmbeddedPostgres;
  let pool: pg.Pool;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "fts-embedded-"));
    db = await startEmbeddedPostgres(dir, "pglite", { maxConnections: 40 });
    pool = new pg.Pool({ connectionString: db.url, max: 16 });
    await pool.query("CREATE TABLE counter (id int PRIMARY KEY, v int NOT NULL)");
    await pool.query("INSERT INTO counter VALUES (1, 0)");
    await pool.query("CREATE TABLE rows (id int PRIMARY KEY, owner text NOT NULL)");
  });

  afterAll(async () => {
    await pool.end();
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers every parameterised query of 16 connections with its own statement's result", async () => {
    // Statements with different parameter counts, and one name prepared on every connection: interleaved
    // Parse/Bind/Execute of two connections would fail (portal "" does not exist, 42P05) or mix results.
    const runs = Array.from({ length: 1_200 }, async (_, i) => {
      switch (i % 4) {
        case 0: {
          const result = await pool.query<{ s: number }>("SELECT $1::int + $2::int AS s", [i, 1]);
          expect(result.rows[0]?.s).toBe(i + 1);
          break;
        }
        case 1: {
          const result = await pool.query<{ t: string }>("SELECT $1::text AS t", [`n${i}`]);
          expect(result.rows[0]?.t).toBe(`n${i}`);
          break;
        }
        case 2: {
          const result = await pool.query<{ d: number }>({
            name: "double",
            text: "SELECT $1::int * 2 AS d",
            values: [i],
          });
          expect(result.rows[0]?.d).toBe(i * 2);
          break;
        }
        default: {
          const result = await pool.query<{ a: string; b: string; c: string }>(
            "SELECT $1::text AS a, $2::text AS b, $3::text AS c",
            [`a${i}`, `b${i}`, `c${i}`],
          );
          expect(result.rows[0]).toEqual({ a: `a${i}`, b: `b${i}`, c: `c${i}` });
        }
      }
    });
    await Promise.all(runs);
  });

  it("keeps a transaction's statements together: 200 concurrent read-modify-write transactions lose no update", async () => {
    const increment = async (): Promise<void> => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const current = await client.query<{ v: number }>("SELECT v FROM counter WHERE id = $1", [1]);
        await client.query("UPDATE counter SET v = $1 WHERE id = 1", [(current.rows[0]?.v ?? 0) + 1]);
        await client.query("COMMIT");
      } finally {
        client.release();
      }
    };
    await Promise.all(Array.from({ length: 200 }, increment));
    const result = await pool.query<{ v: number }>("SELECT v FROM counter WHERE id = 1");
    expect(result.rows[0]?.v).toBe(200);
  });

  it("rolls back the transaction of a connection that goes away inside it, and serves the others", async () => {
    const client = new pg.Client({ connectionString: db.url });
    client.on("error", () => undefined);
    await client.connect();
    await client.query("BEGIN");
    await client.query("INSERT INTO rows VALUES ($1, $2)", [1, "gone"]);
    const waiting = pool.query<{ n: string }>("SELECT count(*) AS n FROM rows");
    (client as unknown as { connection: { stream: net.Socket } }).connection.stream.destroy();
    const result = await waiting;
    expect(result.rows[0]?.n).toBe("0");
  });

  it("ends the unfinished extended-query exchange of a connection that goes away in the middle of it", async () => {
    const folder = new URL(db.url).searchParams.get("host") ?? "";
    const socket = net.connect(path.join(folder, ".s.PGSQL.5432"));
    await new Promise<void>((resolve) =>
      socket.once("connect", () => {
        resolve();
      }),
    );
    const startup = Buffer.concat([Buffer.alloc(8), Buffer.from("user\0postgres\0database\0postgres\0\0")]);
    startup.writeInt32BE(startup.length, 0);
    startup.writeInt32BE(196608, 4);
    socket.write(startup);
    await new Promise<void>((resolve) =>
      socket.once("data", () => {
        resolve();
      }),
    );
    // Parse and Bind with no Sync: the session stays lent to this socket until it closes.
    socket.write(
      Buffer.concat([
        frame("P", Buffer.concat([Buffer.from("\0INSERT INTO rows VALUES (2, 'half')\0"), Buffer.from([0, 0])])),
        frame("B", Buffer.concat([Buffer.from("\0\0"), Buffer.from([0, 0, 0, 0, 0, 0])])),
      ]),
    );
    const waiting = pool.query<{ n: string }>("SELECT count(*) AS n FROM rows WHERE id = 2");
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    const result = await waiting;
    expect(result.rows[0]?.n).toBe("0");
  });

  it("deallocates the prepared statements of a connection that goes", async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query({ name: "mine", text: "SELECT $1::int AS x", values: [1] });
    const prepared = await pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_prepared_statements WHERE name LIKE '%mine'",
    );
    expect(prepared.rows[0]?.n).toBe("1");
    await client.end();
    const after = await pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_prepared_statements WHERE name LIKE '%mine'",
    );
    expect(after.rows[0]?.n).toBe("0");
  });

  it("resets what one connection set in the session before the next gets it", async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query("SET default_transaction_read_only = on");
      await client.query("CREATE TEMP TABLE mine (a int)");
      await client.query("SELECT pg_advisory_lock(42)");
      await client.query("PREPARE sqlprepared AS SELECT 1");
      // The connection is still open: its session state must not outlive its hand-back.
      await pool.query("INSERT INTO rows VALUES ($1, $2)", [10, "after-set"]);
      const state = await pool.query<{ ro: string; temp: string | null; locks: string; prepared: string }>(
        "SELECT current_setting('default_transaction_read_only') AS ro, to_regclass('pg_temp.mine')::text AS temp, " +
          "(SELECT count(*) FROM pg_locks WHERE locktype = 'advisory') AS locks, " +
          "(SELECT count(*) FROM pg_prepared_statements WHERE from_sql) AS prepared",
      );
      expect(state.rows[0]).toEqual({ ro: "off", temp: null, locks: "0", prepared: "0" });
    } finally {
      await client.end();
    }
  });

  it("refuses a message longer than the limit with 54000, and keeps serving", async () => {
    const folder = new URL(db.url).searchParams.get("host") ?? "";
    const socket = net.connect(path.join(folder, ".s.PGSQL.5432"));
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
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
    const startup = Buffer.concat([Buffer.alloc(8), Buffer.from("user\0postgres\0database\0postgres\0\0")]);
    startup.writeInt32BE(startup.length, 0);
    startup.writeInt32BE(196608, 4);
    socket.write(startup);
    // Only the header of a Query one byte over the limit: the front refuses before its body arrives.
    const header = Buffer.alloc(5);
    header.write("Q", 0, "latin1");
    header.writeInt32BE(MAX_MESSAGE_LENGTH + 1, 1);
    socket.write(header);
    await closed;
    const answer = Buffer.concat(received).toString("latin1");
    expect(answer).toContain("C54000");
    expect(answer).toContain(`longer than the embedded database accepts (${MAX_MESSAGE_LENGTH} bytes)`);
    const result = await pool.query<{ one: number }>("SELECT 1 AS one");
    expect(result.rows[0]?.one).toBe(1);
  });

  it("listens on a Unix socket only its user may open, and refuses a second server on the same folder", async () => {
    const folder = new URL(db.url).searchParams.get("host") ?? "";
    expect(folder).toBe(path.join(dir, "pglite"));
    expect(statSync(path.join(folder, ".s.PGSQL.5432")).mode & 0o777).toBe(0o600);
    await expect(startEmbeddedPostgres(dir, "pglite")).rejects.toThrow(/in use by another process/);
  });

  it("refuses a connection past the limit with too_many_connections, and keeps serving", async () => {
    const clients = Array.from({ length: 40 }, () => new pg.Client({ connectionString: db.url }));
    const results = await Promise.allSettled(clients.map((client) => client.connect()));
    const refused = results.filter((r) => r.status === "rejected");
    expect(refused.length).toBeGreaterThan(0);
    expect(String((refused[0] as PromiseRejectedResult).reason)).toMatch(/too many clients/);
    await Promise.all(
      clients.map((client, i) => (results[i]?.status === "fulfilled" ? client.end() : Promise.resolve())),
    );
    const result = await pool.query<{ one: number }>("SELECT 1 AS one");
    expect(result.rows[0]?.one).toBe(1);
  });
});

describe("the embedded database across restarts", () => {
  it("keeps what was committed when the process that served it was killed, and starts on the socket it left", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fts-embedded-"));
    try {
      // A child process serves the database and is killed with SIGKILL after a commit was answered.
      const served = await startEmbeddedDatabaseProcess(dir);
      const url = served.url;
      const client = new pg.Client({ connectionString: url });
      client.on("error", () => undefined);
      await client.connect();
      await client.query("CREATE TABLE kept (id int PRIMARY KEY)");
      await client.query("INSERT INTO kept SELECT generate_series(1, 100)");
      await served.stop("SIGKILL");

      const again = await startEmbeddedPostgres(dir, "pglite");
      const reader = new pg.Client({ connectionString: again.url });
      await reader.connect();
      const result = await reader.query<{ n: string }>("SELECT count(*) AS n FROM kept");
      expect(result.rows[0]?.n).toBe("100");
      await reader.end();
      await again.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the embedded database on a data folder whose socket path is too long for a socket address", () => {
  const longDataDir = (base: string): string => path.join(base, "d".repeat(Math.max(1, 120 - base.length - 1)));

  it("listens on a Unix socket in a private folder of this user, never on a TCP port, and still locks the folder", async () => {
    const base = mkdtempSync(path.join(tmpdir(), "fts-long-"));
    const dir = longDataDir(base);
    expect(dir.length).toBeGreaterThanOrEqual(120);
    const listens = vi.spyOn(net.Server.prototype, "listen");
    try {
      const db = await startEmbeddedPostgres(dir, "pglite");
      try {
        // Every listen of the front took a socket path, none a port.
        expect(listens.mock.calls.length).toBeGreaterThan(0);
        for (const call of listens.mock.calls) expect(typeof call[0]).toBe("string");
        const url = new URL(db.url);
        expect(url.port).toBe("");
        const folder = url.searchParams.get("host") ?? "";
        expect(statSync(folder).mode & 0o777).toBe(0o700);
        expect(statSync(folder).uid).toBe(process.getuid?.());
        expect(statSync(path.join(folder, ".s.PGSQL.5432")).mode & 0o777).toBe(0o600);
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        expect((await client.query<{ one: number }>("SELECT 1 AS one")).rows[0]?.one).toBe(1);
        await client.end();
        await expect(startEmbeddedPostgres(dir, "pglite")).rejects.toThrow(/in use by another process/);
      } finally {
        await db.stop();
      }
    } finally {
      listens.mockRestore();
      rmSync(base, { recursive: true, force: true });
    }
  });

  it("refuses to start, naming the path, when the temporary folder's path is too long as well", async () => {
    const base = mkdtempSync(path.join(tmpdir(), "fts-long-"));
    const dir = longDataDir(base);
    const longTmp = longDataDir(path.join(base, "t"));
    mkdirSync(longTmp, { recursive: true });
    vi.stubEnv("TMPDIR", longTmp);
    try {
      await expect(startEmbeddedPostgres(dir, "pglite")).rejects.toThrow(
        `the embedded database's socket path ${path.join(dir, "pglite", ".s.PGSQL.5432")} is longer than a socket address holds`,
      );
    } finally {
      vi.unstubAllEnvs();
      rmSync(base, { recursive: true, force: true });
    }
  });

  it("refuses a socket folder another user could open", async () => {
    const base = mkdtempSync(path.join(tmpdir(), "fts-long-"));
    const tmp = mkdtempSync(path.join(tmpdir(), "fts-t-"));
    const dir = longDataDir(base);
    vi.stubEnv("TMPDIR", tmp);
    try {
      const first = await startEmbeddedPostgres(dir, "pglite");
      const folder = new URL(first.url).searchParams.get("host") ?? "";
      await first.stop();
      mkdirSync(folder, { recursive: true });
      chmodSync(folder, 0o777);
      await expect(startEmbeddedPostgres(dir, "pglite")).rejects.toThrow(`socket folder ${folder}`);
    } finally {
      vi.unstubAllEnvs();
      rmSync(base, { recursive: true, force: true });
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
