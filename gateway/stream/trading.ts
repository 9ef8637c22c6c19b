// A trading operation sent on the stream (docs/streaming.md, "Order entry"), judged by the rules a REST request
// meets, in REST's order: admission (docs/overload.md: shed → 503 `overloaded`, nothing charged), the key's rate
// limit (the units its REST call counts; a slot freeing within RATE_LIMIT_MAX_DELAY_MS is waited for, and the key
// checked again), the scope (403 naming `required_scope`), the input (the REST schema: 400, 404), then the
// operation (gateway/v1/trading-ops.ts). Every outcome is the REST status and body; a 503 gives its units back.
// The socket's key was authenticated at the upgrade; a key refused as revoked closes the key's sockets (4001).
import { randomUUID } from "node:crypto";
import {
  ServiceError,
  UNAVAILABLE_RETRY_AFTER_S,
  fromGrpcError,
  unavailableBackend,
  type ErrorCode,
} from "../../kernel/errors.js";
import { isScope, satisfies } from "../../kernel/scopes.js";
import type { Clients } from "../clients.js";
import { OVERLOADED_JITTER_MS, OVERLOADED_RETRY_AFTER_MS } from "../http/admission-gate.js";
import type { Admission, Permit, ShedReason } from "../http/admission.js";
import { untraced } from "../origin.js";
import { retryAfterBody, type RateLimitGrant, type RateLimiter } from "../ratelimit/index.js";
import type { AuthDeps, Caller } from "../v1/auth.js";
import { reportFailure, type Answer, type BatchFailures, type TradingOp } from "../v1/trading-ops.js";

/** A stream answer: the REST status and body, and what REST says in headers (`Idempotent-Replayed`, `Retry-After`). */
export interface StreamAnswer extends Answer {
  /** A 503: when to try again (REST's Retry-After), in ms. */
  retryAfterMs?: number;
}

export interface TradingDeps {
  engine: Clients["engine"];
  /** The /v1 listener's admission control, shared with REST. */
  admission: Pick<Admission, "admit">;
  /** The key's rate limit, shared with REST (a limiter that closes a revoked key's sockets). */
  limiter: RateLimiter;
  /** Waits out a held operation's delay (`holdFor` of gateway/v1/auth.ts). */
  hold: (ms: number) => Promise<void>;
  failures: BatchFailures;
  onDecision?: AuthDeps["onDecision"];
  /** An operation shed by admission, and why. */
  onShed?: (reason: ShedReason) => void;
  /** An operation answered: its op, status, and seconds from its turn to its answer. */
  onAnswered?: (op: string, status: number, seconds: number) => void;
  /** Uniform in [0, 1): the jitter of a shed operation's `retry_after_ms`. */
  random?: () => number;
}

export interface TradeRequest {
  trading: TradingOp<unknown>;
  args: unknown;
}

function answerOf(error: ServiceError): StreamAnswer {
  const answer: StreamAnswer = { status: error.httpStatus, body: error.body() };
  if (unavailableBackend(error.code) !== undefined) answer.retryAfterMs = UNAVAILABLE_RETRY_AFTER_S * 1000;
  return answer;
}

function admitted(deps: TradingDeps, keyId: string, reducesRisk: boolean): Promise<Permit | ShedReason> {
  return new Promise((resolve) => {
    deps.admission.admit(keyId, reducesRisk, resolve);
  });
}

function shedAnswer(deps: TradingDeps): StreamAnswer {
  const retryAfterMs = OVERLOADED_RETRY_AFTER_MS + Math.floor((deps.random ?? Math.random)() * OVERLOADED_JITTER_MS);
  const code: ErrorCode = "overloaded";
  return { status: 503, body: { error: code, retry_after_ms: retryAfterMs }, retryAfterMs };
}

/** The key's scopes (the wallet's strings), as scopes. */
const scopesOf = (caller: Caller) => caller.permissions.filter(isScope);

/**
 * Charges the operation's units: the grant to give back on a 503, or the answer that ends it (401 for a key
 * since revoked, 429 past its budget).
 */
