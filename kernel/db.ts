// One `pg` code path for both databases: a real PostgreSQL from DATABASE_URL, or the embedded default,
// PGlite (Postgres in WASM) stored under DATA_DIR and served on loopback (kernel/embedded-postgres.ts).
import path from "node:path";
import pg from "pg";
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
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize, idleTimeoutMillis: 60_000 });
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

/** Runs `fn` inside one transaction on one connection, rolling back on any error. */
export async function transaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
