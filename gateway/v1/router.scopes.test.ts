// The /v1 route table's scopes (gateway/v1/router.ts, `x-required-scope` in docs/openapi.yaml): a key without a
// route's scope is `403 permission_denied` whose body names that scope (`required_scope`) and says so, on the
// real routes; a key whose scopes grant it gets past the check. The wallet double grants as the wallet does
// (kernel/scopes.ts); the engine double answers every call `not_found`.
import type http from "node:http";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceError } from "../../kernel/errors.js";
import type { Validation } from "../../kernel/key-cache.js";
import { createLogger } from "../../kernel/log.js";
import { isScope, satisfies, type Scope } from "../../kernel/scopes.js";
import type { Clients } from "../clients.js";
import { jsonBody } from "../http/body.js";
import { errorResponder } from "../http/errors.js";
import { requestId } from "../http/request.js";
import { MemoryRateLimiter } from "../ratelimit/index.js";
import { V1_ROUTES, v1Router } from "./router.js";
import { serveLocal } from "../../test/harness/serve.js";

const ID = "0a0a0a0a-0000-4000-8000-000000000001";

/** The wallet's answer for the key named by its scopes ("READ_ONLY,TRADE"), asked for `permission`. */
function validation(key: string, permission: string): Validation {
  const scopes = key.split(",").filter(isScope);
  const granted = permission === "" || (isScope(permission) && satisfies(scopes, permission));
  return {
    valid: granted,
    code: granted ? "" : "permission_denied",
    user_id: "u1",
    key_id: `key-${key}`,
    permissions: scopes,
    expires_at_ms: 0,
  };
}

describe("the /v1 routes' scopes", () => {
  const log = createLogger("test", "silent");
  let server: http.Server;
  let base = "";

  beforeAll(async () => {
    const engine = new Proxy({}, { get: () => () => Promise.reject(new ServiceError("not_found")) });
    const clients = {
      wallet: {
        validateApiKey: (request: { key: string; permission: string }) =>
          Promise.resolve(validation(request.key, request.permission)),
      },
      engine,
    } as unknown as Clients;
    const auth = { clients, limiter: new MemoryRateLimiter({ limit: 100_000, windowMs: 60_000 }), windowMs: 60_000 };
    const app = express();
    app.use(requestId());
    app.use("/v1", v1Router(clients, auth, jsonBody(65_536), { log }));
    app.use(errorResponder(log));
    ({ server, base } = await serveLocal(app));
  });
  afterAll(() => {
    server.close();
  });

  const call = async (scopes: readonly Scope[], method: string, path: string) => {
    const response = await fetch(`${base}/v1${path.replace(/:[a-z_]+/g, ID)}`, {
      method: method.toUpperCase(),
      headers: { "x-api-key": scopes.join(","), "x-api-secret": "s", "content-type": "application/json" },
      ...(method === "get" ? {} : { body: "{}" }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it.each([
    [["READ_ONLY", "TRADE"], "delete", "/order/:order_id", "MANAGE_ORDERS"],
    [["TRADE"], "patch", "/order/:order_id", "MANAGE_ORDERS"],
    [["READ_ONLY", "TRADE"], "delete", "/account/:account_id/orders", "MANAGE_ORDERS"],
    [["TRADE"], "post", "/account/:account_id/flatten", "MANAGE_ORDERS"],
    [["READ_ONLY"], "post", "/order", "TRADE"],
    [["READ_ONLY"], "post", "/account", "TRADE"],
    [["READ_ONLY"], "post", "/orders/batch", "TRADE"],
  ] as const)("a %j key calling %s %s gets 403 naming %s", async (scopes, method, path, scope) => {
    const denied = await call(scopes, method, path);
    expect(denied).toEqual({
      status: 403,
      body: {
        error: "permission_denied",
        required_scope: scope,
        message:
          scope === "TRADE"
            ? "this key lacks the TRADE scope (MANAGE_ORDERS also grants it)"
            : `this key lacks the ${scope} scope`,
      },
    });
  });

  it("names each route's own scope to every key without it, and lets every key with it past the check", async () => {
    const keys: Scope[][] = [["READ_ONLY"], ["TRADE"], ["READ_ONLY", "TRADE"], ["MANAGE_ORDERS"]];
    for (const route of V1_ROUTES) {
      for (const scopes of keys) {
        const { status, body } = await call(scopes, route.method, route.path);
        const what = `${scopes.join(",")} → ${route.method} ${route.path}`;
        if (satisfies(scopes, route.scope)) expect(status, what).not.toBe(403);
        else expect([status, body.required_scope], what).toEqual([403, route.scope]);
      }
    }
  });
});
