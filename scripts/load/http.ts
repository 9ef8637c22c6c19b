// A lean HTTP/1.1 keep-alive client for the load driver and the engine load bench (scripts/bench-engine-load.ts):
// raw `net` sockets, one request in flight per connection, and, for the load driver, a pool that opens another
// socket whenever every open one is busy, so a slow answer never holds back the next request (open loop). On
// two cores the client shares the CPU with the servers; a hand-made parser costs a few µs per request, several
// times less than http.Agent or fetch.
import net from "node:net";

export type Answer = (status: number, body: Buffer | undefined, error: string | undefined) => void;

const CRLFCRLF = Buffer.from("\r\n\r\n");
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;
const CHUNKED = /\r\ntransfer-encoding:[ \t]*chunked/i;
const CLOSE = /\r\nconnection:[ \t]*close/i;

/** Where a chunked body that starts at `start` ends, and the body; undefined while incomplete. */
export function dechunk(buf: Buffer, start: number): { end: number; body: Buffer } | undefined {
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = buf.indexOf("\r\n", at, "latin1");
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(buf.toString("latin1", at, lineEnd).split(";")[0] ?? "", 16);
    if (!Number.isInteger(size) || size < 0) throw new Error("bad chunk size");
    if (size === 0) {
      if (buf.length < lineEnd + 4) return undefined;
      return { end: lineEnd + 4, body: Buffer.concat(parts) };
    }
    const dataEnd = lineEnd + 2 + size;
    if (buf.length < dataEnd + 2) return undefined;
    parts.push(buf.subarray(lineEnd + 2, dataEnd));
    at = dataEnd + 2;
  }
}

/**
 * Parses one response from the start of `buf`: its status, body and where it ends; undefined while incomplete.
 * `close` tells that the server will close the socket after it.
 */
export function parseResponse(buf: Buffer): { status: number; body: Buffer; end: number; close: boolean } | undefined {
  const headEnd = buf.indexOf(CRLFCRLF);
  if (headEnd < 0) return undefined;
  const head = buf.toString("latin1", 0, headEnd);
  const status = Number(head.slice(9, 12));
  const close = CLOSE.test(head);
  const length = CONTENT_LENGTH.exec(head);
  if (length !== null) {
    const end = headEnd + 4 + Number(length[1]);
    if (buf.length < end) return undefined;
    return { status, body: buf.subarray(headEnd + 4, end), end, close };
  }
  if (CHUNKED.test(head)) {
    const parsed = dechunk(buf, headEnd + 4);
    return parsed === undefined ? undefined : { status, body: parsed.body, end: parsed.end, close };
  }
  return { status, body: Buffer.alloc(0), end: headEnd + 4, close };
}

/** One socket's bytes gathered into responses, one request in flight: what is left after a response is kept. */
class ResponseReader {
  private pending: Buffer | undefined;

  /** The response `chunk` completes, or undefined while it is incomplete; throws on a malformed response. */
  read(chunk: Buffer): ReturnType<typeof parseResponse> {
    const buf = this.pending === undefined ? chunk : Buffer.concat([this.pending, chunk]);
    const parsed = parseResponse(buf);
    // Anything after the answer would be a protocol error; it is kept for the next read to refuse.
    this.pending = parsed === undefined ? buf : parsed.end < buf.length ? buf.subarray(parsed.end) : undefined;
    return parsed;
  }

  clear(): void {
    this.pending = undefined;
  }
}

/** What a connection tells its owner: `idle` after an answer that leaves its socket usable, `closed` when its socket closes. */
export interface ConnectionEvents {
  idle?(connection: Connection): void;
  closed?(connection: Connection): void;
}

/**
 * One keep-alive socket to host:port, one request in flight. A request sent while the socket connects waits for
 * it; one sent after the server closed the socket, or after an answer with `Connection: close`, goes out on a
 * new socket.
 */
