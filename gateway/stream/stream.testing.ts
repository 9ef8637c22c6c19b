// What the stream's tests share (a test helper: production code never imports it).
import { WebSocket } from "ws";
import type { Validation } from "../../kernel/key-cache.js";
import { createLogger } from "../../kernel/log.js";
import type { Clients } from "../clients.js";
import { MemoryRateLimiter } from "../ratelimit/index.js";
import type { TradingDeps } from "./trading.js";

/** The credentials the tests' sockets present (the wallet double answers for them). */
export const KEY = { key: "pk_stream", secret: "sk_stream" };

/** The wallet's answer for a valid READ_ONLY key of user u1 that never expires. */
export const VALID: Validation = {
  valid: true,
  code: "",
  user_id: "u1",
  key_id: "key-1",
  permissions: ["READ_ONLY"],
  expires_at_ms: 0,
};

/** A socket of KEY on `url`; the HTTP status when the upgrade is refused. */
export function open(url: string): Promise<WebSocket | number> {
  const ws = new WebSocket(url, { headers: { "X-API-Key": KEY.key, "X-API-Secret": KEY.secret } });
  return new Promise((resolve, reject) => {
    ws.once("open", () => {
      resolve(ws);
    });
    ws.once("unexpected-response", (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    ws.once("error", reject);
  });
}

/** An admission control that admits every operation at once. */
export const ADMIT_ALL: TradingDeps["admission"] = {
  admit: (_key, _reducesRisk, outcome) => {
    outcome({ release: () => undefined });
  },
};

/** What a session's trading operations run with: admitted at once, a roomy limiter, an engine that answers nothing. */
export function tradingDeps(overrides: Partial<TradingDeps> = {}): TradingDeps {
  return {
    engine: {} as unknown as Clients["engine"],
    admission: ADMIT_ALL,
    limiter: new MemoryRateLimiter({ limit: 10_000, windowMs: 60_000, sweepIntervalMs: 0 }),
    hold: () => Promise.resolve(),
    failures: { log: createLogger("test", "silent") },
    ...overrides,
  };
}

/** A socket that keeps what the session sent it, parsed. */
export class FakeSocket {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  sent: Record<string, unknown>[] = [];
  closedWith: number | undefined;
  send(text: string): void {
    this.sent.push(JSON.parse(text) as Record<string, unknown>);
  }
  close(code: number): void {
    this.closedWith = code;
    this.readyState = 3;
  }
  terminate(): void {
    this.readyState = 3;
  }
}
