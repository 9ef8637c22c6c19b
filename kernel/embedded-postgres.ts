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
import type { PGlite } from "@electric-sql/pglite";

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

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
/** Startup packets are small; anything larger is not a PostgreSQL client. */
const MAX_STARTUP_LENGTH = 10_000;
/** PostgreSQL's own bound on one message. */
const MAX_MESSAGE_LENGTH = 1 << 30;

const READY_FOR_QUERY = 0x5a; // 'Z'
const IDLE = 0x49; // 'I'
/** Frontend messages of the extended-query protocol: the session stays lent until a Sync ends them. */
const EXTENDED = new Set([0x50, 0x42, 0x44, 0x45, 0x43, 0x48]); // P B D E C H
const PARSE = 0x50;
const BIND = 0x42;
const DESCRIBE = 0x44;
const EXECUTE = 0x45;
const CLOSE = 0x43;
const SYNC = 0x53;
const QUERY = 0x51;
const TERMINATE = 0x58;

/** A frontend message with its type byte and length (startup packets have neither type nor `type`). */
interface Message {
  type: number | undefined;
  bytes: Uint8Array;
}

function cstring(buffer: Buffer, offset: number): { value: string; end: number } {
  const end = buffer.indexOf(0, offset);
  if (end < 0) throw new Error("unterminated string in a frontend message");
  return { value: buffer.toString("utf8", offset, end), end: end + 1 };
}

