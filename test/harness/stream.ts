// A GET /v1/stream client for tests (docs/streaming.md): opens the socket with a key, sends operations, and
// keeps every message it received so a test can wait for the ones it expects.
import WebSocket from "ws";
import type { CreatedKey } from "./client.js";

export type Message = Record<string, unknown>;

export interface Closed {
  code: number;
  reason: string;
}

export class StreamClient {
  readonly messages: Message[] = [];
  readonly closed: Promise<Closed>;
  private waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data: Buffer) => {
      this.messages.push(JSON.parse(data.toString("utf8")) as Message);
      this.wake();
    });
    this.closed = new Promise((resolve) => {
      ws.on("close", (code, reason) => {
        resolve({ code, reason: reason.toString("utf8") });
        this.wake();
      });
    });
    ws.on("error", () => undefined);
  }

  /** Opens a socket on the gateway's /v1 base URL; rejects with the HTTP status of a refused upgrade. */
  static open(base: string, key: Pick<CreatedKey, "key" | "secret">): Promise<StreamClient> {
    const ws = new WebSocket(`${base.replace(/^http/, "ws")}/v1/stream`, {
      headers: { "x-api-key": key.key, "x-api-secret": key.secret },
    });
    const client = new StreamClient(ws);
    return new Promise((resolve, reject) => {
      ws.once("open", () => {
        resolve(client);
      });
      ws.once("unexpected-response", (_req, res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
        res.on("end", () => {
          reject(new RefusedUpgrade(res.statusCode ?? 0, body === "" ? {} : (JSON.parse(body) as Message)));
        });
      });
      ws.once("error", reject);
    });
  }

  send(op: Message): void {
    this.ws.send(JSON.stringify(op));
  }

  /** The account events received (envelopes), in order. */
  events(accountId?: string): Message[] {
    return this.messages.filter(
      (m) => typeof m.sequence === "number" && (accountId === undefined || m.account_id === accountId),
    );
  }

  /** Waits until `check` holds over the messages so far; fails after `timeoutMs` naming `what`. */
  async until(check: (messages: Message[]) => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check(this.messages)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.messages.slice(-5))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The first message matching `match` from index `from` on, once it came. */
  async next(match: (message: Message) => boolean, what: string, from = 0): Promise<Message> {
    let found: Message | undefined;
    await this.until((messages) => (found = messages.slice(from).find(match)) !== undefined, what);
    return found as Message;
  }

  close(): void {
    this.ws.close();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

export class RefusedUpgrade extends Error {
  constructor(
    readonly status: number,
    readonly body: Message,
  ) {
    super(`upgrade refused: ${status} ${JSON.stringify(body)}`);
  }
}
