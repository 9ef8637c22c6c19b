// A /v1 request, upgrade or stream operation of a key the limiter refuses as revoked closes the key's sockets at
// once (docs/streaming.md): the limiter of the apps' authentication, wrapped by withStreamRevocation, and the
// stream server's own limiter and charge, wrapped in startStreams, tell the stream server. The revalidation
// pass's question (revocationCheck) reads the limiter's mark and, without the key cache, the wallet.
import http from "node:http";
import express from "express";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { ServiceError } from "../../kernel/errors.js";
import { createLogger } from "../../kernel/log.js";
import { StopStack } from "../../kernel/stop-stack.js";
import { loadGatewaySettings } from "../config.js";
import type { AppOptions } from "../app.js";
import type { Clients } from "../clients.js";
import { errorResponder } from "../http/errors.js";
import { requestId } from "../http/request.js";
import { MemoryRateLimiter } from "../ratelimit/index.js";
import { authenticate } from "../v1/auth.js";
import type { StreamServer } from "./server.js";
import { revocationCheck, revokingLimiter, startStreams, withStreamRevocation } from "./start.js";
import { ADMIT_ALL, open, VALID } from "./stream.testing.js";
import type { Admission } from "../http/admission.js";

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

  it("passes a refund through to the limiter", async () => {
    const limiter = new MemoryRateLimiter({ limit: 1, windowMs: 60_000, maxDelayMs: 0 });
    closers.push(() => limiter.close());
    const wrapped = revokingLimiter(limiter, { revoke: () => undefined });
    const { grant } = await wrapped.consume("k");
    if (grant === undefined) throw new Error("expected a grant");
    expect(await wrapped.refund(grant)).toBe(1);
    expect((await limiter.consume("k")).allowed).toBe(true);
  });
});

describe("revocationCheck, the revalidation pass's question for a key holding sockets", () => {
  /** A wallet whose GetApiKey answers with `answer` and records what it was asked. */
  const wallet = (answer: () => Promise<unknown>) => {
    const asked: [string, string][] = [];
    return {
      asked,
      getApiKey: (userId: string, id: string) => {
        asked.push([userId, id]);
        return answer();
      },
    } as unknown as Parameters<typeof revocationCheck>[1] & { asked: [string, string][] };
  };
  const limiterMarking = (...marked: string[]) => ({
    isMarkedRevoked: (keyId: string) => Promise.resolve(marked.includes(keyId)),
  });

  it("answers revoked for a key the limiter has marked, without asking the wallet", async () => {
    const active = wallet(() => Promise.resolve({ id: "k1" }));
    expect(await revocationCheck(limiterMarking("k1"), active)("k1", "u1")).toBe(true);
    expect(active.asked).toEqual([]);
  });

  it("asks the wallet for the user's key when no mark says so, and answers revoked only on not_found", async () => {
    const gone = wallet(() => Promise.reject(new ServiceError("not_found")));
    expect(await revocationCheck(limiterMarking(), gone)("k1", "u1")).toBe(true);
    expect(gone.asked).toEqual([["u1", "k1"]]);
    const active = wallet(() => Promise.resolve({ id: "k1" }));
    expect(await revocationCheck(limiterMarking(), active)("k1", "u1")).toBe(false);
  });

  it("asks the wallet when the limiter cannot be reached, and fails the pass without a wallet", async () => {
    const down = { isMarkedRevoked: () => Promise.reject(new Error("redis down")) };
    const gone = wallet(() => Promise.reject(new ServiceError("not_found")));
    expect(await revocationCheck(down, gone)("k1", "u1")).toBe(true);
    const active = wallet(() => Promise.resolve({ id: "k1" }));
    expect(await revocationCheck(down, active)("k1", "u1")).toBe(false);
    await expect(revocationCheck(down, undefined)("k1", "u1")).rejects.toThrow(/redis down/);
  });

  it("counts the key live for this pass when the wallet cannot answer", async () => {
    for (const failure of [new ServiceError("wallet_unavailable"), new ServiceError("wallet_error"), new Error("x")]) {
      const down = wallet(() => Promise.reject(failure));
      expect(await revocationCheck(limiterMarking(), down)("k1", "u1")).toBe(false);
    }
  });

  it("reads only the limiter's marks without a wallet (the key cache's pushes tell of revocations)", async () => {
    expect(await revocationCheck(limiterMarking("k1"), undefined)("k1", "u1")).toBe(true);
    expect(await revocationCheck(limiterMarking(), undefined)("k1", "u1")).toBe(false);
  });
});

describe("startStreams: the stream server's own requests of a key refused as revoked", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /**
   * The stream server as the gateway builds it, on a wallet double that accepts the credentials (a wallet
   * replica that has not applied the revocation yet) and an in-memory limiter; no engine is reached.
   */
  async function streamsOn(): Promise<{ url: string; limiter: MemoryRateLimiter }> {
    const limiter = new MemoryRateLimiter({ limit: 100, windowMs: 60_000 });
    const clients = {
      wallet: { validateApiKey: () => Promise.resolve(VALID) },
      engine: {
        targets: [],
        engineOfAccount: () => 0,
        servingTarget: () => 0,
        listTickers: () => Promise.resolve({ tickers: [] }),
        listEvents: () => Promise.resolve({ events: [], has_more: false }),
      },
    } as unknown as Clients;
    const options = {
      auth: { clients, limiter, windowMs: 60_000 },
      registry: new Registry(),
      metricsEnabled: false,
      onRevoked: () => Promise.resolve(),
    } as unknown as AppOptions;
    const stack = new StopStack();
    const settings = loadGatewaySettings({ STREAM_REVALIDATE_MS: "3600000", STREAM_PING_INTERVAL_MS: "3600000" });
    const gate = { admission: ADMIT_ALL as Admission, shed: undefined };
    const parts = { limiter, gate };
    const streams = startStreams(settings, options, clients, parts, createLogger("test", "silent"), stack);
    const server = http.createServer();
    server.on("upgrade", streams.upgrade);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(async () => {
      await streams.stop();
      await stack.stop();
      await limiter.close();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    });
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    return { url: `ws://127.0.0.1:${String(port)}/v1/stream`, limiter };
  }

  const opened = async (url: string): Promise<{ ws: WebSocket; code: Promise<number> }> => {
    const ws = await open(url);
    if (!(ws instanceof WebSocket)) throw new Error(`refused ${String(ws)}`);
    const code = new Promise<number>((resolve) => {
      ws.once("close", (c) => {
        resolve(c);
      });
    });
    return { ws, code };
  };

  it("closes every socket of the key (4001) when an operation on one of them is charged as revoked", async () => {
    const { url, limiter } = await streamsOn();
    const first = await opened(url);
    const second = await opened(url);
    await limiter.markRevoked(VALID.key_id);
    first.ws.send(JSON.stringify({ op: "subscribe", channel: "tickers", symbols: ["BTC-USD"] }));
    expect(await first.code).toBe(4001);
    expect(await second.code).toBe(4001);
  });

  it("closes the key's open sockets (4001) when a further upgrade of it is refused as revoked (401)", async () => {
    const { url, limiter } = await streamsOn();
    const first = await opened(url);
    await limiter.markRevoked(VALID.key_id);
    expect(await open(url)).toBe(401);
    expect(await first.code).toBe(4001);
  });
});
