// Authentication, per-key rate limiting and scope checks for every /v1 request, in that order:
// a source (an address; an IPv6 /64) that failed authentication too often → 429 (the wallet is not asked); bad
// credentials → 401 (nothing charged to a key, one failure counted for the source); then the key's budget is
// charged (429 when spent, 401 when the key was revoked a moment ago on another replica; a request whose slot
// frees within RATE_LIMIT_MAX_DELAY_MS is held until then instead, and its key checked again once the hold is
// over); then IP allow-list and scope → 403 (a missing scope named in `required_scope`). Every response to an
// authenticated key carries the RateLimit headers.
// A charged request answered 503 (a backend that did not answer, a request shed) gives its units back.
import { setTimeout as sleep } from "node:timers/promises";
import type { Request, RequestHandler, Response } from "express";
import { ServiceError } from "../../kernel/errors.js";
import type { Scope } from "../../kernel/scopes.js";
import type { Clients } from "../clients.js";
import type { KeyCache, Validation } from "../../kernel/key-cache.js";
import { sendError } from "../http/errors.js";
import { originOf } from "../http/trace.js";
import { rateLimitHeaders, retryAfterBody, type RateLimitGrant, type RateLimiter } from "../ratelimit/index.js";
import type { AuthFailureLimiter } from "./auth-failures.js";

/** The scope a route requires; "" for none (an unknown path still authenticates). */
export type RequiredScope = "" | Scope;

export interface Caller {
  userId: string;
  keyId: string;
  permissions: string[];
  /** When the key expires (Unix ms); 0 or absent: never. */
  expiresAtMs?: number;
}

export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (caller === undefined) throw new Error("route reached without authentication");
  return caller;
}

export interface AuthDeps {
  clients: Clients;
  /** Answers validations locally while its lease runs (kernel/key-cache.ts); absent: always ask the wallet. */
  keyCache?: KeyCache | undefined;
  onValidation?: (source: "cache" | "wallet") => void;
  limiter: RateLimiter;
  windowMs: number;
  /**
   * "held": allowed, after waiting for a slot reserved a little ahead (RateLimitDecision.delayMs); "refunded": an
   * allowed request answered 503, whose units were given back.
   */
  onDecision?: (decision: "allowed" | "held" | "limited" | "revoked" | "refunded") => void;
  /** Waits out a held request's delay; tests inject their own. Default: a timer (`holdFor`). */
  hold?: (ms: number) => Promise<void>;
  /** Failed authentications per source (gateway/v1/auth-failures.ts); absent: not limited. */
  failures?: AuthFailureLimiter | undefined;
  /** Counts a request refused 429 because its address failed authentication too often. */
  onAddressLimited?: () => void;
}

/**
 * Resolves once `ms` have passed on the monotonic clock. A Node timer can fire up to a millisecond early (it
 * counts whole ms of the event loop's clock), so it sleeps again for what is left: the request goes on no
 * earlier than the slot the limiter reserved for it.
 */
export async function holdFor(ms: number): Promise<void> {
  const until = performance.now() + ms;
  for (let left = ms; left > 0; left = until - performance.now()) await sleep(Math.ceil(left));
}

/**
 * A request that counts as several against the key's budget (POST /v1/orders/batch: one per order). Its body is
 * read once the credentials, the IP allow-list and the scope passed, before the budget is charged, and `units`
 * counts it; a body that cannot be read counts as one, and its error is answered once the budget is charged.
 */
export interface RequestCost {
  body: RequestHandler;
  units: (body: unknown) => number;
}

/** Runs the cost's body parser; resolves to its error, if any, and to the units the body counts. */
async function unitsOf(cost: RequestCost | undefined, req: Request, res: Response): Promise<[number, unknown]> {
  if (cost === undefined) return [1, undefined];
  const error = await new Promise<unknown>((resolve) => {
    cost.body(req, res, (err?: unknown) => {
      resolve(err);
    });
  });
  return error === undefined ? [cost.units(req.body as unknown), undefined] : [1, error];
}

/**
 * Gives the request's units back once it is answered 503: a backend that did not answer, or a request shed, did
 * no work the key should pay for, and the client's retry must not meet a 429 it did not earn. Only an answer sent
 * in full ('finish') is judged: a client that hangs up first ('close' alone) keeps the charge, as its request may
 * still be doing its work. A refund that fails (Redis down) leaves the charge: the answer is already sent.
 */
