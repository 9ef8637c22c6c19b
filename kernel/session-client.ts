// The client half of a session stream (kernel/session-server.ts): many unary calls multiplexed on one
// long-lived bidirectional stream over the client's channel. The stream opens on the first call and again on
// the first call after it ended; a call fails the way the same unary call would: a registry error with its
// trailer (fromGrpcError reads it), UNAVAILABLE when the stream broke while the call was in flight (the call
// may or may not have run, exactly as for a unary call cut off), DEADLINE_EXCEEDED past its deadline. Each
// frame carries the call's remaining budget, as grpc-timeout does for a unary call.
import * as grpc from "@grpc/grpc-js";
import { ERROR_METADATA_KEY, SESSION_ENDED_UNREAD } from "./errors.js";
import { decodeSessionReply, encodeSessionRequest } from "./session-codec.js";

/** Completes one call: the reply's payload, or a grpc-js style error. */
export type SessionCallback = (error: grpc.ServiceError | null, payload?: Buffer) => void;

interface Pending {
  callback: SessionCallback;
  /** performance.now() past which the call fails with DEADLINE_EXCEEDED. */
  deadline: number;
}

const identity = (bytes: Buffer): Buffer => bytes;
/** How often calls past their deadline are failed (one timer per client, not one per call). */
const DEADLINE_SWEEP_MS = 250;
const MAX_ID = 0xffff_ffff;
/** Statuses that refuse the stream itself rather than cut it. */
const REFUSALS: ReadonlySet<grpc.status> = new Set([
  grpc.status.UNAUTHENTICATED,
  grpc.status.PERMISSION_DENIED,
  grpc.status.UNIMPLEMENTED,
]);
/** A status code off the wire as grpc-js's enum; a code outside it is UNKNOWN, as grpc-js reads it. */
const STATUS = new Map<number, grpc.status>(
  Object.values(grpc.status)
    .filter((value): value is grpc.status => typeof value === "number")
    .map((value) => [value, value]),
);

/** The stream's status carries the service's own registry answer. */
const answeredByService = (metadata: grpc.Metadata | undefined): boolean =>
  metadata !== undefined && metadata.get(ERROR_METADATA_KEY).length > 0;

function serviceError(code: grpc.status, details: string, metadata = new grpc.Metadata()): grpc.ServiceError {
  return Object.assign(new Error(`${code} ${grpc.status[code] ?? "UNKNOWN"}: ${details}`), {
    code,
    details,
    metadata,
  });
}

export class SessionClient {
  private stream: grpc.ClientDuplexStream<Buffer, Buffer> | undefined;
  /** Calls in flight on the current stream, by frame id. */
  private pending = new Map<number, Pending>();
  private nextId = 1;
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;
  /** Called when the server ends a stream cleanly (status OK): it is stopping (kernel/session-server.ts drain). */
  onServerEnd: (() => void) | undefined;

  constructor(
    private readonly client: grpc.Client,
    /** Full method path of the stream (`/engine.v1.EngineSession/Open`). */
    private readonly path: string,
    /** Metadata the stream opens with (the internal token). */
    private readonly metadata: () => grpc.Metadata,
  ) {}

  /** Calls in flight. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Sends one call; `payload` is the method's request message as its unary path encodes it. */
  call(
    method: string,
    payload: Buffer,
    requestId: string,
    traceparent: string | undefined,
    deadlineMs: number,
    callback: SessionCallback,
  ): void {
    if (this.closed) {
      callback(serviceError(grpc.status.CANCELLED, "client closed"));
      return;
    }
    const stream = this.stream ?? this.open();
    const id = this.allocateId();
    this.pending.set(id, { callback, deadline: performance.now() + deadlineMs });
    // The engine gets the call's budget with it, and does not decide a command still queued when it runs out.
    const budgetMs = Math.max(1, Math.ceil(deadlineMs));
    stream.write(encodeSessionRequest({ id, method, payload, requestId, traceparent: traceparent ?? "", budgetMs }));
  }