async function charge(
  deps: TradingDeps,
  caller: Caller,
  units: number,
): Promise<{ grant: RateLimitGrant | undefined } | { refused: StreamAnswer }> {
  const decision = await deps.limiter.consume(caller.keyId, units);
  if (decision.revoked) {
    deps.onDecision?.("revoked");
    return { refused: answerOf(new ServiceError("unauthorized")) };
  }
  if (!decision.allowed) {
    deps.onDecision?.("limited");
    return { refused: { status: 429, body: retryAfterBody(decision) } };
  }
  if (decision.delayMs > 0) {
    deps.onDecision?.("held");
    await deps.hold(decision.delayMs);
    // Checked again before it runs: the key may have been revoked while the operation waited.
    if (await deps.limiter.isMarkedRevoked(caller.keyId))
      return { refused: answerOf(new ServiceError("unauthorized")) };
  } else {
    deps.onDecision?.("allowed");
  }
  return { grant: decision.grant };
}

/** The charged part: scope, input, the operation itself. */
async function judged(deps: TradingDeps, caller: Caller, request: TradeRequest): Promise<StreamAnswer> {
  const { trading, args } = request;
  const scopeOk = satisfies(scopesOf(caller), trading.scope);
  const requestId = randomUUID();
  let grant: RateLimitGrant | undefined;
  try {
    // A refused scope counts one, whatever the args: they are not read.
    const charged = await charge(deps, caller, scopeOk ? trading.units(args) : 1);
    if ("refused" in charged) return charged.refused;
    grant = charged.grant;
    if (!scopeOk) throw ServiceError.missingScope(trading.scope);
    const input = trading.fromArgs(args);
    const ctx = {
      engine: deps.engine,
      userId: caller.userId,
      origin: untraced(requestId),
      route: `stream ${trading.name}`,
      failures: deps.failures,
    };
    return await trading.run(ctx, input);
  } catch (error) {
    const failure = fromGrpcError(error, "engine");
    const fields = { request_id: requestId, route: `stream ${trading.name}` };
    reportFailure(deps.failures, failure, error, fields, "stream operation failed");
    if (failure.httpStatus === 503 && grant !== undefined) refund(deps, grant);
    return answerOf(failure);
  }
}

/** Gives a 503's units back: it did no work the key should pay for. A refund that fails leaves the charge. */
function refund(deps: TradingDeps, grant: RateLimitGrant): void {
  deps.limiter.refund(grant).then(
    (removed) => {
      if (removed > 0) deps.onDecision?.("refunded");
    },
    () => undefined,
  );
}

/** Runs one trading operation of the socket's caller; never throws: every outcome is an answer. */
export async function trade(deps: TradingDeps, caller: Caller, request: TradeRequest): Promise<StreamAnswer> {
  const started = performance.now();
  const answer = await answered(deps, caller, request);
  deps.onAnswered?.(request.trading.name, answer.status, (performance.now() - started) / 1000);
  return answer;
}

async function answered(deps: TradingDeps, caller: Caller, request: TradeRequest): Promise<StreamAnswer> {
  if (caller.expiresAtMs !== undefined && caller.expiresAtMs > 0 && caller.expiresAtMs <= Date.now()) {
    return answerOf(new ServiceError("unauthorized"));
  }
  const permit = await admitted(deps, caller.keyId, request.trading.reducesRisk);
  if (typeof permit === "string") {
    deps.onShed?.(permit);
    return shedAnswer(deps);
  }
  try {
    return await judged(deps, caller, request);
  } finally {
    permit.release(true);
  }
}

/** The answer's message: `{op, id, status, replayed?, retry_after_ms?, body}` (docs/streaming.md). */
export function answerMessage(name: string, echo: object, answer: StreamAnswer): object {
  return {
    op: name,
    ...echo,
    status: answer.status,
    ...(answer.replayed === true ? { replayed: true } : {}),
    ...(answer.retryAfterMs === undefined ? {} : { retry_after_ms: answer.retryAfterMs }),
    body: answer.body,
  };
}
