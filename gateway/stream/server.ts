// GET /v1/stream (docs/streaming.md): the WebSocket upgrade on the /v1 listener. The upgrade request goes
// through the same authentication, rate limit, IP allow-list and scope check as a REST request (READ_ONLY
// suffices; a refusal is the same HTTP answer, written on the socket); then at most STREAM_MAX_SOCKETS_PER_KEY
// sockets per key on this gateway (409 `stream_limit_reached` past it). Open sockets are pinged every
// STREAM_PING_INTERVAL_MS and cut when a ping went unanswered; a key's sockets close (4001) when the key is
// revoked (pushed by the key cache, a DELETE through this gateway, a request of the key the limiter refuses as
// revoked (gateway/stream/start.ts), or seen revoked every STREAM_REVALIDATE_MS) or expires.
import http from "node:http";
import { Socket } from "node:net";
import type { Duplex } from "node:stream";
import express, { type RequestHandler } from "express";
import { WebSocketServer, type WebSocket } from "ws";
import { ServiceError } from "../../kernel/errors.js";
import { compileAllowList } from "../../kernel/ip.js";
import type { Logger } from "../../kernel/log.js";
import { MAX_TIMER_MS } from "../../kernel/time.js";
import { errorResponder, notFound, sendError } from "../http/errors.js";
import { requestId } from "../http/request.js";
import { authenticate, callerOf, type AuthDeps, type Caller } from "../v1/auth.js";
import { CLOSE, StreamSession, type SessionDeps } from "./session.js";

export interface StreamSettings {
  maxSocketsPerKey: number;
  pingIntervalMs: number;
  revalidateMs: number;
  /** Largest client message (bytes); a larger one closes the socket (1009). */
  maxMessageBytes: number;
}

export interface StreamServerOptions {
  auth: AuthDeps;
  trustedProxies: string[];
  settings: StreamSettings;
  session: SessionDeps;
  /**
   * Whether the key, one of the user's, was revoked through another replica (gateway/stream/start.ts,
   * `revocationCheck`); asked for each key holding sockets every `revalidateMs`.
   */
  isRevoked: (keyId: string, userId: string) => Promise<boolean>;
  log: Logger;
}

interface Upgrade {
  socket: Socket;
  head: Buffer;
}

export class StreamServer {
  private readonly wss: WebSocketServer;
  private readonly byKey = new Map<string, Set<StreamSession>>();
  /** Upgrades accepted but not open yet, per key (they count against the cap). */
  private readonly pending = new Map<string, number>();
  private readonly app: express.Express;
  private readonly upgrades = new WeakMap<http.IncomingMessage, Upgrade>();
  private readonly timers: NodeJS.Timeout[] = [];
  private stopping = false;
  private revalidating = false;