export class Connection {
  private socket: net.Socket | undefined;
  /** Settles when `socket` has connected, or could not. */
  private connecting: Promise<void> = Promise.resolve();
  private readonly reader = new ResponseReader();
  private answer: Answer | undefined;
  private wantBody = true;
  private closing = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly events: ConnectionEvents = {},
  ) {}

  /** Whether a request can go out on the current socket (open or connecting, and not closing). */
  get usable(): boolean {
    return this.socket !== undefined && !this.socket.destroyed && !this.closing;
  }

  /** Connects unless the socket is open or connecting; settles once it is connected, rejects if it could not. */
  open(): Promise<void> {
    if (this.socket === undefined || this.socket.destroyed) this.connect();
    return this.connecting;
  }

  /**
   * Sends one request; `answer` is called once, with the answer or an error. `wantBody: false` answers without
   * the body.
   */
  send(request: string, answer: Answer, wantBody = true): void {
    if (this.answer !== undefined) throw new Error("one request at a time per connection");
    this.answer = answer;
    this.wantBody = wantBody;
    const socket = this.socket;
    if (socket !== undefined && !socket.destroyed && !socket.connecting && !this.closing) {
      socket.write(request, "latin1");
      return;
    }
    if (this.closing) this.close();
    this.open().then(
      () => this.socket?.write(request, "latin1"),
      (error: unknown) => {
        this.fail(`connect failed: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  }

  /** Closes the socket; a request in flight is not answered. */
  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private connect(): void {
    this.reader.clear();
    this.closing = false;
    const socket = net.connect({ host: this.host, port: this.port, noDelay: true });
    this.socket = socket;
    this.connecting = new Promise<void>((resolve, reject) => {
      socket.once("connect", () => {
        resolve();
      });
      socket.once("error", reject);
    });
    this.connecting.catch(() => undefined);
    socket.on("error", () => {
      // reported through "close"
    });
    socket.on("data", (chunk: Buffer) => {
      this.onData(chunk);
    });
    socket.on("close", () => {
      // A socket closed or replaced by this connection is not its business any more.
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.fail("connection closed");
      this.events.closed?.(this);
    });
  }

  private fail(reason: string): void {
    const answer = this.answer;
    this.answer = undefined;
    this.reader.clear();
    answer?.(0, undefined, reason);
  }

  private onData(chunk: Buffer): void {
    let parsed: ReturnType<ResponseReader["read"]>;
    try {
      parsed = this.reader.read(chunk);
    } catch {
      this.socket?.destroy();
      return;
    }
    if (parsed === undefined) return;
    if (parsed.close) {
      this.closing = true;
      this.socket?.end();
    }
    const answer = this.answer;
    this.answer = undefined;
    answer?.(parsed.status, this.wantBody ? parsed.body : undefined, undefined);
    if (this.usable) this.events.idle?.(this);
  }
}

export interface PoolStats {
  /** Sockets opened in all. */
  opened: number;
  /** Most sockets open at once. */
  peakOpen: number;
  /** Requests that waited for a socket because `maxConnections` were all busy. */
  queued: number;
}

/** Keep-alive sockets to one host:port; a request takes an idle socket or opens a new one. */
export class Pool {
  private readonly idle: Connection[] = [];
  private readonly open = new Set<Connection>();
  private readonly waiting: { request: string; answer: Answer }[] = [];
  readonly stats: PoolStats = { opened: 0, peakOpen: 0, queued: 0 };

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly maxConnections = 2048,
  ) {}

  /** Opens `count` sockets ahead of the run. */
  async warm(count: number): Promise<void> {
    const fresh = Array.from({ length: count }, () => this.connect());
    await Promise.all(fresh.map((c) => c.open()));
    for (const c of fresh) this.release(c);
  }

  request(request: string, answer: Answer): void {
    let conn = this.idle.pop();
    while (conn !== undefined && !conn.usable) conn = this.idle.pop();
    if (conn === undefined) {
      if (this.open.size >= this.maxConnections) {
        this.stats.queued++;
        this.waiting.push({ request, answer });
        return;
      }
      conn = this.connect();
    }
    conn.send(request, answer);
  }

  /** Closes every socket; requests still waiting or in flight are not answered. */
  close(): void {
    for (const c of this.open) c.close();
    this.open.clear();
    this.idle.length = 0;
  }

  private connect(): Connection {
    const conn = new Connection(this.host, this.port, {
      idle: (c) => {
        this.release(c);
      },
      closed: (c) => {
        this.open.delete(c);
        const i = this.idle.indexOf(c);
        if (i >= 0) this.idle.splice(i, 1);
      },
    });
    void conn.open();
    this.open.add(conn);
    this.stats.opened++;
    this.stats.peakOpen = Math.max(this.stats.peakOpen, this.open.size);
    return conn;
  }

  private release(conn: Connection): void {
    const next = this.waiting.shift();
    if (next !== undefined) conn.send(next.request, next.answer);
    else this.idle.push(conn);
  }
}

/** The whole request text (head and body) for one call. */
export function requestText(
  method: string,
  path: string,
  hostHeader: string,
  headers: string,
  body: string | undefined,
): string {
  if (body === undefined) return `${method} ${path} HTTP/1.1\r\nHost: ${hostHeader}\r\n${headers}\r\n`;
  return (
    `${method} ${path} HTTP/1.1\r\nHost: ${hostHeader}\r\n${headers}` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}
