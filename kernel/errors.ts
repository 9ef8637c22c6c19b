// One error registry for the whole service: each code knows its gRPC status, HTTP status and wire body.
// Services throw `ServiceError`; the gRPC layer encodes it; the gateway maps it back. Nobody else invents errors.
import { Metadata, status, type ServiceError as GrpcServiceError, type StatusObject } from "@grpc/grpc-js";
import { grantedBy, type Scope } from "./scopes.js";

export const ERROR_CODES = {
  invalid_payload: { grpc: status.INVALID_ARGUMENT, http: 400, wire: "invalid_payload" },
  unauthorized: { grpc: status.UNAUTHENTICATED, http: 401, wire: "unauthorized" },
  ip_not_whitelisted: { grpc: status.PERMISSION_DENIED, http: 403, wire: "IP not whitelisted for this API key" },
  /** The key lacks the scope the operation requires: `required_scope` names it, `message` says so. */
  permission_denied: { grpc: status.PERMISSION_DENIED, http: 403, wire: "permission_denied" },
  not_found: { grpc: status.NOT_FOUND, http: 404, wire: "not_found" },
  conflict: { grpc: status.ABORTED, http: 409, wire: "conflict" },
  key_limit_reached: { grpc: status.ABORTED, http: 409, wire: "key_limit_reached" },
  /** A key already holds STREAM_MAX_SOCKETS_PER_KEY sockets of GET /v1/stream on this gateway; `limit` says how many. */
  stream_limit_reached: { grpc: status.RESOURCE_EXHAUSTED, http: 409, wire: "stream_limit_reached" },
  /** A user already holds ENGINE_MAX_ACCOUNTS_PER_USER accounts (docs/engine.md, "Limits"); `limit` says how many. */
  account_limit_reached: { grpc: status.ABORTED, http: 409, wire: "account_limit_reached" },
  /** An account already holds ENGINE_MAX_WORKING_ORDERS working orders; `limit` says how many. */
  order_limit_reached: { grpc: status.ABORTED, http: 409, wire: "order_limit_reached" },
  payload_too_large: { grpc: status.INVALID_ARGUMENT, http: 413, wire: "invalid_payload" },
  rate_limited: { grpc: status.RESOURCE_EXHAUSTED, http: 429, wire: "rate_limited" },
  /**
   * market.v1 (PushPrices, SetCalendar) on an engine whose market data does not come from outside
   * (PRICE_FEED=simulator): prices and the news calendar only change through it under PRICE_FEED=push.
   */
  market_data_refused: { grpc: status.FAILED_PRECONDITION, http: 409, wire: "market_data_refused" },
  engine_error: { grpc: status.INTERNAL, http: 500, wire: "engine_error" },
  /** An internal fault behind the /api listener (the wallet's surface). */
  wallet_error: { grpc: status.INTERNAL, http: 500, wire: "wallet_error" },
  /**
   * The engine owning the account's partition is down or does not hold its lease (docs/scale-out.md), or its
   * database did not answer within ENGINE_DB_TIMEOUT_MS, or the engine did not answer within GRPC_DEADLINE_MS.
   */
  engine_unavailable: { grpc: status.UNAVAILABLE, http: 503, wire: "engine_unavailable" },
  /**
   * The engine refused the call before running any of it: it does not serve the call's partition now (it is
   * handing it over on a stop, does not hold its lease, or does not own it; docs/scale-out.md, "Hand-over").
   * The call provably did not run, so a gateway may send it to the partition's owner; a client that ever sees
   * it sees `engine_unavailable`.
   */
  engine_not_serving: { grpc: status.UNAVAILABLE, http: 503, wire: "engine_unavailable" },
  /** The wallet's database did not answer within WALLET_DB_TIMEOUT_MS, or the wallet not within GRPC_DEADLINE_MS. */
  wallet_unavailable: { grpc: status.UNAVAILABLE, http: 503, wire: "wallet_unavailable" },
  /**
   * The gateway's Redis (the shared rate limiter) cannot be reached or did not answer within its command timeout:
   * no request is let through uncounted.
   */
  rate_limiter_unavailable: { grpc: status.UNAVAILABLE, http: 503, wire: "rate_limiter_unavailable" },
  /**
   * The gateway shed the request before doing anything for it (docs/overload.md): answered by its admission
   * control (gateway/http/admission-gate.ts) with `retry_after_ms` and Retry-After; safe to send again unchanged.
   */
  overloaded: { grpc: status.UNAVAILABLE, http: 503, wire: "overloaded" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The backend services a failure can be named for. */
export type Backend = "engine" | "wallet";

/** Each backend's code for "did not answer in time / cannot be reached" and for an internal fault. */
export const BACKEND_CODES = {
  engine: { unavailable: "engine_unavailable", fault: "engine_error" },
  wallet: { unavailable: "wallet_unavailable", fault: "wallet_error" },
} as const satisfies Record<Backend, { unavailable: ErrorCode; fault: ErrorCode }>;

/** What a request can wait on and not get an answer from: a backend service, or the gateway's Redis. */
export type Dependency = Backend | "redis";

/** Seconds a client is told to wait (`Retry-After`) before retrying an unavailable backend. */
export const UNAVAILABLE_RETRY_AFTER_S = 1;

/** The message of an error, or the thrown value as text when it is not an Error: what a log line's `err` holds. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The dependency an `*_unavailable` code names; undefined for every other code. */
export function unavailableBackend(code: ErrorCode): Dependency | undefined {
  if (code === BACKEND_CODES.engine.unavailable || code === "engine_not_serving") return "engine";
  if (code === BACKEND_CODES.wallet.unavailable) return "wallet";
  if (code === "rate_limiter_unavailable") return "redis";
  return undefined;
}

export interface Issue {
  path: string;
  message: string;
}

/** Extra fields carried in the wire body next to `error` (for example `issues`, `limit`, `client_id`). */
export type ErrorFields = Record<string, unknown>;

export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly fields: ErrorFields;

  constructor(code: ErrorCode, fields: ErrorFields = {}, message?: string) {
    super(message ?? code);
    this.name = "ServiceError";
    this.code = code;
    this.fields = fields;
  }

  static invalid(issues: Issue[]): ServiceError {
    return new ServiceError("invalid_payload", { issues }, issues.map((i) => `${i.path}: ${i.message}`).join("; "));
  }

  /** A key without `scope`, which the operation requires (docs/openapi.yaml, "Scopes on /v1"). */
  static missingScope(scope: Scope): ServiceError {
    const others = grantedBy(scope).filter((granting) => granting !== scope);
    const message =
      `this key lacks the ${scope} scope` + (others.length === 0 ? "" : ` (${others.join(" or ")} also grants it)`);
    return new ServiceError("permission_denied", { required_scope: scope, message }, message);
  }

  /** The JSON body a REST client sees. */
  body(): Record<string, unknown> {
    return { error: ERROR_CODES[this.code].wire, ...this.fields };
  }

  get httpStatus(): number {
    return ERROR_CODES[this.code].http;
  }
}

/**
 * A call whose deadline passed before its work was decided (docs/engine.md, "Deadlines"): nothing was done. It
 * leaves a server as gRPC DEADLINE_EXCEEDED (a caller treats it as a call past its deadline) with the backend's
 * `*_unavailable` in the trailer, which is what a client sees (503 with Retry-After).
 */
export class DeadlineExceeded extends ServiceError {
  constructor(backend: Backend, message: string) {
    super(BACKEND_CODES[backend].unavailable, {}, message);
    this.name = "DeadlineExceeded";
  }
}

/** Trailing-metadata key that carries the registry code and fields across a gRPC hop. */
export const ERROR_METADATA_KEY = "fts-error-bin";

/** The gRPC status of a handler's failure; an error outside the registry becomes `fallback` (its message stays out). */
export function toGrpcStatus(error: unknown, fallback: ErrorCode = "engine_error"): Partial<StatusObject> {
  const serviceError = error instanceof ServiceError ? error : new ServiceError(fallback);
  const metadata = new Metadata();
  metadata.set(
    ERROR_METADATA_KEY,
    Buffer.from(JSON.stringify({ code: serviceError.code, fields: serviceError.fields }), "utf8"),
  );
  const code =
    serviceError instanceof DeadlineExceeded ? status.DEADLINE_EXCEEDED : ERROR_CODES[serviceError.code].grpc;
  return { code, details: serviceError.message, metadata };
}

const FALLBACK_BY_GRPC: Partial<Record<number, ErrorCode>> = {
  [status.INVALID_ARGUMENT]: "invalid_payload",
  [status.UNAUTHENTICATED]: "unauthorized",
  [status.PERMISSION_DENIED]: "permission_denied",
  [status.NOT_FOUND]: "not_found",
  [status.ALREADY_EXISTS]: "conflict",
  [status.ABORTED]: "conflict",
  [status.RESOURCE_EXHAUSTED]: "rate_limited",
};

function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_CODES, value);
}

