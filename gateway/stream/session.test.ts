// One socket's operations (docs/streaming.md) on fake feeds: conflicts and limits answered as errors, tickers
// filtered to the subscribed symbols, every operation answered in the order sent (invalid ones too, while a
// subscribe waits on the engine), a slow consumer closed 4008.
import { describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import { ServiceError } from "../../kernel/errors.js";
import { createLogger } from "../../kernel/log.js";
import { canonicalSymbol } from "../../kernel/symbols.js";
import type { Ticker__Output } from "../../proto/gen/engine/v1/Ticker.js";
import type { WebhookEvent__Output } from "../../proto/gen/engine/v1/WebhookEvent.js";
import type { AccountFeeds, TickerFeed } from "./feeds.js";
import { CLOSE, MAX_QUEUED_OPS, StreamSession, type SessionDeps } from "./session.js";
import { FakeSocket, tradingDeps } from "./stream.testing.js";

const A = "0a0a0a0a-0000-4000-8000-000000000001";
const B = "0a0a0a0a-0000-4000-8000-000000000002";
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

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
    trading: tradingDeps(),
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
    // Operations on different accounts run side by side: their answers may come in either order.
    expect(socket.sent.sort((x, y) => Number(x.id) - Number(y.id))).toEqual([
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

/**
 * Feeds whose joins wait until the test opens the gate, as a subscribe waits on the engine's first answer; the
 * account `unknown` is refused `not_found` once the gate opens, as the engine refuses another user's account.
 */
function gatedFeeds(unknown: string) {
  const waiting: (() => void)[] = [];
  let open = false;
  const feeds = {
    join: async () => {
      if (!open) await new Promise<void>((resolve) => waiting.push(resolve));
      return { last: 0, leave: () => undefined };
    },
  } as unknown as AccountFeeds;
  const gated = {
    join: async (userId: string, accountId: string) => {
      const joined = await feeds.join(
        userId,
        accountId,
        () => undefined,
        () => undefined,
      );
      if (accountId === unknown) throw new ServiceError("not_found");
      return joined;
    },
  } as unknown as AccountFeeds;
  const openGate = (): void => {
    open = true;
    for (const resolve of waiting.splice(0)) resolve();
  };
  return { feeds: gated, openGate };
}

const SUBSCRIBE_A = { op: "subscribe", account_id: A };
const SUBSCRIBE_UNKNOWN = { op: "subscribe", account_id: B };
const NOT_JSON = "{nope";
const UNKNOWN_OP = { op: "dance" };
const BAD_ACCOUNT = { op: "subscribe", account_id: "nope" };
const PING = { op: "ping" };
const UNSUBSCRIBE_A = { op: "unsubscribe", account_id: A };

describe("StreamSession answers in the order sent", () => {
  // Each case: the operations, sent back to back without waiting, and the answer each one gets.
  it.each([
    [
      "a subscribe waiting on the engine, then bad JSON, an unknown op, a bad account id and a ping",
      [SUBSCRIBE_A, NOT_JSON, UNKNOWN_OP, BAD_ACCOUNT, PING],
      ["subscribed", "invalid_payload", "invalid_payload", "invalid_payload", "pong"],
    ],
    [
      "bad JSON first, then the subscribe, a second subscribe to the same account and an unknown op",
      [NOT_JSON, SUBSCRIBE_A, SUBSCRIBE_A, UNKNOWN_OP],
      ["invalid_payload", "subscribed", "conflict", "invalid_payload"],
    ],
    [
      "an unknown account and a valid subscribe, each followed by an invalid op, then an unsubscribe",
      [SUBSCRIBE_UNKNOWN, BAD_ACCOUNT, SUBSCRIBE_A, NOT_JSON, UNSUBSCRIBE_A, UNKNOWN_OP],
      ["not_found", "invalid_payload", "subscribed", "invalid_payload", "unsubscribed", "invalid_payload"],
    ],
  ] as const)("%s", async (_case, ops, answers) => {
    const { feeds, openGate } = gatedFeeds(B);
    const { socket, session } = setUp({ feeds, maxAccounts: 10 });
    ops.forEach((op, i) => {
      session.message(typeof op === "string" ? op : JSON.stringify({ ...op, id: i }));
    });
    await settle();
    openGate();
    await settle();
    expect(socket.sent.map((m) => m.error ?? m.op)).toEqual(answers);
    // The answers that could echo an id carry their own, in order.
    const echoed = socket.sent.filter((m) => m.id !== undefined).map((m) => m.id);
    expect(echoed).toEqual([...echoed].sort((x, y) => Number(x) - Number(y)));
  });

  it("answers an operation past the waiting bound rate_limited at once, before those waiting", async () => {
    const { feeds, openGate } = gatedFeeds(B);
    const { socket, send, session } = setUp({ feeds, maxBufferedBytes: 1_000_000 });
    send({ ...SUBSCRIBE_A, id: "first" });
    for (let i = 1; i < MAX_QUEUED_OPS; i++) send({ ...PING, id: i });
    send({ ...PING, id: "over" });
    session.message(NOT_JSON);
    send({ op: "order.cancel", id: "trade", args: {} });
    await settle();
    const refusal = { error: "rate_limited", reason: "too_many_pending_operations", queued: MAX_QUEUED_OPS };
    expect(socket.sent).toEqual([
      { op: "error", id: "over", ...refusal },
      { op: "error", ...refusal },
      { op: "order.cancel", id: "trade", status: 429, body: refusal },
    ]);
    openGate();
    await settle();
    expect(socket.sent).toHaveLength(MAX_QUEUED_OPS + 3);
    expect(socket.sent[3]).toMatchObject({ op: "subscribed", id: "first" });
    expect(socket.sent.slice(4).every((m, i) => m.op === "pong" && m.id === i + 1)).toBe(true);
    // Room again once they are answered.
    send({ ...PING, id: "again" });
    await settle();
    expect(socket.sent.at(-1)).toEqual({ op: "pong", id: "again" });
  });

  it("counts answers waiting their turn as unsent bytes: past the bound the socket closes 4008", async () => {
    const { feeds, openGate } = gatedFeeds(B);
    const { socket, send, session } = setUp({ feeds });
    send(SUBSCRIBE_A);
    for (let i = 0; i < 20 && socket.closedWith === undefined; i++) send({ op: "dance", id: "x".repeat(64) });
    expect(socket.closedWith).toBe(CLOSE.slowConsumer);
    openGate();
    await settle();
    expect(socket.sent).toEqual([]);
    // The answers that waited were dropped with the session: nothing is counted held any more.
    expect(session.buffered).toBe(0);
    session.message(NOT_JSON);
    expect(socket.sent).toEqual([]);
  });
});
