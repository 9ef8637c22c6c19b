// The upgrade of GET /v1/stream (docs/streaming.md) on a real http server with a test double of the wallet:
// the per-key socket cap counts only upgrades that can still open, so a client that hangs up while it is
// authenticated, or once its slot is taken but before the handshake completes, leaves the key its full cap;
// a key the limiter has marked revoked has its sockets closed 4001 at the next revalidation; a key without the
// stream's scope is refused 403 naming it.
import http from "node:http";
import net from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WebSocket } from "ws";
import { createLogger } from "../../kernel/log.js";
import type { Validation } from "../../kernel/key-cache.js";
import type { Clients } from "../clients.js";
import { MemoryRateLimiter } from "../ratelimit/index.js";
import { StreamServer, type StreamSettings } from "./server.js";
import type { AccountFeeds, TickerFeed } from "./feeds.js";
import { KEY, open, tradingDeps, VALID } from "./stream.testing.js";

const CAP = 2;
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await tick();
}

interface Rig {
  streams: StreamServer;
  url: string;
  port: number;
  /** Validations the wallet has been asked for and not answered yet (when it is slow). */
  asked: (() => void)[];
  /** Server-side sockets of the upgrades, in arrival order. */
  upgrades: net.Socket[];
  revoked: Set<string>;
  /** Each revalidation question, as [key id, user id]. */
  questions: [string, string][];
  /** While true, the limiter cannot be reached (isRevoked rejects). */
  limiterDown: { value: boolean };
  /** While true, isRevoked does not answer until `release` is called. */
  limiterSlow: { value: boolean; release: () => void };
  /** The wallet answers at once from here on (and every validation waiting now). */
  answerAtOnce: () => void;
  stop: () => Promise<void>;
}

/** A stream server whose wallet answers at once, or (`slow`) only when the test releases each validation. */
async function rig(
  options: { slow?: boolean; settings?: Partial<StreamSettings>; answer?: Validation } = {},
): Promise<Rig> {
  const answer = options.answer ?? VALID;
  const asked: (() => void)[] = [];
  const revoked = new Set<string>();
  const questions: [string, string][] = [];
  const limiterDown = { value: false };
  const waiting: (() => void)[] = [];
  const limiterSlow = {
    value: false,
    release: () => {
      for (const answer of waiting.splice(0)) answer();
    },
  };
  let slow = options.slow === true;
  const validateApiKey = (): Promise<Validation> =>
    slow
      ? new Promise((resolve) => {
          asked.push(() => {
            resolve(answer);
          });
        })
      : Promise.resolve(answer);
  const limiter = new MemoryRateLimiter({ limit: 10_000, windowMs: 60_000 });
  const log = createLogger("test", "silent");
  const streams = new StreamServer({
    auth: { clients: { wallet: { validateApiKey } } as unknown as Clients, limiter, windowMs: 60_000 },
    trustedProxies: [],
    settings: {
      maxSocketsPerKey: CAP,
      pingIntervalMs: 60_000,
      revalidateMs: 60_000,
      maxMessageBytes: 16 * 1024,
      ...options.settings,
    },
    session: {
      feeds: {} as unknown as AccountFeeds,
      tickers: {} as unknown as TickerFeed,
      listEvents: () => Promise.resolve({ events: [], hasMore: false }),
      charge: () => Promise.resolve(undefined),
      symbolOf: () => Promise.resolve(undefined),
      maxBufferedBytes: 1_000_000,
      maxAccounts: 10,
      trading: tradingDeps(),
      log,
    },
    isRevoked: (keyId, userId) => {
      questions.push([keyId, userId]);
      if (limiterSlow.value) {
        return new Promise((resolve) => {
          waiting.push(() => {
            resolve(revoked.has(keyId));
          });
        });
      }
      return limiterDown.value ? Promise.reject(new Error("limiter down")) : Promise.resolve(revoked.has(keyId));
    },
    log,
  });
  const upgrades: net.Socket[] = [];
  const server = http.createServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  server.on("upgrade", (_req, socket) => {
    if (socket instanceof net.Socket) upgrades.push(socket);
  });
  server.on("upgrade", streams.upgrade);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    streams,
    url: `ws://127.0.0.1:${port}/v1/stream`,
    port,
    asked,
    upgrades,
    revoked,
    questions,
    limiterDown,
    limiterSlow,
    answerAtOnce: () => {
      slow = false;
      for (const answer of asked.splice(0)) answer();
    },
    stop: async () => {
      await streams.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
      await limiter.close();
    },
  };
}

