// The /api listener's routes (key management, camelCase JSON). Identity comes from X-User-Id, set by the
// login proxy in front; with WALLET_ADMIN_TOKEN set, every request must also carry that bearer token.
import { createHash, timingSafeEqual } from "node:crypto";
import { Router, type RequestHandler } from "express";
import { ServiceError } from "../../kernel/errors.js";
import type { Clients } from "../clients.js";
import { malformedPath } from "../http/paths.js";
import { createKey } from "./create-key.js";
import { listDeliveries, redeliver } from "./deliveries.js";
import { listKeys } from "./list-keys.js";
import { revokeKey } from "./revoke-key.js";
import { userIdOf } from "./shared.js";
import { validateKey } from "./validate-key.js";

/**
 * With WALLET_ADMIN_TOKEN set, `Authorization: Bearer <token>`; the scheme name in any case (RFC 7235), the
 * token compared in constant time.
 */
export function adminToken(token: string | undefined): RequestHandler {
  const expected = token === undefined ? undefined : createHash("sha256").update(token).digest();
  return (req, _res, next) => {
    if (expected === undefined) {
      next();
      return;
    }
    const header = req.get("authorization") ?? "";
    const scheme = header.slice(0, BEARER.length);
    const presented = createHash("sha256").update(header.slice(BEARER.length)).digest();
    const tokenMatches = timingSafeEqual(presented, expected);
    if (scheme.toLowerCase() !== BEARER || !tokenMatches) throw new ServiceError("unauthorized");
    next();
  };
}

const BEARER = "bearer ";

/**
 * Every /api request but a validation names its caller (X-User-Id, docs/decisions.md): 401 comes before anything
 * else is read (the path, the body), also on a path that names no route. A validation names the key instead.
 */
export function identifiedCaller(): RequestHandler {
  return (req, _res, next) => {
    if (!(req.method === "POST" && /^\/api-keys\/validate\/?$/i.test(req.path))) userIdOf(req);
    next();
  };
}

export interface ApiRouterOptions {
  /** Called after a successful revocation, before the response (gateway-side effects such as the limiter). */
  onRevoked: (keyId: string) => Promise<void>;
  /** Whether a key is marked revoked in the gateways' limiter (the same check `/v1` makes). */
  isRevoked?: ((keyId: string) => Promise<boolean>) | undefined;
}

export function apiRouter(clients: Clients, options: ApiRouterOptions): Router {
  const router = Router();
  router.use(malformedPath());
  router.post("/api-keys/validate", validateKey(clients, options.isRevoked));
  router.get("/api-keys", listKeys(clients));
  router.post("/api-keys", createKey(clients));
  router.delete("/api-keys/:id", revokeKey(clients, options.onRevoked));
  router.get("/api-keys/:id/deliveries", listDeliveries(clients));
  router.post("/api-keys/:id/deliveries/:delivery_id/redeliver", redeliver(clients));
  return router;
}
