// A /v1 request of a key the limiter refuses as revoked closes the key's sockets at once (docs/streaming.md):
// the limiter of the apps' authentication, wrapped by withStreamRevocation, tells the stream server.
import http from "node:http";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../kernel/log.js";
import type { AppOptions } from "../app.js";
import type { Clients } from "../clients.js";
import { errorResponder } from "../http/errors.js";
import { requestId } from "../http/request.js";
import { MemoryRateLimiter } from "../ratelimit/index.js";
import { authenticate } from "../v1/auth.js";
import type { StreamServer } from "./server.js";
import { revokingLimiter, withStreamRevocation } from "./start.js";
import { VALID } from "./stream.testing.js";

describe("stream revocation from other requests", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it("closes the key's sockets when a /v1 request of it is refused as revoked by the limiter", async () => {
    const limiter = new MemoryRateLimiter({ limit: 100, windowMs: 60_000 });
    closers.push(() => limiter.close());
    const revoked: string[] = [];
    const streams = { revoke: (keyId: string) => revoked.push(keyId) } as unknown as StreamServer;
    const base = {
      auth: {
        clients: { wallet: { validateApiKey: () => Promise.resolve(VALID) } } as unknown as Clients,
        limiter,
        windowMs: 60_000,
      },
      onRevoked: () => Promise.resolve(),
    } as unknown as AppOptions;
    const options = withStreamRevocation(base, streams);
    const app = express();
    app.use(requestId());
    app.get("/v1/thing", authenticate(options.auth, "READ_ONLY"), (_req, res) => {
      res.json({ ok: true });
    });
    app.use(errorResponder(createLogger("test", "silent")));
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) =>
          server.close(() => {
            resolve();
          }),
        ),
    );
    const address = server.address();
    const url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/v1/thing`;
    const get = () => fetch(url, { headers: { "X-API-Key": "pk", "X-API-Secret": "sk" } });

    expect((await get()).status).toBe(200);
    expect(revoked).toEqual([]);
    await limiter.markRevoked(VALID.key_id);
    expect((await get()).status).toBe(401);
    expect(revoked).toEqual([VALID.key_id]);
  });

  it("tells of a key the limiter reports marked revoked, and of no other", async () => {
    const limiter = new MemoryRateLimiter({ limit: 100, windowMs: 60_000 });
    closers.push(() => limiter.close());
    const revoked: string[] = [];
    const wrapped = revokingLimiter(limiter, { revoke: (keyId) => revoked.push(keyId) });
    await limiter.markRevoked("gone");
    expect(await wrapped.isMarkedRevoked("kept")).toBe(false);
    expect((await wrapped.consume("kept")).allowed).toBe(true);
    expect(await wrapped.isMarkedRevoked("gone")).toBe(true);
    expect((await wrapped.consume("gone")).revoked).toBe(true);
    expect(revoked).toEqual(["gone", "gone"]);
  });
});