/**
 * A bare status that says the call's HTTP/2 session or stream broke under it (not a fault of the handler):
 * grpc-js reports a session closed by the peer (a GOAWAY, e.g. nghttp2's reset-rate guard under overload) as
 * INTERNAL "Received RST_STREAM with code 2 … Session closed with error code 2", and a stream reset by the peer
 * as INTERNAL or CANCELLED "Received RST_STREAM …". The backend may or may not have run the call.
 */
export function isBrokenTransport(error: Partial<GrpcServiceError>): boolean {
  if (error.code !== status.INTERNAL && error.code !== status.CANCELLED) return false;
  const details = error.details ?? "";
  return details.startsWith("Received RST_STREAM") || details.includes("Session closed");
}

/** The service answered the call itself: its registry error rides in the trailer (an engine's own engine_unavailable). */
function answeredByService(error: Partial<GrpcServiceError>): boolean {
  const metadata = error.metadata;
  return metadata instanceof Metadata && metadata.get(ERROR_METADATA_KEY).length > 0;
}

/**
 * The details of a session call (kernel/session-client.ts) still waiting when its server ended the stream
 * cleanly: the server answers every frame it read before it ends a stream, so this one was never read.
 */
export const SESSION_ENDED_UNREAD = "session ended before the call was read";

