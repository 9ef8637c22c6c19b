// The embedded default database: PGlite (PostgreSQL in WASM, one single-user session) served to every
// process over a Unix socket that speaks the PostgreSQL wire protocol. PGlite has ONE session, so this
// front lends it to one connection at a time, from that connection's first message until PostgreSQL answers
// ReadyForQuery with the transaction idle and no extended-query exchange open; the other connections wait
// in line (docs/embedded-database.md). Each connection's named statements and portals get a prefix of their
// own, and what a connection leaves behind when it goes (an open transaction, an unfinished extended-query
// exchange, its prepared statements) is cleaned up before the next connection gets the session.
import { createHash } from "node:crypto";
import { chmodSync, existsSync, lstatSync, mkdirSync, realpathSync, rmdirSync, unlinkSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Connection } from "./embedded-postgres/connection.js";
import { Session } from "./embedded-postgres/session.js";
import { errorResponse } from "./embedded-postgres/wire.js";

export interface EmbeddedPostgres {
  url: string;
  /** Live counters of the front, for tests and the runbook's figures. */
  stats(): EmbeddedStats;
  stop(): Promise<void>;
}

export interface EmbeddedStats {
  connections: number;
  /** Connections (and clean-ups) waiting for the session. */
  waiting: number;
  /** Connections closed for holding the session idle inside a transaction too long. */
  idleInTransactionKills: number;
}

export interface EmbeddedPostgresOptions {
  /** Sockets served at once; one more is refused with SQLSTATE 53300 (too_many_connections). */
  maxConnections?: number;
  /**
   * A connection that holds the session inside a transaction (or an unfinished extended-query exchange) and
   * sends no complete message for this long is closed with FATAL 25P03 and its transaction rolled back, as
   * PostgreSQL's idle_in_transaction_session_timeout does: one stuck client must not stop every other one.
   * Default IDLE_IN_TRANSACTION_TIMEOUT_MS; 0 turns it off.
   */
  idleInTransactionTimeoutMs?: number;
}

/** The default idle-in-transaction timeout (docs/embedded-database.md). */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 10_000;

/** The name PostgreSQL gives its socket in a folder: `pg` connects to `<host>/.s.PGSQL.<port>`. */
const SOCKET_NAME = ".s.PGSQL.5432";
/** sockaddr_un holds 108 bytes on Linux, 104 on macOS. */
const MAX_SOCKET_PATH = 100;

/**
 * The folder of the database's Unix socket: the data folder itself when the socket's path fits in a socket
 * address, else a private folder (mode 0700, this user's) under the temporary folder, named after the data
 * folder's real path so every server of one data folder finds the same socket. The database is never served
 * on a TCP port: a port on 127.0.0.1 has no owner, and PGlite asks no password (docs/embedded-database.md).
 */
export function socketFolder(dir: string): string {
  if (process.platform === "win32") {
    throw new Error(
      `the embedded database in ${dir} needs a Unix socket, which this platform does not offer: set DATABASE_URL`,
    );
  }
  const inside = path.join(dir, SOCKET_NAME);
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH) return dir;
  const digest = createHash("sha256").update(realpathSync(dir)).digest("hex").slice(0, 16);
  const folder = path.join(tmpdir(), `fts-pglite-${digest}`);
  const fallback = path.join(folder, SOCKET_NAME);
  if (Buffer.byteLength(fallback) > MAX_SOCKET_PATH) {
    throw new Error(
      `the embedded database's socket path ${inside} is longer than a socket address holds (${MAX_SOCKET_PATH} bytes), ` +
        `and so is ${fallback}: use a shorter DATA_DIR or TMPDIR`,
    );
  }
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const stat = lstatSync(folder);
  const ours = stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o077) === 0;
  if (!ours) {
    throw new Error(
      `the embedded database's socket folder ${folder} (for ${inside}, longer than a socket address holds) ` +
        `is not a folder of this user that only this user may open (mode 0700): remove it, or use a shorter DATA_DIR`,
    );
  }
  return folder;
}

/**
 * Takes the socket path for this process: refuses when another process serves the same data folder (two
 * PGlite instances on one folder would corrupt it), removes the file a killed process left behind.
 */
async function claimSocketPath(socketPath: string): Promise<void> {
  if (!existsSync(socketPath)) return;
  const live = await new Promise<boolean>((resolve) => {
    const probe = net.connect(socketPath);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => {
      resolve(false);
    });
  });
  if (live) throw new Error(`the embedded database in ${path.dirname(socketPath)} is in use by another process`);
  unlinkSync(socketPath);
}

/**
 * Starts PGlite on `dataDir/name` behind the session-lending front on a Unix socket. Callers must never
 * await a second connection while a transaction is open on a first: the second waits for the session
 * the first holds (docs/embedded-database.md).
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  name = "pglite",
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgres> {
  const dir = path.resolve(dataDir, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // The socket may sit in this folder: only this user may open it, as PostgreSQL asks of its data folder.
  chmodSync(dir, 0o700);
  const folder = socketFolder(dir);
  const socketPath = path.join(folder, SOCKET_NAME);
  await claimSocketPath(socketPath);
  const { PGlite } = await import("@electric-sql/pglite");
  const db = await PGlite.create(dir);
  const session = new Session(db);
  const front = acceptConnections(session, options);
  let url: string;
  try {
    url = await listen(front.server, folder, socketPath);
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    url,
    stats: front.stats,
    async stop() {
      const closed = new Promise<void>((resolve) =>
        front.server.close(() => {
          resolve();
        }),
      );
      for (const socket of front.sockets) socket.destroy();
      await closed;
      // The clean-up turns of the sockets just closed run before the database closes.
      const last = {};
      await new Promise<void>((resolve) => {
        session.request(last, async () => {
          resolve();
          return Promise.resolve();
        });
      });
      await db.close();
      if (folder !== dir) {
        try {
          rmdirSync(folder);
        } catch {
          // Another file in it, or gone already: the folder stays, private to this user.
        }
      }
    },
  };
}

/** The front's server: a Connection for each client socket, up to `maxConnections` at once. */
function acceptConnections(
  session: Session,
  options: EmbeddedPostgresOptions,
): { server: net.Server; sockets: Set<net.Socket>; stats: () => EmbeddedStats } {
  const maxConnections = options.maxConnections ?? 64;
  const idleTimeout = options.idleInTransactionTimeoutMs ?? IDLE_IN_TRANSACTION_TIMEOUT_MS;
  const connections = new Set<Connection>();
  const sockets = new Set<net.Socket>();
  let idleInTransactionKills = 0;
  let nextId = 1;

  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    if (connections.size >= maxConnections) {
      socket.end(errorResponse("FATAL", "53300", `sorry, too many clients already (${maxConnections})`));
      return;
    }
    const connection = new Connection(
      socket,
      session,
      nextId++,
      idleTimeout,
      () => {
        idleInTransactionKills++;
      },
      (gone) => connections.delete(gone),
    );
    connections.add(connection);
  });
  const stats = (): EmbeddedStats => ({
    connections: connections.size,
    waiting: session.waiting,
    idleInTransactionKills,
  });
  return { server, sockets, stats };
}

/** Listens on the Unix socket at `socketPath` (mode 0600); answers the URL a client connects with. */
function listen(server: net.Server, folder: string, socketPath: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      chmodSync(socketPath, 0o600);
      resolve(`postgres://postgres@localhost/postgres?host=${encodeURIComponent(folder)}`);
    });
  });
}
