// One `pg` code path for both databases: a real PostgreSQL from DATABASE_URL, or the embedded default,
// PGlite (Postgres in WASM) stored under DATA_DIR and served over its socket server on loopback.
import { mkdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import type { Logger } from "./log.js";

export interface Database {
  pool: pg.Pool;
  /** The URL the pool connects to (for child processes sharing an embedded database). */
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address === null || typeof address === "string") reject(new Error("no port"));
        else resolve(address.port);
      });
    });
  });
}

/**
 * Starts PGlite on `dataDir` behind a loopback socket server. Every connection shares one query queue,
 * so a transaction holds all others back until it ends: callers must never await a second connection
 * inside a transaction.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  name = "pglite",
  maxConnections = 16,
): Promise<EmbeddedPostgres> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const dir = path.resolve(dataDir, name);
  mkdirSync(dir, { recursive: true });
  const db = await PGlite.create(dir);
  const port = await freeLoopbackPort();
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port, maxConnections });
  await server.start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
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