function refundIfUnavailable(deps: AuthDeps, res: Response, grant: RateLimitGrant): void {
  res.once("finish", () => {
    if (res.statusCode !== 503) return;
    deps.limiter.refund(grant).then(
      (removed) => {
        if (removed > 0) deps.onDecision?.("refunded");
      },
      () => undefined,
    );
  });
}

/** A refusal that names no key: bad or unknown credentials, or a key since revoked. */
const refusesCredentials = (result: Validation): boolean =>
  !result.valid && (result.code === "unauthorized" || result.key_id === "");

const callerFrom = (result: Validation): Caller => ({
  userId: result.user_id,
  keyId: result.key_id,
  permissions: result.permissions,
  expiresAtMs: result.expires_at_ms,
});

type Validate = (res: Response, key: string, secret: string, ip: string) => Promise<Validation>;

/** Validates credentials for `scope`: from the key cache while its lease runs, else by the wallet. */
function validator(deps: AuthDeps, scope: RequiredScope): Validate {
  return async (res, key, secret, ip) => {
    const cached = deps.keyCache?.lookup(key, secret, ip, scope);
    if (cached !== undefined) {
      deps.onValidation?.("cache");
      return cached;
    }
    const ticket = deps.keyCache?.ticket();
    const answer = await deps.clients.wallet.validateApiKey({ key, secret, ip, permission: scope }, originOf(res));
    if (ticket !== undefined) deps.keyCache?.remember(ticket, key, secret, answer);
    deps.onValidation?.("wallet");
    return answer;
  };
}

/** The 403 of a key the wallet (or the key cache) refused for its IP, or for lacking `scope`. */
function refusal(code: string, scope: RequiredScope): ServiceError {
  if (code === "ip_not_whitelisted") return new ServiceError("ip_not_whitelisted");
  return scope === "" ? new ServiceError("permission_denied") : ServiceError.missingScope(scope);
}

export function authenticate(deps: AuthDeps, scope: RequiredScope, cost?: RequestCost): RequestHandler {
  const validate = validator(deps, scope);
  return async (req, res, next) => {
    const key = req.get("x-api-key");
    const secret = req.get("x-api-secret");
    if (key === undefined || secret === undefined || key === "" || secret === "") {
      sendError(res, new ServiceError("unauthorized"));
      return;
    }
    const ip = req.ip ?? "";
    const blockedMs = (await deps.failures?.blockedFor(ip, key)) ?? 0;
    if (blockedMs > 0) {
      // Too many failed authentications from this source: refused before the wallet is asked.
      deps.onAddressLimited?.();
      res.set("Retry-After", String(Math.max(1, Math.ceil(blockedMs / 1000))));
      res.status(429).json({ error: "rate_limited", retry_after_ms: blockedMs });
      return;
    }
    let result = await validate(res, key, secret, ip);
    if (refusesCredentials(result)) {
      await deps.failures?.failed(ip, key);
      sendError(res, new ServiceError("unauthorized"));
      return;
    }
    deps.failures?.vouch(key);
    // A request refused 403 (IP, scope) counts one, whatever its body: it is not read.
    const [units, bodyError] = result.valid ? await unitsOf(cost, req, res) : [1, undefined];
    const decision = await deps.limiter.consume(result.key_id, units);
    if (decision.revoked) {
      deps.onDecision?.("revoked");
      sendError(res, new ServiceError("unauthorized"));
      return;
    }
    res.set(rateLimitHeaders(decision, deps.windowMs));
    if (!decision.allowed) {
      deps.onDecision?.("limited");
      res.status(429).json(retryAfterBody(decision));
      return;
    }
    if (decision.grant !== undefined) refundIfUnavailable(deps, res, decision.grant);
    if (decision.delayMs > 0) {
      // The slot is reserved and counted whatever happens now: a client that hangs up meanwhile is
      // forwarded all the same, like a request already in flight.
      deps.onDecision?.("held");
      await (deps.hold ?? holdFor)(decision.delayMs);
      // Checked again before it runs: the key may have been revoked while the request waited.
      const again = await validate(res, key, secret, ip);
      if (refusesCredentials(again) || (await deps.limiter.isMarkedRevoked(result.key_id))) {
        res.removeHeader("RateLimit");
        res.removeHeader("RateLimit-Policy");
        sendError(res, new ServiceError("unauthorized"));
        return;
      }
      result = again;
    } else {
      deps.onDecision?.("allowed");
    }
    if (!result.valid) {
      sendError(res, refusal(result.code, scope));
      return;
    }
    res.locals.caller = callerFrom(result);
    next(bodyError);
  };
}
