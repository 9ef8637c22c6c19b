// The socket session (client/src/session.ts) against an in-process fake of `GET /v1/stream` that speaks the
// protocol of docs/streaming.md: answers paired by `id` whatever their order, error answers as `ApiError`, the
// retry rules of REST (the same `client_id` again, on the same socket or a new one), subscriptions resumed with
// `after`, and `close()`.
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { inspect } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { TradingClient } from "./client.js";
import { ApiError, NetworkError, SessionClosedError } from "./errors.js";
import type { TradingSession } from "./session.js";
import type { RetryEvent } from "./transport.js";
import type { OrderResponse, PlaceOrderRequest, WebhookEnvelope } from "./types.js";

type Message = Record<string, unknown>;

const SECRET = "svc_sk_never-printed";

interface Connection {
  socket: WebSocket;
  received: Message[];
  headers: IncomingMessage["headers"];
  closeCode?: number;
}

/** The fake gateway: each message goes to `onMessage`; `refusals` answer the next upgrades with an HTTP status. */
class FakeGateway {
  readonly connections: Connection[] = [];
  refusals: { status: number; body: Message; headers?: Record<string, string> }[] = [];
  onMessage: (message: Message, connection: Connection) => void = () => undefined;
  private readonly wss = new WebSocketServer({ noServer: true });

