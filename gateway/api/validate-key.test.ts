// POST /api/api-keys/validate refuses what /v1 refuses: a key the limiter has marked revoked is 401 even while
// the wallet that answered has not applied the revocation yet; a key without the permission asked for is 403
// naming it.
import type http from "node:http";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../kernel/log.js";
import type { ValidateApiKeyResponse__Output } from "../../proto/gen/wallet/v1/ValidateApiKeyResponse.js";
import type { Clients } from "../clients.js";
import { jsonBody } from "../http/body.js";
import { errorResponder } from "../http/errors.js";
import { requestId } from "../http/request.js";
import { validateKey } from "./validate-key.js";
import { serveLocal } from "../../test/harness/serve.js";

const VALID: ValidateApiKeyResponse__Output = {
  valid: true,
  code: "",
  user_id: "u1",
  key_id: "11111111-1111-4111-8111-111111111111",
  permissions: ["READ_ONLY"],
  expires_at_ms: 0,
  ip_whitelist: [],
};

describe("POST /api/api-keys/validate", () => {
  const marked = new Set<string>();
  let server: http.Server;
  let base = "";

  beforeAll(async () => {
    // The wallet double grants READ_ONLY only, as the wallet answers a scope the key lacks.
    const validateApiKey = (request: { permission: string }) =>
      Promise.resolve(
        request.permission === "" || request.permission === "READ_ONLY"
          ? VALID
          : { ...VALID, valid: false, code: "permission_denied" },
      );
    const clients = { wallet: { validateApiKey } } as unknown as Clients;
    const app = express();
    app.use(requestId());
    app.use(jsonBody(65_536));
    app.post(
      "/validate",
      validateKey(clients, (keyId) => Promise.resolve(marked.has(keyId))),
    );
    app.use(errorResponder(createLogger("test", "silent")));
    ({ server, base } = await serveLocal(app));
  });
  afterAll(() => {
    server.close();
  });

  const validate = (permission?: string) =>
    fetch(`${base}/validate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        key: "k",
        secret: "s",
        ip: "127.0.0.1",
        ...(permission === undefined ? {} : { permission }),
      }),
    });

  it("answers 403 permission_denied naming the permission asked for when the key lacks it", async () => {
    const refused = await validate("MANAGE_ORDERS");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      error: "permission_denied",
      required_scope: "MANAGE_ORDERS",
      message: "this key lacks the MANAGE_ORDERS scope",
    });
  });

  it("answers the wallet's verdict, and 401 once the key is marked revoked", async () => {
    expect((await validate()).status).toBe(200);
    marked.add(VALID.key_id);
    const refused = await validate();
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: "unauthorized" });
  });
});