  /** Fails every call in flight (CANCELLED) and ends the stream. */
  close(): void {
    this.closed = true;
    const stream = this.stream;
    this.fail(stream, grpc.status.CANCELLED, "client closed");
    stream?.cancel();
  }

  private allocateId(): number {
    for (;;) {
      const id = this.nextId;
      this.nextId = id === MAX_ID ? 1 : id + 1;
      if (!this.pending.has(id)) return id;
    }
  }

  private open(): grpc.ClientDuplexStream<Buffer, Buffer> {
    const stream = this.client.makeBidiStreamRequest<Buffer, Buffer>(this.path, identity, identity, this.metadata());
    this.stream = stream;
    stream.on("data", (frame: Buffer) => {
      this.reply(frame);
    });
    // A non-OK status is emitted as 'error'; 'status' always comes, OK included (the server ended the stream).
    stream.on("error", () => {
      // handled by 'status'; without a listener an 'error' event would throw
    });
    // The stream's end is not a verdict on the calls it carried: they fail UNAVAILABLE (cancelled by a force
    // shutdown, or the connection dropped: they may have run), except when the stream itself was refused (no
    // token, no such method, or the service's own answer in a registry trailer, such as a draining engine's):
    // then every call on it gets that answer, as a unary call would. A server ends a stream (status OK) only
    // once it answered every frame it read, and its answers arrive before the end: a call still waiting once
    // they were all read was never read (SESSION_ENDED_UNREAD), so it did not run.
    stream.on("status", (status: grpc.StatusObject) => {
      if (status.code === grpc.status.OK) {
        this.onServerEnd?.();
        const unread = (): void => {
          this.fail(stream, grpc.status.UNAVAILABLE, SESSION_ENDED_UNREAD);
        };
        if (stream.readableEnded) unread();
        else stream.once("end", unread);
        return;
      }
      if (answeredByService(status.metadata)) {
        this.fail(stream, status.code, status.details, status.metadata);
        return;
      }
      this.fail(stream, REFUSALS.has(status.code) ? status.code : grpc.status.UNAVAILABLE, status.details);
    });
    this.sweeper ??= setInterval(() => {
      this.sweep();
    }, DEADLINE_SWEEP_MS).unref();
    return stream;
  }

  private reply(frame: Buffer): void {
    let decoded;
    try {
      decoded = decodeSessionReply(frame);
    } catch {
      // A frame we cannot read: the stream is no longer trustworthy; its calls fail and the next call reopens.
      const stream = this.stream;
      this.fail(stream, grpc.status.INTERNAL, "unreadable session frame");
      stream?.cancel();
      return;
    }
    const pending = this.pending.get(decoded.id);
    if (pending === undefined) return; // past its deadline already
    this.pending.delete(decoded.id);
    if (decoded.code === 0) {
      pending.callback(null, decoded.payload);
      return;
    }
    const metadata = new grpc.Metadata();
    if (decoded.error !== "") metadata.set(ERROR_METADATA_KEY, Buffer.from(decoded.error, "utf8"));
    pending.callback(serviceError(STATUS.get(decoded.code) ?? grpc.status.UNKNOWN, decoded.details, metadata));
  }

  /** Fails the calls in flight on `stream` (if it is still the current one) and forgets it. */
  private fail(
    stream: grpc.ClientDuplexStream<Buffer, Buffer> | undefined,
    code: grpc.status,
    details: string,
    metadata?: grpc.Metadata,
  ): void {
    if (stream !== this.stream) return;
    this.stream = undefined;
    const pending = this.pending;
    this.pending = new Map();
    for (const call of pending.values()) call.callback(serviceError(code, details, metadata?.clone()));
    if (this.sweeper !== undefined && (this.closed || this.pending.size === 0)) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  private sweep(): void {
    const now = performance.now();
    for (const [id, call] of this.pending) {
      if (call.deadline > now) continue;
      this.pending.delete(id);
      call.callback(serviceError(grpc.status.DEADLINE_EXCEEDED, "Deadline exceeded"));
    }
  }
}
