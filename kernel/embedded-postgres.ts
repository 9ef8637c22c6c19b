// The embedded default database: PGlite (PostgreSQL in WASM, one single-user session) served to every
// process over a loopback socket that speaks the PostgreSQL wire protocol. PGlite has ONE session, so this
// front lends it to one connection at a time, from that connection's first message until PostgreSQL answers
// ReadyForQuery with the transaction idle and no extended-query exchange open; the other connections wait
// in line (docs/embedded-database.md). Each connection's named statements and portals get a prefix of their
// own, and what a connection leaves behind when it goes (an open transaction, an unfinished extended-query
// exchange, its prepared statements) is cleaned up before the next connection gets the session.
import { chmodSync, existsSync, mkdirSync, unlinkSync } from "node:fs";
import net from "node:net";
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
   * sends nothing for this long is closed and its transaction rolled back, as PostgreSQL's
   * idle_in_transaction_session_timeout does: one stuck client must not stop every other one.
   */
  idleInTransactionTimeoutMs?: number;
  /**
   * "socket" (the default): a Unix socket inside the data folder, mode 0600, so only this user's processes
   * reach it and no port can clash; "tcp": a port on 127.0.0.1 (also used when the socket's path is too long).
   */
  listen?: "socket" | "tcp";
}

/** The name PostgreSQL gives its socket in a folder: `pg` connects to `<host>/.s.PGSQL.<port>`. */
const SOCKET_NAME = ".s.PGSQL.5432";
/** sockaddr_un holds 108 bytes on Linux, 104 on macOS. */
const MAX_SOCKET_PATH = 100;

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
 * Starts PGlite on `dataDir/name` behind the session-lending front on a loopback port. Callers must never
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
  const socketPath = path.join(dir, SOCKET_NAME);
  const onSocket =
    (options.listen ?? "socket") === "socket" &&
    process.platform !== "win32" &&
    Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH;
  if (onSocket) await claimSocketPath(socketPath);
  const { PGlite } = await import("@electric-sql/pglite");
  const db = await PGlite.create(dir);
  const session = new Session(db);
  const front = acceptConnections(session, options);
  let url: string;
  try {
    url = await listen(front.server, dir, onSocket ? socketPath : undefined);
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
    },
  };
}

/** The front's server: a Connection for each client socket, up to `maxConnections` at once. */
function acceptConnections(
  session: Session,
  options: EmbeddedPostgresOptions,
): { server: net.Server; sockets: Set<net.Socket>; stats: () => EmbeddedStats } {
  const maxConnections = options.maxConnections ?? 64;
  const idleTimeout = options.idleInTransactionTimeoutMs ?? 30_000;
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

/**
 * Listens on the Unix socket at `socketPath` (mode 0600), or without one on a free port of 127.0.0.1; answers
 * the URL a client connects with.
 */
function listen(server: net.Server, dir: string, socketPath: string | undefined): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    server.once("error", reject);
    const listening = (): void => {
      server.off("error", reject);
      const address = server.address();
      if (socketPath !== undefined) {
        chmodSync(socketPath, 0o600);
        resolve(`postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir)}`);
      } else if (address === null || typeof address === "string") reject(new Error("no port"));
      else resolve(`postgres://postgres@127.0.0.1:${address.port}/postgres?sslmode=disable`);
    };
    if (socketPath !== undefined) server.listen(socketPath, listening);
    else server.listen(0, "127.0.0.1", listening);
  });
}
