import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startPostgres, type PostgresServer } from "../test/harness/postgres.js";
import { startStallProxy, type StallProxy } from "../test/harness/stall-proxy.js";
import { transaction } from "./db.js";
import { bounded, connectBound, isDatabaseUnavailable } from "./db-deadline.js";

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe("isDatabaseUnavailable", () => {
  it.each([
    ["a query that timed out", new Error("Query read timeout")],
    ["no free connection in time", new Error("timeout exceeded when trying to connect")],
    ["a handshake that timed out", new Error("Connection terminated due to connection timeout")],
    ["a socket the server closed", new Error("Connection terminated unexpectedly")],
    ["a refused connection", withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED")],
    ["a reset connection", withCode("read ECONNRESET", "ECONNRESET")],
    ["an administrator shutdown", withCode("terminating connection due to administrator command", "57P01")],
    ["a connection failure (class 08)", withCode("connection failure", "08006")],
    ["a server starting up", withCode("the database system is starting up", "57P03")],
    ["too many connections", withCode("sorry, too many clients already", "53300")],
    ["a timeout wrapped as the cause", new Error("append failed", { cause: new Error("Query read timeout") })],
  ])("says yes to %s", (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ["a duplicate key", withCode("duplicate key value violates unique constraint", "23505")],
    ["a syntax error", withCode("syntax error at or near", "42601")],
    ["a lost lease (the fence)", withCode("partition lease not held", "FTS01")],
    ["a prepared statement name clash", withCode('prepared statement "x" already exists', "42P05")],
    ["a bug", new Error("insert returned no row")],
    ["a string", "Query read timeout"],
  ])("says no to %s", (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe("bounded waits on a database that stops answering", () => {
  let server: PostgresServer | undefined;
  let proxy: StallProxy;
  let pool: pg.Pool;
  const TIMEOUT_MS = 300;

  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });
  beforeEach(async () => {
    if (server === undefined) throw new Error("PostgreSQL did not start");
    proxy = await startStallProxy(server.url);
    pool = new pg.Pool({ connectionString: proxy.url, max: 2, ...connectBound(TIMEOUT_MS) });
    pool.on("error", () => undefined);
  });
  afterEach(async () => {
    proxy.resume();
    await pool.end();
    await proxy.stop();
  });

  const echo = async (value: string): Promise<string | undefined> => {
    const result = await pool.query<{ v: string }>(bounded(TIMEOUT_MS, "SELECT $1::text AS v", [value]));
    return result.rows[0]?.v;
  };

  it("fails a bounded query as unavailable, and the next query after recovery reads its own answer", async () => {
    expect(await echo("before")).toBe("before");
    proxy.stall();
    const failed = await echo("stalled").catch((error: unknown) => error);
    expect(isDatabaseUnavailable(failed)).toBe(true);
    proxy.resume();
    // The connection that waited was destroyed, not reused: its late reply ("stalled") answers nobody.
    expect(await echo("after")).toBe("after");
    expect(await echo("again")).toBe("again");
  });

  it("fails the wait for a new connection as unavailable while the database does not answer", async () => {
    proxy.stall();
    const failed = await echo("new").catch((error: unknown) => error);
    expect(isDatabaseUnavailable(failed)).toBe(true);
    proxy.resume();
    expect(await echo("recovered")).toBe("recovered");
  });

  it("destroys a transaction's connection whose statement timed out, and the pool serves on after recovery", async () => {
    await pool.query("CREATE TABLE IF NOT EXISTS deadline_t (v text)");
    await pool.query("TRUNCATE deadline_t");
    const run = transaction(
      pool,
      async (client) => {
        await client.query(bounded(TIMEOUT_MS, "INSERT INTO deadline_t VALUES ($1)", ["one"]));
        proxy.stall();
        await client.query(bounded(TIMEOUT_MS, "INSERT INTO deadline_t VALUES ($1)", ["two"]));
      },
      TIMEOUT_MS,
    );
    const failed = await run.catch((error: unknown) => error);
    expect(isDatabaseUnavailable(failed)).toBe(true);
    expect(pool.totalCount).toBe(0);
    proxy.resume();
    expect(await echo("after")).toBe("after");
    // Closing the connection ended the transaction on the server: nothing of it was committed.
    const count = async (): Promise<number | undefined> =>
      (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM deadline_t")).rows[0]?.n;
    await expect.poll(count).toBe(0);
  });
});
