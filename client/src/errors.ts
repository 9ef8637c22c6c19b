// Errors the client raises: an `ApiError` for every non-success answer, typed by the service's error registry
// (kernel/errors.ts; docs/openapi.yaml lists each route's codes), a `RedirectError` for a redirect (never
// followed), a `NetworkError` when no answer came, and a `ThrottledError` when the client's own throttle kept a
// request off the network (client/src/throttle.ts), and a `SessionClosedError` when a socket session
// (client/src/session.ts) ends under a call.
// A risk rejection is not an error: placement methods return it as a result (client/src/results.ts).

/** The `error` strings the service answers, one per registry code (the drift test compares them). */
export const ERROR_CODES = [
  "invalid_payload",
  "unauthorized",
  "IP not whitelisted for this API key",
  "permission_denied",
  "not_found",
  "conflict",
  "key_limit_reached",
  "stream_limit_reached",
  "account_limit_reached",
  "order_limit_reached",
  "rate_limited",
  "market_data_refused",
  "engine_error",
  "wallet_error",
  "engine_unavailable",
  "wallet_unavailable",
  "rate_limiter_unavailable",
  "overloaded",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

const KNOWN = new Set<string>(ERROR_CODES);

/**
 * The HTTP status of each code, as the service answers it (kernel/errors.ts). A stream error message
 * (`{"op":"error","error":…}`, docs/streaming.md) carries the code only; the socket session gives it this status.
 */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_payload: 400,
  unauthorized: 401,
  "IP not whitelisted for this API key": 403,
  permission_denied: 403,
  not_found: 404,
  conflict: 409,
  key_limit_reached: 409,
  stream_limit_reached: 409,
  account_limit_reached: 409,
  order_limit_reached: 409,
  rate_limited: 429,
  market_data_refused: 409,
  engine_error: 500,
  wallet_error: 500,
  engine_unavailable: 503,
  wallet_unavailable: 503,
  rate_limiter_unavailable: 503,
  overloaded: 503,
};

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && KNOWN.has(value);
}

/** A non-success HTTP answer. `code` is the registry code, or `unknown` for a body without a known one. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: number;
  readonly code: ErrorCode | "unknown";
  /** The parsed JSON body (`{}` when the body was empty or not JSON). */
  readonly body: Record<string, unknown>;
  readonly requestId: string | null;
  /** How many attempts were made before giving up (1 when the answer was not retryable). */
  readonly attempts: number;

  constructor(status: number, body: Record<string, unknown>, requestId: string | null, attempts: number) {
    const code = isErrorCode(body.error) ? body.error : "unknown";
    super(
      `${status} ${typeof body.error === "string" ? body.error : "error"}${requestId ? ` (request ${requestId})` : ""}`,
    );
    this.status = status;
    this.code = code;
    this.body = body;
    this.requestId = requestId;
    this.attempts = attempts;
  }

  /**
   * The scope the call needed, on a 403 `permission_denied`: the key lacks it (`TRADE` is also granted by
   * `MANAGE_ORDERS`). Null on every other answer.
   */
  get requiredScope(): "READ_ONLY" | "TRADE" | "MANAGE_ORDERS" | null {
    const scope = this.body.required_scope;
    return scope === "READ_ONLY" || scope === "TRADE" || scope === "MANAGE_ORDERS" ? scope : null;
  }

  /** The per-field problems of a 400 `invalid_payload`. */
  get issues(): { path: string; message: string }[] {
    const issues = this.body.issues;
    return Array.isArray(issues) ? (issues as { path: string; message: string }[]) : [];
  }
}

/** No HTTP answer: the connection failed, was cut, or the attempt timed out, on every attempt made. */
export class NetworkError extends Error {
  override readonly name = "NetworkError";
  readonly attempts: number;

  constructor(cause: unknown, attempts: number) {
    super(`no answer after ${attempts} attempt(s): ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.attempts = attempts;
  }
}

/**
 * A request the client's adaptive throttle refused on its last attempt: nothing was sent on that attempt
 * (docs/client.md, Overload). `code` is `overloaded`, as on the service's own `503 overloaded`; `cause` is the
 * last answer the service gave the request, when an earlier attempt was sent.
 */
export class ThrottledError extends Error {
  override readonly name = "ThrottledError";
  readonly code = "overloaded";
  readonly attempts: number;

  constructor(attempts: number, lastAnswer: ApiError | undefined) {
    super(
      `overloaded: refused by the client's adaptive throttle after ${attempts} attempt(s), not sent ` +
        "(the service has been answering 503 overloaded to most recent requests)",
      lastAnswer === undefined ? undefined : { cause: lastAnswer },
    );
    this.attempts = attempts;
  }
}

/**
 * A redirect (3xx) answer. The client follows none: the request's credentials (X-API-Key and X-API-Secret, or
 * the admin token) would go with it to wherever it points, another origin included.
 */
export class RedirectError extends Error {
  override readonly name = "RedirectError";
  readonly status: number;
  /** Where the answer pointed (its `Location`, resolved against the request's URL), or null when it named none. */
  readonly location: string | null;

  constructor(status: number, location: string | null) {
    super(
      `${status} redirect to ${location ?? "(no Location header)"} not followed: the client follows no redirect, ` +
        "which would send its credentials there; point the client at that address if it is the service",
    );
    this.status = status;
    this.location = location;
  }
}

/**
 * A socket session (client/src/session.ts) ended under a call or a subscription: closed by the caller
 * (`closeCode` null), or closed by the gateway for a reason a reconnect cannot mend (4001: the key was revoked or
 * expired; docs/streaming.md).
 */
export class SessionClosedError extends Error {
  override readonly name = "SessionClosedError";
  readonly closeCode: number | null;

  constructor(closeCode: number | null, reason: string) {
    super(`socket session closed${closeCode === null ? "" : ` (${closeCode})`}: ${reason}`);
    this.closeCode = closeCode;
  }
}