/** Opens a socket; resolves with it once open, or with the refusal's status. */
/** A raw upgrade request of the key over TCP; `version` other than 13 is a handshake `ws` refuses. */
function rawUpgrade(port: number, version = 13): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write(
        [
          "GET /v1/stream HTTP/1.1",
          `Host: 127.0.0.1:${port}`,
          "Upgrade: websocket",
          "Connection: Upgrade",
          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
          `Sec-WebSocket-Version: ${version}`,
          `X-API-Key: ${KEY.key}`,
          `X-API-Secret: ${KEY.secret}`,
          "",
          "",
        ].join("\r\n"),
      );
      // Read (and drop) whatever the server answers, so its hang-up is seen.
      socket.resume();
      resolve(socket);
    });
    socket.on("error", reject);
  });
}

/** Resolves once the peer hung up on the socket (its end was read, or it closed). */
const hungUp = (socket: net.Socket): Promise<void> =>
  socket.readableEnded || socket.destroyed
    ? Promise.resolve()
    : new Promise((resolve) => {
        socket.once("end", () => {
          resolve();
        });
        socket.once("close", () => {
          resolve();
        });
      });

const destroyed = (socket: net.Socket): Promise<void> =>
  socket.destroyed
    ? Promise.resolve()
    : new Promise((resolve) =>
        socket.once("close", () => {
          resolve();
        }),
      );

/** Waits until `count` upgrades reached the server. */
async function arrived(r: Rig, count: number): Promise<void> {
  while (r.upgrades.length < count) await tick();
}

/** Opens the key's full cap, then shows one more is refused 409; closes what it opened. */
async function expectFullCap(r: Rig): Promise<void> {
  const opened = await Promise.all(Array.from({ length: CAP }, () => open(r.url)));
  expect(opened.every((o) => o instanceof WebSocket)).toBe(true);
  expect(r.streams.sockets).toBe(CAP);
  expect(await open(r.url)).toBe(409);
  for (const ws of opened) if (ws instanceof WebSocket) ws.terminate();
}

/** A rig with a slow wallet and CAP + 1 upgrades, each waiting for the wallet's answer. */
async function awaitingTheWallet(rigs: Rig[]): Promise<{ r: Rig; clients: net.Socket[] }> {
  const r = await rig({ slow: true });
  rigs.push(r);
  const clients = await Promise.all(Array.from({ length: CAP + 1 }, () => rawUpgrade(r.port)));
  await arrived(r, CAP + 1);
  while (r.asked.length < CAP + 1) await tick();
  return { r, clients };
}

const REVALIDATE_MS = 5_000;

/** A socket open on a rig that revalidates its key every REVALIDATE_MS, on fake interval timers. */
async function openRevalidated(rigs: Rig[]): Promise<{ r: Rig; ws: WebSocket }> {
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
  const r = await rig({ settings: { revalidateMs: REVALIDATE_MS } });
  rigs.push(r);
  const ws = await open(r.url);
  if (!(ws instanceof WebSocket)) throw new Error(`refused ${String(ws)}`);
  return { r, ws };
}

