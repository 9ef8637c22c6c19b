// The stream's trading operations on a fake engine (docs/streaming.md, "Order entry"): REST's statuses and bodies,
// the rules in REST's order (admission, rate limit, scope, input), the lanes (one account in order, others side by
// side, a cancel of an order the socket never saw as a barrier) and an account's events held behind the answer
// of the operation running on it.
import { describe, expect, it, vi } from "vitest";
import type { WebSocket } from "ws";
import { ServiceError } from "../../kernel/errors.js";
import { createLogger } from "../../kernel/log.js";
import type { OrderResponse__Output } from "../../proto/gen/engine/v1/OrderResponse.js";
import type { WebhookEvent__Output } from "../../proto/gen/engine/v1/WebhookEvent.js";
import type { Clients } from "../clients.js";
import { MemoryRateLimiter } from "../ratelimit/index.js";
import { orderAnswer } from "../v1/trading-ops.js";
import type { AccountFeeds, TickerFeed } from "./feeds.js";
import { StreamSession } from "./session.js";
import { FakeSocket, tradingDeps } from "./stream.testing.js";
import type { TradingDeps } from "./trading.js";

const A = "0a0a0a0a-0000-4000-8000-00000000000a";
const B = "0a0a0a0a-0000-4000-8000-00000000000b";
const ORDER_ON_A = "0a0a0a0a-0000-4000-8000-0000000000a1";
const LIMIT = { symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "1", limit_price: "100" };

const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
};

function reply(accountId: string, orderId: string, outcome = "created"): OrderResponse__Output {
  const order = { order_id: orderId, account_id: accountId, symbol: "BTC-USD", status: "NEW" };
  return { order, fills: [], violations: [], risk_headroom: null, outcome } as unknown as OrderResponse__Output;
}

/** An engine whose calls wait until the test answers them, in the order made. */
function heldEngine() {
  const calls: {
    method: string;
    request: Record<string, unknown>;
    answer: (value: unknown) => void;
    fail: (e: unknown) => void;
  }[] = [];
  const call = (method: string) => (request: Record<string, unknown>) =>
    new Promise((resolve, reject) => {
      calls.push({ method, request, answer: resolve, fail: reject });
    });
  const engine = {
    placeOrder: call("placeOrder"),
    cancelOrder: call("cancelOrder"),
    amendOrder: call("amendOrder"),
  } as unknown as Clients["engine"];
  return { engine, calls };
}

function setUp(options: { permissions?: string[]; trading?: Partial<TradingDeps> } = {}) {
  const socket = new FakeSocket();
  const { engine, calls } = heldEngine();
  const listeners = new Map<string, (event: WebhookEvent__Output) => void>();
  const feeds = {
    join: (_u: string, accountId: string, listener: (event: WebhookEvent__Output) => void) => {
      listeners.set(accountId, listener);
      return Promise.resolve({ last: 0, leave: () => listeners.delete(accountId) });
    },
  } as unknown as AccountFeeds;
  const session = new StreamSession(
    socket as unknown as WebSocket,
    { userId: "u1", keyId: "k1", permissions: options.permissions ?? ["TRADE", "MANAGE_ORDERS"] },
    {
      feeds,
      tickers: {} as unknown as TickerFeed,
      listEvents: () => Promise.resolve({ events: [], hasMore: false }),
      charge: () => Promise.resolve(undefined),
      symbolOf: () => Promise.resolve(undefined),
      trading: tradingDeps({ engine, ...options.trading }),
      maxBufferedBytes: 1_000_000,
      maxAccounts: 10,
      log: createLogger("test", "silent"),
    },
  );
  const send = (message: Record<string, unknown>): void => {
    session.message(JSON.stringify(message));
  };
  const event = (accountId: string, sequence: number): void => {
    const envelope = { id: `e${sequence}`, type: "order.ack", account_id: accountId, sequence, data_json: "{}" };
    listeners.get(accountId)?.(envelope as unknown as WebhookEvent__Output);
  };
  return { socket, session, send, calls, event };
}