/** grpc-js had no connection to send the call on. */
const noConnection = (error: Partial<GrpcServiceError>): boolean =>
  (error.details ?? "").startsWith("No connection established");

/** The call never reached the service: no connection, or a session that ended before reading it. */
const notDelivered = (error: Partial<GrpcServiceError>): boolean =>
  noConnection(error) || error.details === SESSION_ENDED_UNREAD;

const asGrpcError = (error: unknown): Partial<GrpcServiceError> | undefined =>
  typeof error === "object" && error !== null ? error : undefined;

/** A gRPC failure that never reached the service's handler (connection refused, channel down, stream cut). */
export function isUnreachable(error: unknown): boolean {
  const grpcError = asGrpcError(error);
  return grpcError?.code === status.UNAVAILABLE && !answeredByService(grpcError);
}

/**
 * An unreachable service's failure that proves the call never reached it: grpc-js had no connection to send it
 * on, or the session it went on ended cleanly before the server read it (SESSION_ENDED_UNREAD). A call cut
 * after it was sent (a dropped connection, a reset stream) may have run.
 */
export function neverSent(error: unknown): boolean {
  return isUnreachable(error) && notDelivered(error as Partial<GrpcServiceError>);
}

/**
 * A call that failed because its connection, HTTP/2 session or session stream broke, with no answer of the
 * service's own (no registry trailer): UNAVAILABLE from grpc-js or kernel/session-client.ts, or a reset
 * (`isBrokenTransport`). The call may or may not have run; a read can be sent again, a write cannot. A call
 * that had no connection to go on is not one: the service is down, and asking again at once finds it down too.
 */
export function isBrokenCall(error: unknown): boolean {
  const grpcError = asGrpcError(error);
  if (grpcError === undefined || answeredByService(grpcError) || noConnection(grpcError)) return false;
  return grpcError.code === status.UNAVAILABLE || isBrokenTransport(grpcError);
}

/** `call`, sent once more when it failed as a broken call (`isBrokenCall`): only for calls that change nothing. */
export async function readAgainOnBreak<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!isBrokenCall(error)) throw error;
    return call();
  }
}

/**
 * Rebuilds the registry error from a failed gRPC call to `backend` (the gateway's only mapping). A bare status
 * (no registry trailer: the call never reached a handler, or ran out of time) is named for that backend:
 * UNAVAILABLE, DEADLINE_EXCEEDED and a broken HTTP/2 session or stream (`isBrokenTransport`) are its
 * `*_unavailable` code (503 with Retry-After), anything unknown its fault code.
 */
export function fromGrpcError(error: unknown, backend: Backend = "engine"): ServiceError {
  if (error instanceof ServiceError) return error;
  const grpcError = error as Partial<GrpcServiceError>;
  const raw = grpcError.metadata?.get(ERROR_METADATA_KEY)[0];
  if (Buffer.isBuffer(raw)) {
    try {
      const decoded = JSON.parse(raw.toString("utf8")) as { code?: unknown; fields?: unknown };
      if (isErrorCode(decoded.code)) {
        const fields = typeof decoded.fields === "object" && decoded.fields !== null ? decoded.fields : {};
        return new ServiceError(decoded.code, fields as ErrorFields, grpcError.details);
      }
    } catch {
      // fall through to the status-code mapping
    }
  }
  const grpcCode = grpcError.code;
  if (grpcCode === status.UNAVAILABLE || grpcCode === status.DEADLINE_EXCEEDED || isBrokenTransport(grpcError)) {
    return new ServiceError(BACKEND_CODES[backend].unavailable, {}, grpcError.details);
  }
  const code = typeof grpcCode === "number" ? FALLBACK_BY_GRPC[grpcCode] : undefined;
  if (code === "invalid_payload") {
    return ServiceError.invalid([{ path: "", message: grpcError.details ?? "invalid request" }]);
  }
  return new ServiceError(code ?? BACKEND_CODES[backend].fault, {}, grpcError.details);
}