describe("StreamServer upgrades", () => {
  const rigs: Rig[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const r of rigs.splice(0)) await r.stop();
  });

  it("takes no slot for a client that hung up while it was authenticated: the key still opens its full cap", async () => {
    const { r, clients } = await awaitingTheWallet(rigs);
    // Every client hangs up (a reset) while the wallet has not answered yet: the server's socket is destroyed.
    for (const socket of clients) socket.resetAndDestroy();
    await Promise.all(r.upgrades.map(destroyed));
    r.answerAtOnce();
    await settle();
    expect(r.streams.sockets).toBe(0);
    await expectFullCap(r);
  });

  it("refuses the upgrade of a key without READ_ONLY with 403 naming the scope", async () => {
    const r = await rig({ answer: { ...VALID, valid: false, code: "permission_denied", permissions: [] } });
    rigs.push(r);
    const ws = new WebSocket(r.url, { headers: { "X-API-Key": KEY.key, "X-API-Secret": KEY.secret } });
    ws.on("error", () => undefined);
    const refusal = await new Promise<[number, unknown]>((resolve) => {
      ws.once("unexpected-response", (_req, res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
        res.on("end", () => {
          resolve([res.statusCode ?? 0, JSON.parse(body)]);
        });
      });
    });
    expect(refusal).toEqual([
      403,
      {
        error: "permission_denied",
        required_scope: "READ_ONLY",
        message: "this key lacks the READ_ONLY scope (TRADE or MANAGE_ORDERS also grants it)",
      },
    ]);
  });

  it("gives the slot back when the handshake fails after the slot is taken", async () => {
    const r = await rig();
    rigs.push(r);
    // Past authentication, `ws` refuses an unsupported version and destroys the socket: the slot it took frees.
    const refused = await Promise.all(Array.from({ length: CAP + 1 }, () => rawUpgrade(r.port, 12)));
    await Promise.all(refused.map(hungUp));
    await arrived(r, CAP + 1);
    await Promise.all(r.upgrades.map(destroyed));
    await settle();
    await expectFullCap(r);
  });

  it("gives the slot back when a client sent its end during authentication and the handshake then drops it", async () => {
    const { r, clients } = await awaitingTheWallet(rigs);
    // A plain hang-up (FIN): the server's socket stays writable (half-open), so the upgrade takes its slot,
    // and `ws` destroys the socket, no longer readable, in the handshake.
    for (const socket of clients) socket.destroy();
    await Promise.all(r.upgrades.map(hungUp));
    r.answerAtOnce();
    await Promise.all(r.upgrades.map(destroyed));
    await settle();
    expect(r.streams.sockets).toBe(0);
    await expectFullCap(r);
  });

  it("closes a key's sockets 4001 at the first revalidation after the limiter marked it revoked, not before", async () => {
    const { r, ws } = await openRevalidated(rigs);
    const code = new Promise<number>((resolve) =>
      ws.once("close", (c) => {
        resolve(c);
      }),
    );
    r.revoked.add(VALID.key_id);
    vi.advanceTimersByTime(REVALIDATE_MS - 1);
    await settle();
    expect(ws.readyState).toBe(WebSocket.OPEN);
    expect(r.questions).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(await code).toBe(4001);
    // The key of the socket, with its caller's user (the wallet is asked for the user's key).
    expect(r.questions).toEqual([[VALID.key_id, VALID.user_id]]);
    while (r.streams.sockets > 0) await tick();
  });

  it("closes them at the first revalidation that reaches the limiter again when one could not", async () => {
    const { r, ws } = await openRevalidated(rigs);
    r.revoked.add(VALID.key_id);
    r.limiterDown.value = true;
    vi.advanceTimersByTime(REVALIDATE_MS);
    await settle();
    expect(ws.readyState).toBe(WebSocket.OPEN);
    r.limiterDown.value = false;
    const code = new Promise<number>((resolve) => {
      ws.once("close", (c) => {
        resolve(c);
      });
    });
    vi.advanceTimersByTime(REVALIDATE_MS);
    expect(await code).toBe(4001);
  });

  it("starts no second revalidation pass while one still waits on a slow answer", async () => {
    const { r, ws } = await openRevalidated(rigs);
    r.limiterSlow.value = true;
    for (let i = 0; i < 3; i++) {
      vi.advanceTimersByTime(REVALIDATE_MS);
      await settle();
    }
    // Three ticks, one pass: the key was asked about once.
    expect(r.questions).toHaveLength(1);
    r.limiterSlow.release();
    await settle();
    // That pass is over: the next tick asks again, and its answer (revoked) closes the socket.
    r.revoked.add(VALID.key_id);
    const code = new Promise<number>((resolve) => {
      ws.once("close", (c) => {
        resolve(c);
      });
    });
    vi.advanceTimersByTime(REVALIDATE_MS);
    await settle();
    expect(r.questions).toHaveLength(2);
    r.limiterSlow.release();
    expect(await code).toBe(4001);
  });
});
