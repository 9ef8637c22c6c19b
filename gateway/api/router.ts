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
import { validateKey } from "./validate-key.js";

function adminToken(token: string | undefined): RequestHandler {
  const expected = token === undefined ? undefined : createHash("sha256").update(`Bearer ${token}`).digest();
  return (req, _res, next) => {
    if (expected === undefined) {
      next();
      return;
    }
    const presented = createHash("sha256")
      .update(req.get("authorization") ?? "")
      .digest();
    if (!timingSafeEqual(presented, expected)) throw new ServiceError("unauthorized");
    next();
  };
}

export interface ApiRouterOptions {
  adminToken: string | undefined;
  /** Called after a successful revocation, before the response (gateway-side effects such as the limiter). */
  onRevoked: (keyId: string) => Promise<void>;
  /** Whether a key is marked revoked in the gateways' limiter (the same check `/v1` makes). */
  isRevoked?: ((keyId: string) => Promise<boolean>) | undefined;
}

export function apiRouter(clients: Clients, options: ApiRouterOptions): Router {
  const router = Router();
  router.use(adminToken(options.adminToken));
  router.use(malformedPath());
  router.post("/api-keys/validate", validateKey(clients, options.isRevoked));
  router.get("/api-keys", listKeys(clients));
  router.post("/api-keys", createKey(clients));
  router.delete("/api-keys/:id", revokeKey(clients, options.onRevoked));
  router.get("/api-keys/:id/deliveries", listDeliveries(clients));
  router.post("/api-keys/:id/deliveries/:delivery_id/redeliver", redeliver(clients));
  return router;
}
