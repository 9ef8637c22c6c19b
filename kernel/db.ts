// One `pg` code path for both databases: a real PostgreSQL from DATABASE_URL, or the embedded default,
// PGlite (Postgres in WASM) stored under DATA_DIR and served on loopback (kernel/embedded-postgres.ts).
import path from "node:path";
import pg from "pg";
import { bounded, connectBound, isDatabaseUnavailable } from "./db-deadline.js";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "./embedded-postgres.js";
import type { Logger } from "./log.js";

export { startEmbeddedPostgres, type EmbeddedPostgres } from "./embedded-postgres.js";

export interface Database {
  pool: pg.Pool;
  /** The URL the pool connects to (for child processes sharing an embedded database). */
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  url: string | undefined;
  dataDir: string;
  /**
   * Folder under DATA_DIR of the embedded database when this process runs alone (the `npm start` supervisor
   * hosts one shared embedded database and passes its URL instead).
   */
  embeddedName: string;
  poolSize: number;
  /** Longest wait for a connection (a free slot or a new one's handshake); unbounded when absent. */
  connectTimeoutMs?: number;
  log: Logger;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  let embedded: EmbeddedPostgres | undefined;
  let url = options.url;
  if (url === undefined) {
    embedded = await startEmbeddedPostgres(options.dataDir, options.embeddedName);
    url = embedded.url;
    options.log.info({ dataDir: path.resolve(options.dataDir) }, "using embedded PGlite database");
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize,
    idleTimeoutMillis: 60_000,
    ...(options.connectTimeoutMs === undefined ? {} : connectBound(options.connectTimeoutMs)),
  });
  pool.on("error", (error) => {
    options.log.error({ err: error }, "idle database connection failed");
  });
  return {
    pool,
    url,
    embedded: embedded !== undefined,
    async close() {
      await pool.end();
      await embedded?.stop();
    },
  };
}

/** The SQLSTATE of a failed query (pg puts it in `code`), or undefined for any other error. */
export function sqlStateOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}

/**
 * Runs `fn` inside one transaction on one connection, rolling back on any error. A connection whose database
 * did not answer (a bounded query timed out, the socket broke) is destroyed instead: its reply may still come,
 * and closing it is what ends the transaction on the server. With `timeoutMs`, BEGIN, COMMIT and ROLLBACK are
 * bounded by it (`fn` bounds its own statements).
 */
export async function transaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  timeoutMs?: number,
): Promise<T> {
  const statement = (text: string): string | pg.QueryConfig =>
    timeoutMs === undefined ? text : bounded(timeoutMs, text);
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(statement("BEGIN"));
    const result = await fn(client);
    await client.query(statement("COMMIT"));
    return result;
  } catch (error) {
    if (isDatabaseUnavailable(error)) broken = error as Error;
    else
      await client.query(statement("ROLLBACK")).catch((rollback: unknown) => {
        broken = rollback instanceof Error ? rollback : new Error(String(rollback));
      });
    throw error;
  } finally {
    client.release(broken);
  }
}