  constructor(private readonly options: StreamServerOptions) {
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.settings.maxMessageBytes,
      perMessageDeflate: false,
    });
    this.app = this.buildApp();
    const ping = setInterval(() => {
      this.pingAll();
    }, options.settings.pingIntervalMs);
    const revalidate = setInterval(() => {
      void this.revalidate();
    }, options.settings.revalidateMs);
    for (const timer of [ping, revalidate]) timer.unref();
    this.timers.push(ping, revalidate);
  }

  /** Open sockets. */
  get sockets(): number {
    let count = 0;
    for (const set of this.byKey.values()) count += set.size;
    return count;
  }

  /** Bytes held unsent over every socket. */
  get bufferedBytes(): number {
    let bytes = 0;
    for (const set of this.byKey.values()) for (const session of set) bytes += session.buffered;
    return bytes;
  }

  /** The http server's `upgrade` listener. */
  readonly upgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on("error", () => undefined);
    if (this.stopping || !(socket instanceof Socket)) {
      socket.destroy();
      return;
    }
    this.upgrades.set(req, { socket, head });
    const res = new http.ServerResponse(req);
    res.assignSocket(socket);
    res.on("finish", () => {
      // A refusal was written: nothing more on this connection.
      res.detachSocket(socket);
      socket.end();
    });
    this.app(req as express.Request, res as unknown as express.Response);
  };

  /** Closes every socket of the key (revoked or expired). */
  revoke(keyId: string): void {
    for (const session of [...(this.byKey.get(keyId) ?? [])]) {
      session.close();
      session.socket.close(CLOSE.keyRevoked, "API key revoked");
    }
  }

  /** Closes every socket (1001) and stops accepting new ones. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearInterval(timer);
    for (const set of this.byKey.values()) {
      for (const session of set) {
        session.close();
        session.socket.close(CLOSE.goingAway, "gateway shutting down");
      }
    }
    await new Promise<void>((resolve) => {
      this.wss.close(() => {
        resolve();
      });
      setTimeout(resolve, 1_000).unref();
    });
    for (const client of this.wss.clients) client.terminate();
  }

  private buildApp(): express.Express {
    const app = express();
    app.disable("x-powered-by");
    const trusted = compileAllowList(this.options.trustedProxies);
    app.set(
      "trust proxy",
      this.options.trustedProxies.length === 0 ? false : (address: string) => trusted.allows(address),
    );
    app.use(requestId());
    app.get("/v1/stream", authenticate(this.options.auth, "READ_ONLY"), this.accept());
    // Other upgrades authenticate first too, as unknown REST paths do: no route discovery without a key.
    app.use(authenticate(this.options.auth, ""), notFound());
    app.use(errorResponder(this.options.log, { backend: "wallet" }));
    return app;
  }

  /** The upgrade of an authenticated caller, within the key's socket cap. */
  private accept(): RequestHandler {
    return (req, res) => {
      const caller = callerOf(res);
      const upgrade = this.upgrades.get(req);
      if (upgrade === undefined || req.headers.upgrade?.toLowerCase() !== "websocket") {
        sendError(res, ServiceError.invalid([{ path: "upgrade", message: "must be a WebSocket upgrade" }]));
        return;
      }
      // The client reset the connection while it was authenticated: its socket closed already and would never give
      // a slot back. A plain hang-up (FIN) leaves the socket half-open and writable: the handshake below destroys
      // it (no longer readable), and its close gives the slot back.
      if (upgrade.socket.destroyed || !upgrade.socket.writable) return;
      const limit = this.options.settings.maxSocketsPerKey;
      const keyId = caller.keyId;
      const pending = this.pending.get(keyId) ?? 0;
      if ((this.byKey.get(keyId)?.size ?? 0) + pending >= limit) {
        sendError(res, new ServiceError("stream_limit_reached", { limit }));
        return;
      }
      // The slot is taken now (synchronously): two upgrades at once never both pass the cap.
      this.pending.set(keyId, pending + 1);
      const release = (): void => {
        const left = (this.pending.get(keyId) ?? 1) - 1;
        if (left > 0) this.pending.set(keyId, left);
        else this.pending.delete(keyId);
      };
      upgrade.socket.once("close", release);
      res.detachSocket(upgrade.socket);
      this.wss.handleUpgrade(req, upgrade.socket, upgrade.head, (ws) => {
        upgrade.socket.off("close", release);
        release();
        this.open(ws, caller);
      });
    };
  }

  private open(ws: WebSocket, caller: Caller): void {
    const session = new StreamSession(ws, caller, this.options.session);
    const set = this.byKey.get(caller.keyId) ?? new Set<StreamSession>();
    set.add(session);
    this.byKey.set(caller.keyId, set);
    let alive = true;
    (ws as WebSocket & { alive?: () => boolean }).alive = () => {
      const was = alive;
      alive = false;
      return was;
    };
    ws.on("pong", () => {
      alive = true;
    });
    ws.on("message", (data, isBinary) => {
      alive = true;
      if (isBinary) {
        session.message("\u0000");
        return;
      }
      session.message(Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.concat(data as Buffer[]).toString("utf8"));
    });
    const expiry = this.closeAtExpiry(caller);
    ws.on("close", (code) => {
      expiry.cancel();
      session.close();
      set.delete(session);
      if (set.size === 0 && this.byKey.get(caller.keyId) === set) this.byKey.delete(caller.keyId);
      this.options.log.info({ keyId: caller.keyId, code }, "stream closed");
    });
    ws.on("error", () => undefined);
    this.options.log.info({ keyId: caller.keyId }, "stream opened");
  }

  /**
   * Closes the key's sockets when it expires. A timer waits at most MAX_TIMER_MS (Node runs a longer one at
   * once), so an expiry further away is waited for in steps.
   */
  private closeAtExpiry(caller: Caller): { cancel: () => void } {
    const expiresAt = caller.expiresAtMs ?? 0;
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      if (expiresAt <= 0) return;
      const left = expiresAt - Date.now();
      if (left <= 0) {
        this.revoke(caller.keyId);
        return;
      }
      timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
      timer.unref();
    };
    arm();
    return {
      cancel: () => {
        clearTimeout(timer);
      },
    };
  }

  /** Pings every socket; one that did not answer the last ping (nor sent anything) is cut. */
  private pingAll(): void {
    for (const ws of this.wss.clients) {
      const alive = (ws as WebSocket & { alive?: () => boolean }).alive;
      if (alive !== undefined && !alive()) {
        ws.terminate();
        continue;
      }
      ws.ping();
    }
  }

  /**
   * Closes the sockets of keys revoked through another replica. One pass at a time: a tick that comes while a
   * pass still waits on slow answers is skipped, so a slow wallet or Redis is not asked more for it.
   */
  private async revalidate(): Promise<void> {
    if (this.revalidating) return;
    this.revalidating = true;
    try {
      for (const [keyId, sessions] of [...this.byKey]) {
        const userId = sessions.values().next().value?.caller.userId;
        if (userId === undefined) continue;
        const revoked = await this.options.isRevoked(keyId, userId).catch(() => false);
        if (revoked) this.revoke(keyId);
      }
    } finally {
      this.revalidating = false;
    }
  }
}
