// The server half of a session stream (engine.v1.EngineSession/Open, proto/engine/v1/engine.proto): one
// long-lived bidirectional stream per caller that carries many unary calls as frames. Each frame names a
// method of the table and is run by that method's unary handler (`direct`, kernel/grpc.ts), so a call on the
// stream has the same checks, errors, metrics, spans and deadline (its frame's budget) as the same call made on
// its own; the internal token is checked once, when the stream opens. Replies go out as they complete, in any order.
import * as grpc from "@grpc/grpc-js";
import { ERROR_METADATA_KEY, errorText } from "./errors.js";
import type { DirectCall } from "./grpc.js";
import { internalTokenCheck } from "./grpc.js";
import type { Logger } from "./log.js";
import { decodeSessionRequest, encodeSessionReply } from "./session-codec.js";

/** One method a session can carry: its unary handler and the (de)serializers of its unary path. */
export interface SessionMethod {
  direct: DirectCall<unknown, unknown>;
  requestDeserialize: (bytes: Buffer) => unknown;
  responseSerialize: (value: unknown) => Buffer;
}

export interface SessionServer {
  /** The service definition (identity serializers: frames are coded by kernel/session-codec.ts). */
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
  /** Open sessions right now. */
  open(): number;
  /**
   * Stops taking calls: frames that arrive from now on are answered with the refusal (none of them runs); each
   * session ends (status OK) once its calls in flight are answered, so a server's graceful shutdown does not
   * wait on idle streams, and a call the caller still awaits when it sees that end was never read.
   */
  drain(): void;
}

const EMPTY = Buffer.alloc(0);
const identity = (bytes: Buffer): Buffer => bytes;

/** A frame's reply for a failed call (the registry's JSON travels as the unary path's trailer would). */
function errorReply(id: number, error: Partial<grpc.StatusObject>): Buffer {
  const raw = error.metadata?.get(ERROR_METADATA_KEY)[0];
  return encodeSessionReply({
    id,
    code: error.code ?? grpc.status.UNKNOWN,
    details: error.details ?? "",
    payload: EMPTY,
    error: Buffer.isBuffer(raw) ? raw.toString("utf8") : "",
  });
}

/** What the sessions of one server share. */
interface Sessions {
  readonly methods: ReadonlyMap<string, SessionMethod>;
  readonly log: Logger;
  readonly open: Set<Session>;
  draining: boolean;
  /** The answer to a frame or a stream refused while draining (UNAVAILABLE unless the server names one). */
  readonly refusal: Partial<grpc.StatusObject>;
}

/** One caller's stream: frames in, each run as its method's unary call, replies out as they complete. */
class Session {
  private inFlight = 0;
  private closed = false;
  private ending = false;

  constructor(
    private readonly call: grpc.ServerDuplexStream<Buffer, Buffer>,
    private readonly sessions: Sessions,
  ) {
    const close = (): void => {
      this.close();
    };
    call.on("data", (frame: Buffer) => {
      this.frame(frame);
    });
    // The caller half-closed: end once every call it sent is answered.
    call.on("end", () => {
      this.end();
    });
    call.on("cancelled", close);
    call.on("error", close);
  }

  /** Ends the stream once nothing is in flight (now, or when the last reply goes out). */
  end(): void {
    this.ending = true;
    if (this.inFlight === 0 && !this.closed) {
      this.close();
      this.call.end();
    }
  }

  private close(): void {
    this.closed = true;
    this.sessions.open.delete(this);
  }

  private reply(bytes: Buffer): void {
    if (!this.closed) this.call.write(bytes);
  }

  private frame(bytes: Buffer): void {
    let id = 0;
    let method: SessionMethod | undefined;
    let request: unknown;
    let requestId: string | undefined;
    let traceparent: string | undefined;
    let budgetMs = 0;
    try {
      const frame = decodeSessionRequest(bytes);
      id = frame.id;
      if (this.sessions.draining || this.ending) {
        this.reply(errorReply(id, this.sessions.refusal));
        return;
      }
      method = this.sessions.methods.get(frame.method);
      if (method === undefined) {
        this.reply(
          errorReply(id, {
            code: grpc.status.UNIMPLEMENTED,
            details: `unknown method ${JSON.stringify(frame.method)}`,
          }),
        );
        return;
      }
      request = method.requestDeserialize(frame.payload);
      requestId = frame.requestId === "" ? undefined : frame.requestId;
      traceparent = frame.traceparent === "" ? undefined : frame.traceparent;
      budgetMs = frame.budgetMs;
    } catch (error) {
      // grpc-js answers a message it cannot deserialize with INTERNAL too.
      this.sessions.log.warn({ err: errorText(error) }, "bad session frame");
      this.reply(errorReply(id, { code: grpc.status.INTERNAL, details: "Error deserializing request" }));
      return;
    }
    this.inFlight++;
    const serialize = method.responseSerialize;
    method.direct(
      request,
      requestId,
      traceparent,
      (error, value) => {
        this.inFlight--;
        this.answer(id, requestId, serialize, error, value);
        if (this.ending) this.end();
      },
      budgetMs,
    );
  }

  /** Replies to call `id` with its answer, or the error it failed with (or its answer's failure to serialize). */
  private answer(
    id: number,
    requestId: string | undefined,
    serialize: (value: unknown) => Buffer,
    error: Partial<grpc.StatusObject> | null,
    value: unknown,
  ): void {
    if (error !== null) {
      this.reply(errorReply(id, error));
      return;
    }
    let payload: Buffer;
    try {
      payload = serialize(value);
    } catch (serializeError) {
      this.sessions.log.error({ err: String(serializeError), request_id: requestId }, "session reply not serializable");
      this.reply(errorReply(id, { code: grpc.status.INTERNAL, details: "Error serializing response" }));
      return;
    }
    this.reply(encodeSessionReply({ id, code: 0, details: "", payload, error: "" }));
  }
}

/** The session service's definition at `path` (identity serializers: frames are coded by kernel/session-codec.ts). */
export function sessionDefinition(path: string): grpc.ServiceDefinition {
  return {
    Open: {
      path,
      requestStream: true,
      responseStream: true,
      requestSerialize: identity,
      requestDeserialize: identity,
      responseSerialize: identity,
      responseDeserialize: identity,
    },
  };
}

export function sessionServer(
  path: string,
  methods: ReadonlyMap<string, SessionMethod>,
  options: {
    internalToken: string | undefined;
    log: Logger;
    /** What a call refused while draining gets; it must say the call did not run (a registry trailer). */
    refusal?: Partial<grpc.StatusObject>;
  },
): SessionServer {
  const tokenOk = internalTokenCheck(options.internalToken);
  const sessions: Sessions = {
    methods,
    log: options.log,
    open: new Set(),
    draining: false,
    refusal: options.refusal ?? { code: grpc.status.UNAVAILABLE, details: "server stopping" },
  };
  const definition = sessionDefinition(path);
  const open: grpc.handleBidiStreamingCall<Buffer, Buffer> = (call) => {
    if (!tokenOk(call.metadata)) {
      call.emit("error", { code: grpc.status.UNAUTHENTICATED, details: "internal token required" });
      return;
    }
    if (sessions.draining) {
      call.emit("error", sessions.refusal);
      return;
    }
    sessions.open.add(new Session(call, sessions));
  };
  return {
    definition,
    implementation: { Open: open },
    open: () => sessions.open.size,
    drain() {
      sessions.draining = true;
      for (const session of [...sessions.open]) session.end();
    },
  };
}