describe("trading operations on the stream", () => {
  it("answers REST's status and body: 201 for a new order, 200 with replayed for a replayed client_id", async () => {
    const { socket, send, calls } = setUp();
    send({ op: "order.place", id: 1, args: { account_id: A.toUpperCase(), ...LIMIT, client_id: "c1" } });
    send({ op: "order.place", id: 2, args: { account_id: A, ...LIMIT, client_id: "c1" } });
    await settle();
    expect(calls[0]?.request).toMatchObject({ account_id: A, user_id: "u1", client_id: "c1" });
    calls[0]?.answer(reply(A, ORDER_ON_A));
    await settle();
    calls[1]?.answer(reply(A, ORDER_ON_A, "replayed"));
    await settle();
    expect(socket.sent).toEqual([
      { op: "order.place", id: 1, status: 201, body: orderAnswer(reply(A, ORDER_ON_A)).body },
      { op: "order.place", id: 2, status: 200, replayed: true, body: orderAnswer(reply(A, ORDER_ON_A)).body },
    ]);
  });

  it("decides one account's operations in the order sent and other accounts' side by side", async () => {
    const { socket, send, calls } = setUp();
    send({ op: "order.place", id: 1, args: { account_id: A, ...LIMIT } });
    send({ op: "order.place", id: 2, args: { account_id: A, ...LIMIT } });
    send({ op: "order.place", id: 3, args: { account_id: B, ...LIMIT } });
    await settle();
    expect(calls.map((c) => c.request.account_id)).toEqual([A, B]);
    calls[1]?.answer(reply(B, "0a0a0a0a-0000-4000-8000-0000000000b1"));
    await settle();
    expect(socket.sent.map((m) => m.id)).toEqual([3]);
    calls[0]?.answer(reply(A, ORDER_ON_A));
    await settle();
    expect(calls).toHaveLength(3);
    expect(socket.sent.map((m) => m.id)).toEqual([3, 1]);
  });

  it("runs a cancel in its order's account lane once the socket saw the order, else after everything before it", async () => {
    const { send, calls } = setUp();
    send({ op: "order.place", id: 1, args: { account_id: A, ...LIMIT } });
    await settle();
    calls[0]?.answer(reply(A, ORDER_ON_A));
    await settle();
    send({ op: "order.place", id: 2, args: { account_id: B, ...LIMIT } });
    send({ op: "order.cancel", id: 3, args: { order_id: ORDER_ON_A } });
    await settle();
    // The order is on A: its cancel does not wait for B's order.
    expect(calls.map((c) => c.method)).toEqual(["placeOrder", "placeOrder", "cancelOrder"]);
    send({ op: "order.cancel", id: 4, args: { order_id: "0a0a0a0a-0000-4000-8000-00000000ffff" } });
    await settle();
    expect(calls).toHaveLength(3);
    calls[1]?.answer(reply(B, "0a0a0a0a-0000-4000-8000-0000000000b1"));
    calls[2]?.answer(reply(A, ORDER_ON_A));
    await settle();
    expect(calls.map((c) => c.method)).toEqual(["placeOrder", "placeOrder", "cancelOrder", "cancelOrder"]);
  });

  it("holds an account's events while an operation on it runs and sends them after its answer", async () => {
    const { socket, send, calls, event } = setUp();
    send({ op: "subscribe", account_id: A, id: "a" });
    send({ op: "subscribe", account_id: B, id: "b" });
    await settle();
    send({ op: "order.place", id: 1, args: { account_id: A, ...LIMIT } });
    await settle();
    event(A, 1);
    event(B, 1);
    await settle();
    expect(socket.sent.slice(2).map((m) => [m.account_id, m.sequence])).toEqual([[B, 1]]);
    calls[0]?.answer(reply(A, ORDER_ON_A));
    await settle();
    expect(socket.sent.slice(3).map((m) => m.op ?? m.sequence)).toEqual(["order.place", 1]);
    event(A, 2);
    expect(socket.sent.at(-1)).toMatchObject({ account_id: A, sequence: 2 });
  });

  it("refuses a key without the scope 403 naming it, charged one and the engine not asked", async () => {
    const limiter = new MemoryRateLimiter({ limit: 10, windowMs: 60_000, sweepIntervalMs: 0 });
    const consume = vi.spyOn(limiter, "consume");
    const { socket, send, calls } = setUp({ permissions: ["READ_ONLY"], trading: { limiter } });
    send({ op: "orders.batch", id: 1, args: { orders: [{}, {}, {}] } });
    await settle();
    expect(calls).toEqual([]);
    expect(consume).toHaveBeenCalledWith("k1", 1);
    expect(socket.sent).toEqual([
      { op: "orders.batch", id: 1, status: 403, body: ServiceError.missingScope("TRADE").body() },
    ]);
  });

  it("answers 429 with retry_after_ms past the key's budget, a batch counting one per order", async () => {
    const limiter = new MemoryRateLimiter({ limit: 3, windowMs: 60_000, maxDelayMs: 0, sweepIntervalMs: 0 });
    const { socket, send } = setUp({ trading: { limiter } });
    send({ op: "orders.batch", id: 1, args: { orders: [{}, {}] } });
    send({ op: "orders.batch", id: 2, args: { orders: [{}, {}] } });
    await settle();
    // Orders naming no account touch none: the two batches run side by side.
    socket.sent.sort((x, y) => Number(x.id) - Number(y.id));
    expect(socket.sent[0]).toMatchObject({ id: 1, status: 200 });
    expect(socket.sent[1]).toMatchObject({ id: 2, status: 429, body: { error: "rate_limited" } });
    expect((socket.sent[1]?.body as { retry_after_ms: number }).retry_after_ms).toBeGreaterThan(0);
  });

  it("sheds before any charge under overload: 503 overloaded with retry_after_ms", async () => {
    const limiter = new MemoryRateLimiter({ limit: 10, windowMs: 60_000, sweepIntervalMs: 0 });
    const consume = vi.spyOn(limiter, "consume");
    const admission: TradingDeps["admission"] = { admit: (_k, _r, outcome) => outcome("queue_full") };
    const { socket, send } = setUp({ trading: { limiter, admission, random: () => 0 } });
    send({ op: "order.place", id: 1, args: { account_id: A, ...LIMIT } });
    await settle();
    expect(consume).not.toHaveBeenCalled();
    expect(socket.sent).toEqual([
      {
        op: "order.place",
        id: 1,
        status: 503,
        retry_after_ms: 1_000,
        body: { error: "overloaded", retry_after_ms: 1_000 },
      },
    ]);
  });

  it("gives a 503's units back: an engine that did not answer charges nothing", async () => {
    const limiter = new MemoryRateLimiter({ limit: 10, windowMs: 60_000, sweepIntervalMs: 0 });
    const refund = vi.spyOn(limiter, "refund");
    const { socket, send, calls } = setUp({ trading: { limiter } });
    send({ op: "order.place", id: 1, args: { account_id: A, ...LIMIT } });
    await settle();
    calls[0]?.fail(new ServiceError("engine_unavailable"));
    await settle();
    expect(socket.sent).toEqual([
      { op: "order.place", id: 1, status: 503, retry_after_ms: 1_000, body: { error: "engine_unavailable" } },
    ]);
    expect(refund).toHaveBeenCalledTimes(1);
  });

  it("answers bad input with REST's 400 and 404, and a message without args as invalid", async () => {
    const { socket, send, calls } = setUp();
    send({ op: "order.place", id: 1, args: { account_id: A, ...LIMIT, side: "UP" } });
    send({ op: "order.cancel", id: 2, args: { order_id: "nope" } });
    send({ op: "order.amend", id: 3, args: { order_id: ORDER_ON_A } });
    send({ op: "order.place", id: 4, account_id: A });
    await settle();
    expect(calls).toEqual([]);
    expect(socket.sent.map((m) => [m.id, m.status, (m.body as { error: string }).error])).toEqual([
      [1, 400, "invalid_payload"],
      [2, 404, "not_found"],
      [3, 400, "invalid_payload"],
      [4, 400, "invalid_payload"],
    ]);
    expect((socket.sent[3]?.body as { issues: unknown[] }).issues).toEqual([
      { path: "account_id", message: "unknown field (the input goes in args)" },
      { path: "args", message: "required" },
    ]);
  });
});