  private constructor(readonly http: Server) {
    http.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const refusal = this.refusals.shift();
      if (refusal !== undefined) {
        const body = JSON.stringify(refusal.body);
        const extra = Object.entries(refusal.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`);
        socket.end(
          `HTTP/1.1 ${refusal.status} Refused\r\ncontent-type: application/json\r\n${extra.join("")}` +
            `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
        );
        return;
      }
      this.wss.handleUpgrade(request, socket, head, (ws) => {
        const connection: Connection = { socket: ws, received: [], headers: request.headers };
        this.connections.push(connection);
        ws.on("close", (code) => (connection.closeCode = code));
        ws.on("message", (data: Buffer) => {
          const message = JSON.parse(data.toString("utf8")) as Message;
          connection.received.push(message);
          this.onMessage(message, connection);
        });
      });
    });
  }

  static async start(): Promise<FakeGateway> {
    const http = createServer((_req, res) => res.writeHead(404).end());
    http.listen(0, "127.0.0.1");
    await once(http, "listening");
    return new FakeGateway(http);
  }

  get url(): string {
    const address = this.http.address();
    return `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  }

  /** Every message of `op` received, on every connection, in order. */
  received(op: string): Message[] {
    return this.connections.flatMap((c) => c.received.filter((m) => m.op === op));
  }

  async stop(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    this.http.closeAllConnections();
    await new Promise((resolve) => this.http.close(resolve));
  }
}

const answer = (connection: Connection, message: Message, status: number, body: unknown, extra: Message = {}) => {
  connection.socket.send(JSON.stringify({ op: message.op, id: message.id, status, ...extra, body }));
};

/** The body `POST /v1/order` answers for `args`: an order named after its `client_id`. */
const placed = (args: unknown, violations: unknown[] = []): OrderResponse =>
  ({ order: { order_id: `order-${String((args as Message).client_id)}` }, violations }) as unknown as OrderResponse;

const LIMIT: PlaceOrderRequest = {
  account_id: "acc-1",
  symbol: "BTC-USD",
  side: "BUY",
  kind: "LIMIT",
  quantity: "0.01",
  limit_price: "1000",
};

let gateway: FakeGateway;
let session: TradingSession | undefined;
const waits: RetryEvent[] = [];

afterEach(async () => {
  await session?.close();
  session = undefined;
  await gateway.stop();
  waits.length = 0;
});

async function connect(configure: (gateway: FakeGateway) => void = () => undefined): Promise<TradingSession> {
  gateway = await FakeGateway.start();
  configure(gateway);
  const client = new TradingClient({
    baseUrl: gateway.url,
    apiKey: "svc_ak_1",
    apiSecret: SECRET,
    random: () => 0.5,
    sleep: () => Promise.resolve(),
    throttle: false,
    onRetry: (event) => waits.push(event),
  });
  session = await client.connect();
  return session;
}

describe("TradingSession calls", () => {
  it("pipelines calls and pairs each answer with its call by id, whatever the order answers come in", async () => {
    const held: [Message, Connection][] = [];
    const s = await connect((g) => {
      g.onMessage = (message, connection) => {
        held.push([message, connection]);
        // All three are in flight before any is answered; then they are answered last first.
        if (held.length === 3) for (const [m, c] of held.reverse()) answer(c, m, 201, placed(m.args));
      };
    });
    const results = await Promise.all(["a", "b", "c"].map((id) => s.placeOrder({ ...LIMIT, client_id: id })));
    expect(results.map((r) => [r.kind, r.clientId, r.response.order.order_id, r.attempts])).toEqual([
      ["accepted", "a", "order-a", 1],
      ["accepted", "b", "order-b", 1],
      ["accepted", "c", "order-c", 1],
    ]);
    expect(new Set(gateway.received("order.place").map((m) => m.id)).size).toBe(3);
    expect(gateway.connections[0]?.headers["x-api-secret"]).toBe(SECRET);
  });

  it("sends each operation with the protocol's args and answers the REST method's result", async () => {
    const bodies: Record<string, unknown> = {
      "order.cancel": { order: { order_id: "o-1", status: "CANCELED" } },
      "order.amend": { order: { order_id: "o-1", limit_price: 990 } },
      "orders.cancel_all": { data: [{ order_id: "o-2" }] },
      "account.flatten": { canceled: [], closes: [], open_positions: [] },
      "cancel_after.set": { account_id: "acc-1", timeout_ms: 5000 },
      "order.test": { violations: [{ rule: "max_position", message: "too big" }] },
    };
    const s = await connect((g) => {
      g.onMessage = (m, c) => {
        const args = m.args as Message;
        if (m.op === "orders.batch") {
          const data = (args.orders as Message[]).map((o) => ({ status: 201, replayed: false, body: placed(o) }));
          answer(c, m, 200, { data });
        } else if (m.op === "position.close") answer(c, m, 200, placed(args), { replayed: true });
        else answer(c, m, 200, bodies[String(m.op)]);
      };
    });
    expect(await s.cancelOrder("o-1")).toEqual({ order_id: "o-1", status: "CANCELED" });
    expect(await s.amendOrder("o-1", { limit_price: "990" })).toEqual({ order_id: "o-1", limit_price: 990 });
    expect(await s.cancelAllOrders("acc-1", "BTC-USD")).toEqual([{ order_id: "o-2" }]);
    expect(await s.flatten("acc-1")).toEqual(bodies["account.flatten"]);
    expect(await s.setCancelAfter("acc-1", 5000)).toEqual(bodies["cancel_after.set"]);
    expect(await s.testOrder(LIMIT)).toMatchObject({ kind: "rejected", violations: [{ rule: "max_position" }] });
    const close = await s.closePosition({ account_id: "acc-1", symbol: "BTC-USD" });
    expect([close.kind, close.replayed, close.response.order.order_id]).toEqual([
      "accepted",
      true,
      `order-${close.clientId}`,
    ]);
    const batch = await s.placeOrders([LIMIT, { ...LIMIT, client_id: "mine" }]);
    expect(batch.clientIds[1]).toBe("mine");
    expect(batch.data.map((d) => (d.body as OrderResponse).order.order_id)).toEqual(
      batch.clientIds.map((id) => `order-${id}`),
    );

    const sent = gateway.connections[0]?.received.map((m) => [m.op, m.args]);
    expect(sent?.slice(0, 6)).toEqual([
      ["order.cancel", { order_id: "o-1" }],
      ["order.amend", { order_id: "o-1", limit_price: "990" }],
      ["orders.cancel_all", { account_id: "acc-1", symbol: "BTC-USD" }],
      ["account.flatten", { account_id: "acc-1" }],
      ["cancel_after.set", { account_id: "acc-1", timeout_ms: 5000 }],
      ["order.test", LIMIT],
    ]);
    expect(sent?.[6]).toEqual([
      "position.close",
      { account_id: "acc-1", symbol: "BTC-USD", client_id: close.clientId },
    ]);
    expect(sent?.[7]).toEqual(["orders.batch", { orders: batch.clientIds.map((id) => ({ ...LIMIT, client_id: id })) }]);
  });

  it("throws an error answer as the ApiError REST would, after one attempt", async () => {
    const s = await connect((g) => {
      g.onMessage = (m, c) => {
        if (m.op === "order.place") {
          answer(c, m, 403, { error: "permission_denied", required_scope: "TRADE", message: "needs TRADE" });
        } else answer(c, m, 400, { error: "invalid_payload", issues: [{ path: "order_id", message: "bad" }] });
      };
    });
    const denied = await s.placeOrder(LIMIT).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(ApiError);
    expect(denied).toMatchObject({ status: 403, code: "permission_denied", requiredScope: "TRADE", attempts: 1 });
    const invalid = await s.cancelOrder("nope").catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, code: "invalid_payload", issues: [{ path: "order_id" }] });
    expect(gateway.received("order.place")).toHaveLength(1);
    expect(String(denied) + String(invalid)).not.toContain(SECRET);
  });

  it("retries 503 overloaded, 429 and 503 with the same client_id, waiting what each asks", async () => {
    const script: [number, Message][] = [
      [503, { error: "overloaded", retry_after_ms: 1800 }],
      [429, { error: "rate_limited", retry_after_ms: 2500 }],
      [503, { error: "engine_unavailable" }],
    ];
    const s = await connect((g) => {
      g.onMessage = (m, c) => {
        const next = script.shift();
        if (next === undefined) answer(c, m, 201, placed(m.args));
        else answer(c, m, next[0], next[1]);
      };
    });
    const result = await s.placeOrder(LIMIT);
    expect([result.kind, result.attempts]).toEqual(["accepted", 4]);
    const sent = gateway.received("order.place");
    expect(sent.map((m) => (m.args as Message).client_id)).toEqual(Array(4).fill(result.clientId));
    expect(new Set(sent.map((m) => m.id)).size).toBe(4);
    // 1800 stretched by 1.25 (random 0.5); 429: max(backoff 2 s × 0.75, 2500); 503: backoff 4 s × 0.75.
    expect(waits.map((w) => [w.path, w.reason, w.delayMs])).toEqual([
      ["order.place", "503 overloaded", 2250],
      ["order.place", "429", 2500],
      ["order.place", "503", 3000],
    ]);
  });

  it("does not send again, after a 500, an operation that is not idempotent", async () => {
    const s = await connect((g) => {
      g.onMessage = (m, c) => {
        answer(c, m, 500, { error: "engine_error" });
      };
    });
    await expect(s.request("order.place", { a: 1 }, { idempotent: false })).rejects.toMatchObject({ status: 500 });
    expect(gateway.received("order.place")).toHaveLength(1);
  });
});

describe("TradingSession on a lost socket", () => {
  it("reconnects and sends the call again with the same client_id: the caller gets one result", async () => {
    const s = await connect((g) => {
      g.onMessage = (m, c) => {
        if (c === g.connections[0]) c.socket.terminate();
        else answer(c, m, 200, placed(m.args), { replayed: true });
      };
    });
    const result = await s.placeOrder(LIMIT);
    expect([result.kind, result.replayed, result.attempts]).toEqual(["accepted", true, 2]);
    expect(gateway.connections).toHaveLength(2);
    const [first, second] = gateway.connections.map((c) => c.received.map((m) => (m.args as Message).client_id));
    expect([first, second]).toEqual([[result.clientId], [result.clientId]]);
    expect(waits.map((w) => [w.path, w.reason])).toEqual([["/v1/stream", "socket lost"]]);
  });

  it("fails a call that is not safe to repeat instead of sending it on the new socket", async () => {
    const s = await connect((g) => {
      g.onMessage = (m, c) => {
        if (c === g.connections[0]) c.socket.terminate();
        else answer(c, m, 200, { order: { order_id: "o-1" } });
      };
    });
    const error = await s.request("order.place", { a: 1 }, { idempotent: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(String(error)).toMatch(/may have run, so it is not sent again/);
    // The session carries on, on a new socket.
    expect((await s.cancelOrder("o-1")).order_id).toBe("o-1");
    expect(gateway.received("order.place")).toHaveLength(1);
    expect(gateway.connections).toHaveLength(2);
  });

  it("retries a refused upgrade as REST retries a 429, and fails one refused 401 at once", async () => {
    await connect((g) => {
      g.refusals = [{ status: 429, body: { error: "rate_limited" }, headers: { "retry-after": "3" } }];
    });
    expect(gateway.connections).toHaveLength(1);
    expect(waits.map((w) => [w.reason, w.delayMs])).toEqual([["429", 3000]]);
    await session?.close();
    gateway.refusals = [{ status: 401, body: { error: "unauthorized" } }];
    const client = new TradingClient({ baseUrl: gateway.url, apiKey: "svc_ak_1", apiSecret: SECRET });
    const refused = await client.connect().catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 401, code: "unauthorized", attempts: 1 });
    expect(String(refused)).not.toContain(SECRET);
  });

  it("ends at close code 4001 (key revoked): calls fail, nothing reconnects", async () => {
    const s = await connect((g) => {
      g.onMessage = (_m, c) => {
        c.socket.close(4001, "revoked");
      };
    });
    const error = await s.placeOrder(LIMIT).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionClosedError);
    expect(error).toMatchObject({ closeCode: 4001 });
    expect(gateway.connections).toHaveLength(1);
    await expect(s.cancelOrder("o-1")).rejects.toBe(error);
  });
});

/** Answers `subscribe` with its ack, then the events `from`..`to` of the account. */
function events(connection: Connection, message: Message, after: number, from: number, to: number): void {
  connection.socket.send(JSON.stringify({ op: "subscribed", id: message.id, account_id: message.account_id, after }));
  for (let sequence = from; sequence <= to; sequence++) {
    const envelope = { id: `evt-${sequence}`, type: "order.ack", account_id: message.account_id, sequence, data: {} };
    connection.socket.send(JSON.stringify(envelope));
  }
}

async function take(iterator: AsyncIterator<WebhookEnvelope>, count: number): Promise<number[]> {
  const sequences: number[] = [];
  while (sequences.length < count) {
    const next = await iterator.next();
    if (next.done === true) break;
    sequences.push(next.value.sequence);
  }
  return sequences;
}

describe("TradingSession subscriptions", () => {
  it("subscribes again with `after` its last sequence on a new socket: nothing lost or repeated", async () => {
    const s = await connect((g) => {
      g.onMessage = (m, c) => {
        if (m.op !== "subscribe") return;
        if (c === g.connections[0]) {
          events(c, m, 0, 1, 3);
          c.socket.close(1001, "going away");
        } else {
          // Resent from before `after` on purpose: the session drops what it already delivered.
          events(c, m, Number(m.after), 2, 5);
        }
      };
    });
    const subscription = await s.subscribe("acc-1", { after: 0 });
    expect(await take(subscription, 5)).toEqual([1, 2, 3, 4, 5]);
    expect(gateway.received("subscribe").map((m) => [m.account_id, m.after])).toEqual([
      ["acc-1", 0],
      ["acc-1", 3],
    ]);
    expect(subscription.last).toBe(5);
  });

  it("starts where the ack says when no `after` is given, and resumes from there", async () => {
    const s = await connect((g) => {
      g.onMessage = (m, c) => {
        if (m.op !== "subscribe") return;
        if (c === g.connections[0]) {
          events(c, m, 7, 8, 8);
          c.socket.terminate();
        } else events(c, m, Number(m.after), 9, 9);
      };
    });
    const subscription = await s.subscribe("acc-1");
    expect(await take(subscription, 1)).toEqual([8]);
    await vi.waitFor(() => {
      expect(gateway.connections).toHaveLength(2);
    });
    expect(await take(subscription, 1)).toEqual([9]);
    expect(gateway.received("subscribe").map((m) => m.after)).toEqual([undefined, 8]);
  });

  it("refuses an unknown account as the stream's not_found, a 404 ApiError", async () => {
    const s = await connect((g) => {
      g.onMessage = (m, c) => {
        c.socket.send(JSON.stringify({ op: "error", id: m.id, account_id: m.account_id, error: "not_found" }));
      };
    });
    await expect(s.subscribe("acc-x")).rejects.toMatchObject({ status: 404, code: "not_found" });
  });
});

describe("TradingSession.close", () => {
  it("fails calls still waiting, ends subscriptions' loops, closes the socket with 1000 and does not reconnect", async () => {
    const s = await connect((g) => {
      g.onMessage = (m, c) => {
        if (m.op === "subscribe") events(c, m, 0, 1, 1);
      };
    });
    const subscription = await s.subscribe("acc-1", { after: 0 });
    const waiting = s.placeOrder(LIMIT).catch((e: unknown) => e);
    await vi.waitFor(() => {
      expect(gateway.received("order.place")).toHaveLength(1);
    });
    const seen: number[] = [];
    const loop = (async () => {
      for await (const event of subscription) seen.push(event.sequence);
    })();
    await s.close();
    await loop;
    expect(seen).toEqual([1]);
    expect(await waiting).toBeInstanceOf(SessionClosedError);
    await vi.waitFor(() => {
      expect(gateway.connections[0]?.closeCode).toBe(1000);
    });
    expect(gateway.connections).toHaveLength(1);
    await expect(s.cancelOrder("o-1")).rejects.toBeInstanceOf(SessionClosedError);
  });

  it("keeps the credentials out of what inspecting or serialising the session shows", async () => {
    const s = await connect();
    expect(inspect(s, { depth: 30, showHidden: true })).not.toContain(SECRET);
  });
});
