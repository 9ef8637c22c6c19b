// One socket's operations (docs/streaming.md) on fake feeds: conflicts and limits answered as errors, tickers
// filtered to the subscribed symbols, operations answered in the order sent, a slow consumer closed 4008.
import { describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import { createLogger } from "../../kernel/log.js";
import { canonicalSymbol } from "../../kernel/symbols.js";
import type { Ticker__Output } from "../../proto/gen/engine/v1/Ticker.js";
import type { WebhookEvent__Output } from "../../proto/gen/engine/v1/WebhookEvent.js";
import type { AccountFeeds, TickerFeed } from "./feeds.js";
import { CLOSE, StreamSession, type SessionDeps } from "./session.js";

const A = "0a0a0a0a-0000-4000-8000-000000000001";
const B = "0a0a0a0a-0000-4000-8000-000000000002";
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

class FakeSocket {
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

const ticker = (symbol: string, mark: number): Ticker__Output =>
  ({ symbol, mark_price: mark, venues: [], market_open: true }) as unknown as Ticker__Output;

function setUp(overrides: Partial<SessionDeps> = {}) {
  const socket = new FakeSocket();
  const listeners = new Map<string, (event: WebhookEvent__Output) => void>();
  const tickerListeners = new Set<(t: Ticker__Output) => void>();
  const latest = new Map<string, Ticker__Output>([["BTC-USD", ticker("BTC-USD", 1)]]);
  const feeds = {
    join: (_u: string, accountId: string, listener: (event: WebhookEvent__Output) => void) => {
      listeners.set(accountId, listener);
      return Promise.resolve({ last: 0, leave: () => listeners.delete(accountId) });
    },
  } as unknown as AccountFeeds;
  const tickers = {
    latest,
    join: (listener: (t: Ticker__Output) => void) => {
      tickerListeners.add(listener);
      return () => tickerListeners.delete(listener);
    },
  } as unknown as TickerFeed;
  const deps: SessionDeps = {
    feeds,
    tickers,
    listEvents: () => Promise.resolve({ events: [], hasMore: false }),
    charge: () => Promise.resolve(undefined),
    symbolOf: (input) => Promise.resolve(canonicalSymbol(input, (symbol) => ["BTC-USD", "ETH-USD"].includes(symbol))),
    maxBufferedBytes: 1_000,
    maxAccounts: 1,
    log: createLogger("test", "silent"),
    ...overrides,
  };
  const session = new StreamSession(
    socket as unknown as WebSocket,
    { userId: "u1", keyId: "k1", permissions: [] },
    deps,
  );
  const send = (op: Record<string, unknown>): void => {
    session.message(JSON.stringify(op));
  };
  return { socket, session, send, listeners, tickerListeners };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await tick();
}

describe("StreamSession", () => {
  it("answers a second subscription to one account and one past the limit as conflicts", async () => {
    const { socket, send } = setUp();
    send({ op: "subscribe", account_id: A, id: 1 });
    send({ op: "subscribe", account_id: A, id: 2 });
    send({ op: "subscribe", account_id: B, id: 3 });
    await settle();
    expect(socket.sent).toEqual([
      { op: "subscribed", id: 1, account_id: A, after: 0 },
      { op: "error", id: 2, account_id: A, error: "conflict", reason: "already_subscribed" },
      { op: "error", id: 3, account_id: B, error: "conflict", reason: "too_many_subscriptions", limit: 1 },
    ]);
  });

  it("handles operations in the order sent: an unsubscribe right after its subscribe leaves nothing live", async () => {
    const { socket, send, listeners } = setUp();
    send({ op: "subscribe", account_id: A, id: 1 });
    send({ op: "unsubscribe", account_id: A, id: 2 });
    send({ op: "unsubscribe", account_id: A, id: 3 });
    await settle();
    expect(socket.sent.map((m) => [m.id, m.op, m.error])).toEqual([
      [1, "subscribed", undefined],
      [2, "unsubscribed", undefined],
      [3, "error", "not_found"],
    ]);
    expect(listeners.size).toBe(0);
  });

  it("answers rate_limited when the key's budget is spent, and pings without charging it", async () => {
    const { socket, send } = setUp({ charge: () => Promise.resolve(1_500) });
    send({ op: "subscribe", account_id: A, id: 1 });
    send({ op: "ping", id: 2 });
    await settle();
    expect(socket.sent).toEqual([
      { op: "error", id: 1, account_id: A, error: "rate_limited", retry_after_ms: 1_500 },
      { op: "pong", id: 2 },
    ]);
  });

  it("sends the latest ticker of each symbol asked for, then only their changes", async () => {
    const { socket, send, tickerListeners } = setUp();
    send({ op: "subscribe", channel: "tickers", symbols: ["btcusd"], id: "t" });
    await settle();
    for (const listener of tickerListeners) {
      listener(ticker("ETH-USD", 2));
      listener(ticker("BTC-USD", 3));
    }
    send({ op: "unsubscribe", channel: "tickers", symbols: ["BTC/USD"], id: "u" });
    await settle();
    for (const listener of tickerListeners) listener(ticker("BTC-USD", 4));
    expect(socket.sent.map((m) => m.op ?? (m.data as { mark_price: number }).mark_price)).toEqual([
      "subscribed",
      1,
      3,
      "unsubscribed",
    ]);
    expect(socket.sent[0]).toEqual({ op: "subscribed", id: "t", channel: "tickers", symbols: ["BTC-USD"] });
    expect(tickerListeners.size).toBe(0);
  });

  it("closes the socket 4008 once it holds more than the bound unsent, and leaves its feeds", async () => {
    const { socket, send, listeners } = setUp();
    send({ op: "subscribe", account_id: A });
    await settle();
    socket.bufferedAmount = 1_001;
    listeners.get(A)?.({
      id: "e1",
      type: "order.ack",
      created_at: "2026-11-27T00:00:00.000Z",
      account_id: A,
      sequence: 1,
      data_json: "{}",
    });
    expect(socket.closedWith).toBe(CLOSE.slowConsumer);
    expect(listeners.size).toBe(0);
  });
});
