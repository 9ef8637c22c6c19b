// One client socket of the embedded database's front: its bytes split into messages, played against the one
// session in its turns, and what it leaves behind in the session undone once it goes.
import type net from "node:net";
import type { Session } from "./session.js";
import { RESET_SESSION, mayChangeSession, sqlOf, startupMayChangeSession } from "./session-state.js";
import {
  CANCEL_REQUEST,
  EXTENDED,
  FRONTEND,
  GSSENC_REQUEST,
  IDLE,
  MAX_MESSAGE_LENGTH,
  MAX_STARTUP_LENGTH,
  PROTOCOL_3,
  SSL_REQUEST,
  SYNC_MESSAGE,
  errorResponse,
  finalReadyStatus,
  scopeNames,
  simpleQuery,
  type Message,
} from "./wire.js";

const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** A frontend message the front refuses, with the SQLSTATE it answers. */
class Refusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** One client socket: splits its bytes into messages and plays them against the session in its turns. */
export class Connection {
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
  /**
   * It sent SQL that may change the session beyond a transaction (session-state.ts): from then on, the session
   * is reset each time this connection hands it back.
   */
  private dirty = false;
  /** Bytes of the messages received and not yet played. */
  private pendingBytes = 0;
  /**
   * Runs while this connection holds the session between turns inside a transaction or an unfinished
   * exchange; it closes the connection when it fires (armIdleTimer).
   */
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
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    try {
      this.split();
    } catch (error) {
      const code = error instanceof Refusal ? error.code : "08P01";
      this.refuse(code, error instanceof Error ? error.message : "protocol violation");
      return;
    }
    // Reading waits while the messages waiting to be played are more than one message may be.
    if (this.pendingBytes > MAX_MESSAGE_LENGTH) this.socket.pause();
    if (this.pending.length === 0) return;
    // Only a complete message stops the idle-in-transaction clock, as in PostgreSQL: a client that sends part
    // of one and goes silent still holds the session idle.
    this.clearIdleTimer();
    this.session.request(this, () => this.play());
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
        this.dirty = startupMayChangeSession(packet);
        this.pending.push({ type: undefined, bytes: Uint8Array.from(packet) });
        continue;
      }
      if (this.buffer.length < 5) return;
      const length = this.buffer.readInt32BE(1);
      if (length < 4) throw new Error("invalid message length");
      if (length > MAX_MESSAGE_LENGTH) {
        throw new Refusal(
          "54000",
          `message of ${length} bytes is longer than the embedded database accepts (${MAX_MESSAGE_LENGTH} bytes)`,
        );
      }
      if (this.buffer.length < length + 1) return;
      const type = this.buffer[0] as number;
      // A copy: the socket's chunk may be reused, and the rewrite below reads the bytes later.
      const bytes = Uint8Array.from(this.buffer.subarray(0, length + 1));
      this.buffer = this.buffer.subarray(length + 1);
      this.pending.push({ type, bytes });
      this.pendingBytes += bytes.length;
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
      this.pendingBytes -= message.bytes.length;
      if (!this.dirty) {
        const sql = sqlOf(message);
        this.dirty = sql !== undefined && mayChangeSession(sql);
      }
      const scoped = scopeNames(message, this.prefix);
      if (scoped.parsed !== undefined) this.statements.add(scoped.parsed);
      if (scoped.closed !== undefined) this.statements.delete(scoped.closed);
      parts.push(scoped.bytes);
      last = message.type as number;
      if (last === FRONTEND.sync || last === FRONTEND.query) break;
      const next = this.pending[0];
      if (next === undefined || next.type === undefined || next.type === FRONTEND.terminate) break;
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
        if (this.pending[0]?.type === FRONTEND.terminate) {
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
        if (response.length > 0 && !this.closed) this.reply(response);
      }
    } catch (error) {
      this.sessionFailed(error);
      return;
    }
    if (!this.turnEnded()) return;
    if (this.socket.isPaused() && !this.socket.writableNeedDrain) this.socket.resume();
    if (this.openExchange || this.inTransaction) this.armIdleTimer();
    else void this.handBack();
  }

  /** Sends a response; reading waits while the client has not taken what was sent (backpressure). */
  private reply(response: Uint8Array): void {
    if (this.socket.write(Buffer.from(response)) || this.socket.isPaused()) return;
    this.socket.pause();
    this.socket.once("drain", () => {
      if (this.pendingBytes <= MAX_MESSAGE_LENGTH) this.socket.resume();
    });
  }

  /** Hands the session back, reset first when this connection may have changed it. */
  private async handBack(): Promise<void> {
    if (this.dirty) {
      this.running = true;
      try {
        await this.session.exec(RESET_SESSION);
      } catch (error) {
        this.sessionFailed(error);
        return;
      }
      // Closed meanwhile: its clean-up turn hands the session back. Messages that came meanwhile play first.
      if (!this.turnEnded()) return;
    }
    this.session.release(this);
  }

  /**
   * PGlite itself failed (an SQL error is an answer, not a throw): this connection cannot go on; its clean-up
   * runs once the socket has closed.
   */
  private sessionFailed(error: unknown): void {
    this.running = false;
    this.refuse("XX000", error instanceof Error ? error.message : "embedded database failure");
  }

  /**
   * Ends a turn on the session; false when there is nothing more to do here: the connection closed meanwhile, or
   * messages that came meanwhile play first.
   */
  private turnEnded(): boolean {
    this.running = false;
    if (this.closed) return false;
    if (this.pending.length === 0) return true;
    void this.play();
    return false;
  }

  /**
   * Only the time between statements can be bounded: while a statement runs, PGlite holds this process's
   * event loop and no timer fires (docs/embedded-database.md, "No statement timeout").
   */
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
    this.pendingBytes = 0;
    this.onGone(this);
    const cleanUp = async (): Promise<void> => {
      try {
        if (this.openExchange) await this.session.exec(SYNC_MESSAGE);
        if (this.inTransaction) await this.session.exec(simpleQuery("ROLLBACK"));
        for (const name of this.statements) await this.session.exec(simpleQuery(`DEALLOCATE ${quoteIdent(name)}`));
        if (this.dirty) await this.session.exec(RESET_SESSION);
      } finally {
        this.session.release(this);
      }
    };
    const dirty = this.openExchange || this.inTransaction || this.statements.size > 0 || this.dirty;
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
