// Authentication, per-key rate limiting and scope checks for every /v1 request, in that order:
// bad credentials → 401 (nothing counted); then the key's budget is charged (429 when spent, 401 when the
// key was revoked a moment ago on another replica; a request whose slot frees within RATE_LIMIT_MAX_DELAY_MS
// is held until then instead); then IP allow-list and scope → 403. Every response to an authenticated key
// carries the RateLimit headers.
import { setTimeout as sleep } from "node:timers/promises";
import type { RequestHandler, Response } from "express";
import { ServiceError } from "../../kernel/errors.js";
import type { Clients } from "../clients.js";
import type { KeyCache, Validation } from "../../kernel/key-cache.js";
import { originOf, sendError } from "../http/common.js";
import { rateLimitHeaders, retryAfterBody, type RateLimiter } from "../ratelimit/index.js";

export type RequiredScope = "" | "READ_ONLY" | "TRADE" | "MANAGE_ORDERS";

export interface Caller {
  userId: string;
  keyId: string;
  permissions: string[];
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
  /** "held": allowed, after waiting for a slot reserved a little ahead (RateLimitDecision.delayMs). */
  onDecision?: (decision: "allowed" | "held" | "limited" | "revoked") => void;
  /** Waits out a held request's delay; tests inject their own. Default: a timer (`holdFor`). */
  hold?: (ms: number) => Promise<void>;
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

export function authenticate(deps: AuthDeps, scope: RequiredScope): RequestHandler {
  return async (req, res, next) => {
    const key = req.get("x-api-key");
    const secret = req.get("x-api-secret");
    if (key === undefined || secret === undefined || key === "" || secret === "") {
      sendError(res, new ServiceError("unauthorized"));
      return;
    }
    const ip = req.ip ?? "";
    const cached = deps.keyCache?.lookup(key, secret, ip, scope);
    let result: Validation;
    if (cached === undefined) {
      const ticket = deps.keyCache?.ticket();
      const answer = await deps.clients.wallet.validateApiKey({ key, secret, ip, permission: scope }, originOf(res));
      if (ticket !== undefined) deps.keyCache?.remember(ticket, key, secret, answer);
      deps.onValidation?.("wallet");
      result = answer;
    } else {
      deps.onValidation?.("cache");
      result = cached;
    }
    if (!result.valid && (result.code === "unauthorized" || result.key_id === "")) {
      sendError(res, new ServiceError("unauthorized"));
      return;
    }
    const decision = await deps.limiter.consume(result.key_id);
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
    if (decision.delayMs > 0) {
      // The slot is reserved and counted whatever happens now: a client that hangs up meanwhile is
      // forwarded all the same, like a request already in flight.
      deps.onDecision?.("held");
      await (deps.hold ?? holdFor)(decision.delayMs);
    } else {
      deps.onDecision?.("allowed");
    }
    if (!result.valid) {
      sendError(
        res,
        new ServiceError(result.code === "ip_not_whitelisted" ? "ip_not_whitelisted" : "permission_denied"),
      );
      return;
    }
    res.locals.caller = {
      userId: result.user_id,
      keyId: result.key_id,
      permissions: result.permissions,
    } satisfies Caller;
    next();
  };
}