function frame(type: number, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header[0] = type;
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

function simpleQuery(sql: string): Uint8Array {
  return frame(QUERY, Buffer.from(`${sql}\0`, "utf8"));
}

const SYNC_MESSAGE = frame(SYNC, Buffer.alloc(0));

/** An ErrorResponse the client's driver understands (used before a connection is served). */
function errorResponse(severity: string, code: string, message: string): Buffer {
  const body = Buffer.from(`S${severity}\0V${severity}\0C${code}\0M${message}\0\0`, "utf8");
  return frame(0x45, body);
}

/** The transaction status of the response's last message when it is ReadyForQuery, else undefined. */
export function finalReadyStatus(response: Uint8Array): number | undefined {
  let offset = 0;
  let last: number | undefined;
  while (offset + 5 <= response.length) {
    const type = response[offset] as number;
    const length =
      (((response[offset + 1] as number) << 24) |
        ((response[offset + 2] as number) << 16) |
        ((response[offset + 3] as number) << 8) |
        (response[offset + 4] as number)) >>>
      0;
    const next = offset + 1 + length;
    last = type === READY_FOR_QUERY && next <= response.length ? response[offset + 5] : undefined;
    offset = next;
  }
  return last;
}

/**
 * Rewrites the statement and portal names of an extended-query message into the connection's own namespace
 * (the unnamed statement and portal stay unnamed: the session is lent for the whole exchange that uses them).
 * Returns the rewritten message and, for Parse and Close of a statement, the statement name it declares.
 */
export function scopeNames(message: Message, prefix: string): { bytes: Uint8Array; parsed?: string; closed?: string } {
  const scope = (name: string): string => (name === "" ? "" : `${prefix}${name}`);
  const buffer = Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength);
  const body = 5;
  switch (message.type) {
    case PARSE: {
      const name = cstring(buffer, body);
      if (name.value === "") return { bytes: message.bytes };
      const scoped = scope(name.value);
      return {
        bytes: frame(PARSE, Buffer.concat([Buffer.from(`${scoped}\0`, "utf8"), buffer.subarray(name.end)])),
        parsed: scoped,
      };
    }
    case BIND: {
      const portal = cstring(buffer, body);
      const statement = cstring(buffer, portal.end);
      if (portal.value === "" && statement.value === "") return { bytes: message.bytes };
      return {
        bytes: frame(
          BIND,
          Buffer.concat([
            Buffer.from(`${scope(portal.value)}\0${scope(statement.value)}\0`, "utf8"),
            buffer.subarray(statement.end),
          ]),
        ),
      };
    }
    case DESCRIBE:
    case CLOSE: {
      const kind = buffer[body] as number;
      const name = cstring(buffer, body + 1);
      if (name.value === "") return { bytes: message.bytes };
      const scoped = scope(name.value);
      const bytes = frame(message.type, Buffer.concat([Buffer.from([kind]), Buffer.from(`${scoped}\0`, "utf8")]));
      return message.type === CLOSE && kind === 0x53 ? { bytes, closed: scoped } : { bytes };
    }
    case EXECUTE: {
      const portal = cstring(buffer, body);
      if (portal.value === "") return { bytes: message.bytes };
      return {
        bytes: frame(
          EXECUTE,
          Buffer.concat([Buffer.from(`${scope(portal.value)}\0`, "utf8"), buffer.subarray(portal.end)]),
        ),
      };
    }
    default:
      return { bytes: message.bytes };
  }
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

const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

type Turn = () => Promise<void>;

/**
 * Who holds PGlite's one session and who waits for it. A turn runs with the session until it hands it back;
 * waiting turns run in arrival order.
 */
class Session {
  private holder: object | undefined;
  private readonly line: { owner: object; turn: Turn }[] = [];

  constructor(private readonly db: PGlite) {}

  get waiting(): number {
    return this.line.length;
  }

  heldBy(owner: object): boolean {
    return this.holder === owner;
  }

  /** Runs `turn` as soon as the session is free or already held by `owner`. */
  request(owner: object, turn: Turn): void {
    if (this.holder === undefined || this.holder === owner) {
      this.holder = owner;
      void turn();
      return;
    }
    if (!this.line.some((waiting) => waiting.owner === owner)) this.line.push({ owner, turn });
  }

  release(owner: object): void {
    if (this.holder !== owner) return;
    this.holder = undefined;
    const next = this.line.shift();
    if (next === undefined) return;
    this.holder = next.owner;
    void next.turn();
  }

  forget(owner: object): void {
    for (let i = this.line.length - 1; i >= 0; i--) if (this.line[i]?.owner === owner) this.line.splice(i, 1);
  }

  exec(bytes: Uint8Array): Promise<Uint8Array> {
    return this.db.runExclusive(() => this.db.execProtocolRaw(bytes));
  }
}

/** One client socket: splits its bytes into messages and plays them against the session in its turns. */
class Connection {
  private buffer: Buffer = Buffer.alloc(0);
  private readonly pending: Message[] = [];
  private started = false;
  private closed = false;
  private running = false;
  /** Extended-query messages were executed since the last Sync: the session stays lent. */
  private openExchange = false;
  /** The last response ended outside an idle transaction (or with none): the session stays lent. */
  private inTransaction = false;
  private readonly statements = new Set<string>();
  private idleTimer: NodeJS.Timeout | undefined;
  readonly prefix: string;

  constructor(
    private readonly socket: net.Socket,
    private readonly session: Session,
    id: number,
    private readonly idleInTransactionTimeoutMs: number,
    private readonly onIdleKill: () => void,
    private readonly onGone: (connection: Connection) => void,
  ) {
    this.prefix = `c${id}_`;
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => {
      this.receive(chunk);
    });
    socket.on("error", () => {
      socket.destroy();
    });
    socket.on("close", () => {
      this.gone();
    });
  }

  private receive(chunk: Buffer): void {
    this.clearIdleTimer();
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    try {
      this.split();
    } catch (error) {
      this.refuse("08P01", error instanceof Error ? error.message : "protocol violation");
      return;
    }
    if (this.pending.length > 0) this.session.request(this, () => this.play());
  }

  /** Moves every complete message out of the buffer; answers SSL and GSSAPI requests itself. */
  private split(): void {
    for (;;) {
      if (!this.started) {
        if (this.buffer.length < 8) return;
        const length = this.buffer.readInt32BE(0);
        if (length < 8 || length > MAX_STARTUP_LENGTH) throw new Error("invalid startup packet length");
        if (this.buffer.length < length) return;
        const code = this.buffer.readInt32BE(4);
        const packet = this.buffer.subarray(0, length);
        this.buffer = this.buffer.subarray(length);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          this.socket.write("N");
          continue;
        }
        if (code === CANCEL_REQUEST) {
          // Nothing runs outside a turn, so there is never a running query of another socket to cancel.
          this.socket.end();
          return;
        }
        if (code !== PROTOCOL_3) throw new Error(`unsupported frontend protocol ${code}`);
        this.started = true;
        this.pending.push({ type: undefined, bytes: Uint8Array.from(packet) });
        continue;
      }
      if (this.buffer.length < 5) return;
      const length = this.buffer.readInt32BE(1);
      if (length < 4 || length > MAX_MESSAGE_LENGTH) throw new Error("invalid message length");
      if (this.buffer.length < length + 1) return;
      const type = this.buffer[0] as number;
      // A copy: the socket's chunk may be reused, and the rewrite below reads the bytes later.
      const bytes = Uint8Array.from(this.buffer.subarray(0, length + 1));
      this.buffer = this.buffer.subarray(length + 1);
      this.pending.push({ type, bytes });
    }
  }

  /**
   * The next messages to run in one call: a startup packet alone, or every pending message up to and
   * including the first Sync or Query (PGlite runs a buffer of several messages in one call).
   */
  private nextBatch(): { bytes: Uint8Array; last: number | undefined } | undefined {
    const first = this.pending.shift();
    if (first === undefined || first.type === undefined) {
      return first === undefined ? undefined : { bytes: first.bytes, last: undefined };
    }
    const parts: Uint8Array[] = [];
    let message: Message | undefined = first;
    let last = first.type;
    for (;;) {
      const scoped = scopeNames(message, this.prefix);
      if (scoped.parsed !== undefined) this.statements.add(scoped.parsed);
      if (scoped.closed !== undefined) this.statements.delete(scoped.closed);
      parts.push(scoped.bytes);
      last = message.type as number;
      if (last === SYNC || last === QUERY) break;
      const next = this.pending[0];
      if (next === undefined || next.type === undefined || next.type === TERMINATE) break;
      message = this.pending.shift();
      if (message === undefined) break;
    }
    return { bytes: parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts), last };
  }

  /** One turn with the session: plays every pending message, then keeps or hands back the session. */
  private async play(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.pending.length > 0 && !this.closed) {
        if (this.pending[0]?.type === TERMINATE) {
          this.pending.length = 0;
          this.socket.end();
          break;
        }
        const batch = this.nextBatch();
        if (batch === undefined) break;
        const response = await this.session.exec(batch.bytes);
        this.openExchange = batch.last !== undefined && EXTENDED.has(batch.last);
        const status = finalReadyStatus(response);
        if (status !== undefined) this.inTransaction = status !== IDLE;
        // A copy: PGlite reuses the buffer it answered in, and the socket may not send at once.
        if (response.length > 0 && !this.closed) this.socket.write(Buffer.from(response));
      }
    } catch (error) {
      // PGlite itself failed (an SQL error is an answer, not a throw): this connection cannot go on; its
      // clean-up runs once the socket has closed.
      this.running = false;
      this.refuse("XX000", error instanceof Error ? error.message : "embedded database failure");
      return;
    }
    this.running = false;
    if (this.closed) return;
    if (this.pending.length > 0) {
      void this.play();
      return;
    }
    if (this.openExchange || this.inTransaction) this.armIdleTimer();
    else this.session.release(this);
  }

  private armIdleTimer(): void {
    if (this.idleInTransactionTimeoutMs <= 0) return;
    this.clearIdleTimer();
    this.idleTimer = setTimeout(() => {
      this.onIdleKill();
      this.refuse("25P03", "terminating connection due to idle-in-transaction timeout");
    }, this.idleInTransactionTimeoutMs);
    this.idleTimer.unref();
  }

  private clearIdleTimer(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** Tells the client why (FATAL) and closes the socket; clean-up follows on close. */
  private refuse(code: string, message: string): void {
    if (this.socket.writable) this.socket.end(errorResponse("FATAL", code, message));
    this.socket.destroy();
  }

  /**
   * The socket is gone: whatever it left in the session (an unfinished exchange, an open transaction, its
   * prepared statements) is undone in a turn of its own before anyone else gets the session.
   */
  private gone(): void {
    if (this.closed) return;
    this.closed = true;
    this.clearIdleTimer();
    this.pending.length = 0;
    this.onGone(this);
    const cleanUp = async (): Promise<void> => {
      try {
        if (this.openExchange) await this.session.exec(SYNC_MESSAGE);
        if (this.inTransaction) await this.session.exec(simpleQuery("ROLLBACK"));
        for (const name of this.statements) await this.session.exec(simpleQuery(`DEALLOCATE ${quoteIdent(name)}`));
      } finally {
        this.session.release(this);
      }
    };
    const dirty = this.openExchange || this.inTransaction || this.statements.size > 0;
    if (this.session.heldBy(this)) {
      // A turn in progress finishes its current message first; it sees `closed` and stops.
      const waitForTurn = async (): Promise<void> => {
        while (this.running) await new Promise((resolve) => setImmediate(resolve));
        await cleanUp();
      };
      void waitForTurn();
      return;
    }
    this.session.forget(this);
    if (dirty) this.session.request(this, cleanUp);
  }
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
  let url: string;
  try {
    url = await new Promise<string>((resolve, reject) => {
      server.once("error", reject);
      const listening = (): void => {
        server.off("error", reject);
        const address = server.address();
        if (onSocket) {
          chmodSync(socketPath, 0o600);
          resolve(`postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir)}`);
        } else if (address === null || typeof address === "string") reject(new Error("no port"));
        else resolve(`postgres://postgres@127.0.0.1:${address.port}/postgres?sslmode=disable`);
      };
      if (onSocket) server.listen(socketPath, listening);
      else server.listen(0, "127.0.0.1", listening);
    });
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    url,
    stats: () => ({ connections: connections.size, waiting: session.waiting, idleInTransactionKills }),
    async stop() {
      const closed = new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
      for (const socket of sockets) socket.destroy();
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
