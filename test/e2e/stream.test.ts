// GET /v1/stream end to end (docs/streaming.md): the real gateway, engine and wallet, prices pushed over market.v1.
// Every account message must be the webhook envelope the catch-up list (GET /v1/account/:id/events) gives for the
// same sequence, byte for byte once serialised, in sequence order, with nothing lost or repeated across
// reconnects. On both database backends: the embedded one is what `npm start` runs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TradingClient } from "../../client/src/index.js";
import { BACKENDS, stackOn, type TestStack } from "../harness/backends.js";
import { accountEvents, newKey, revoke, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { eventually } from "../harness/eventually.js";
import { marketClient, type Market } from "../harness/market.js";
import { StreamClient, type Message, type RefusedUpgrade } from "../harness/stream.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
const MAX_SOCKETS = 4;
const MAX_BUFFERED = 64 * 1024;

type Row = Record<string, unknown>;

describe.each(BACKENDS)("live stream on %s", (backend) => {
  let stack: TestStack;
  let market: Market;
  let base: string;
  let api: string;
  let trader: CreatedKey;
  const sockets: StreamClient[] = [];

  const call = (key: CreatedKey, path: string, method = "GET", body?: unknown): Promise<JsonResponse> =>
    v1(base, path, key, {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
  const openAccount = async (key = trader): Promise<string> => {
    const created = await call(key, "/v1/account", "POST", { plan_id: PLAN_10K });
    expect(created.status).toBe(201);
    return String(created.body.account_id);
  };
  const place = async (accountId: string, order: Row): Promise<Row> => {
    const placed = await call(trader, "/v1/order", "POST", { account_id: accountId, ...order });
    expect([200, 201]).toContain(placed.status);
    return placed.body.order as Row;
  };
  /** Every envelope of the account, as the catch-up list gives them. */
  const journal = (accountId: string): Promise<Message[]> => accountEvents((path) => call(trader, path), accountId);
  const open = async (key = trader): Promise<StreamClient> => {
    const socket = await StreamClient.open(base, key);
    sockets.push(socket);
    return socket;
  };
  const subscribed = (accountId: string) => (m: Message) => m.op === "subscribed" && m.account_id === accountId;
  /** `count` limit orders far below the market, each cancelled: 2 × count events. */
  const burst = async (accountId: string, count: number): Promise<void> => {
    await Promise.all(
      Array.from({ length: count }, async () => {
        const order = await place(accountId, {
          symbol: "BTC-USD",
          side: "BUY",
          kind: "LIMIT",
          quantity: 0.001,
          limit_price: 1000,
        });
        const canceled = await call(trader, `/v1/order/${String(order.order_id)}`, "DELETE");
        expect(canceled.status).toBe(200);
      }),
    );
  };

  beforeAll(async () => {
    stack = await stackOn(backend, {
      env: { PRICE_FEED: "push" },
      gatewayEnv: {
        RATE_LIMIT_MAX: "100000",
        STREAM_MAX_SOCKETS_PER_KEY: String(MAX_SOCKETS),
        STREAM_MAX_BUFFERED_BYTES: String(MAX_BUFFERED),
        STREAM_REVALIDATE_MS: "200",
        // Short, so a socket that answers no ping is cut within the test (live clients answer them).
        STREAM_PING_INTERVAL_MS: "300",
      },
    });
    market = marketClient(stack.engineGrpc);
    await market.push({ "SOL-USD": 100, "BTC-USD": 100_000 });
    base = stack.gateways[0]?.v1 ?? "";
    api = stack.gateways[0]?.api ?? "";
    trader = await newKey(api, "stream-trader", { label: "bot", permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"] });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    market?.close();
    await stack.stop();
  });

  it("delivers ack, fill, cancel and position close of a scripted flow in sequence order, as the journal has them", async () => {
    const accountId = await openAccount();
    const socket = await open();
    socket.send({ op: "subscribe", account_id: accountId, after: 0, id: 1 });
    expect(await socket.next(subscribed(accountId), "ack")).toEqual({
      op: "subscribed",
      id: 1,
      account_id: accountId,
      after: 0,
    });

    await place(accountId, { symbol: "SOL-USD", side: "BUY", kind: "LIMIT", quantity: 10, limit_price: 99 });
    await market.push({ "SOL-USD": 99 });
    const resting = await place(accountId, {
      symbol: "SOL-USD",
      side: "SELL",
      kind: "LIMIT",
      quantity: 10,
      limit_price: 120,
    });
    expect((await call(trader, `/v1/order/${String(resting.order_id)}`, "DELETE")).status).toBe(200);
    await place(accountId, { symbol: "SOL-USD", side: "SELL", kind: "MARKET", quantity: 10, reduce_only: true });

    await socket.until((m) => m.filter((x) => x.type === "position.close").length === 1, "the position close");
    const events = socket.events(accountId);
    expect(events.map((e) => e.type)).toEqual([
      "order.ack",
      "order.fill",
      "order.ack",
      "order.cancel",
      "order.ack",
      "order.fill",
      "position.close",
    ]);
    expect(events.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // Exactly the webhook envelopes (same key order too), with the socket's key as api_key_id.
    const j = await journal(accountId);
    expect(events.map((e) => JSON.stringify(e))).toEqual(j.map((e) => JSON.stringify(e)));
    expect(events[0]?.api_key_id).toBe(trader.id);
  });

  it("resumes with `after` in the middle of a burst: the second socket gets exactly the rest", async () => {
    const accountId = await openAccount();
    const first = await open();
    first.send({ op: "subscribe", account_id: accountId, after: 0 });
    await first.next(subscribed(accountId), "ack");
    const running = burst(accountId, 40);
    await first.until(
      (m) => m.filter((x) => x.account_id === accountId && typeof x.sequence === "number").length >= 15,
      "15 events",
    );
    first.close();
    await first.closed;
    const seen = first.events(accountId);
    const last = Number(seen.at(-1)?.sequence);
    const second = await open();
    second.send({ op: "subscribe", account_id: accountId, after: last });
    await running;
    await second.until((m) => m.filter((x) => typeof x.sequence === "number").length >= 80 - last, "the rest");
    const all = [...seen, ...second.events(accountId)];
    expect(all.map((e) => e.sequence)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
    expect(all.map((e) => JSON.stringify(e))).toEqual((await journal(accountId)).map((e) => JSON.stringify(e)));
  });

  it("gives two sockets on one account the same sequence, live and without `after`", async () => {
    const accountId = await openAccount();
    const a = await open();
    const b = await open();
    a.send({ op: "subscribe", account_id: accountId });
    b.send({ op: "subscribe", account_id: accountId });
    expect(await a.next(subscribed(accountId), "ack a")).toMatchObject({ after: 0 });
    expect(await b.next(subscribed(accountId), "ack b")).toMatchObject({ after: 0 });
    await burst(accountId, 10);
    await a.until((m) => m.filter((x) => typeof x.sequence === "number").length >= 20, "a's events");
    await b.until((m) => m.filter((x) => typeof x.sequence === "number").length >= 20, "b's events");
    expect(a.events(accountId).map((e) => JSON.stringify(e))).toEqual(
      b.events(accountId).map((e) => JSON.stringify(e)),
    );
    expect(a.events(accountId).map((e) => e.sequence)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    a.close();
    b.close();
  });

  it("refuses another user's account, an unknown one, a bad id and an unknown op with an error message; the socket stays", async () => {
    const other = await newKey(api, "stream-other", { label: "x", permissions: ["READ_ONLY", "TRADE"] });
    const theirs = await openAccount(other);
    const socket = await open();
    socket.send({ op: "subscribe", account_id: theirs, id: "a" });
    socket.send({ op: "subscribe", account_id: "0a0a0a0a-0000-4000-8000-00000000dead", id: "b" });
    socket.send({ op: "subscribe", account_id: "nope", id: "c" });
    socket.send({ op: "dance", id: "d" });
    socket.send({ op: "ping", id: "e" });
    await socket.until((m) => m.length >= 5, "five answers");
    const byId = Object.fromEntries(socket.messages.map((m) => [String(m.id), m]));
    expect(byId.a).toEqual({ op: "error", id: "a", account_id: theirs, error: "not_found" });
    expect(byId.b).toEqual({
      op: "error",
      id: "b",
      account_id: "0a0a0a0a-0000-4000-8000-00000000dead",
      error: "not_found",
    });
    expect(socket.messages).toHaveLength(5);
    expect(byId.c).toMatchObject({ op: "error", id: "c", error: "invalid_payload", issues: [{ path: "account_id" }] });
    expect(byId.d).toMatchObject({ op: "error", id: "d", error: "invalid_payload", issues: [{ path: "op" }] });
    expect(byId.e).toEqual({ op: "pong", id: "e" });
    // Still open: a subscription to an own account works on the same socket.
    const mine = await openAccount();
    socket.send({ op: "subscribe", account_id: mine, id: "f" });
    expect(await socket.next((m) => m.id === "f", "f")).toMatchObject({ op: "subscribed", account_id: mine });
    socket.close();
  });

  it("answers every operation in the order sent, invalid ones included, while a subscribe waits on the engine", async () => {
    const other = await newKey(api, "stream-order", { label: "x", permissions: ["TRADE"] });
    const theirs = await openAccount(other);
    const [first, second, third] = [await openAccount(), await openAccount(), await openAccount()];
    // Each round: messages sent back to back without waiting (text as is, objects with their index as `id`),
    // and the answer each one gets: its `error`, else its `op`.
    const rounds: [messages: (string | Row)[], answers: string[]][] = [
      [
        [{ op: "subscribe", account_id: first }, "{nope", { op: "dance" }, { op: "subscribe", account_id: "x" }],
        ["subscribed", "invalid_payload", "invalid_payload", "invalid_payload"],
      ],
      [
        [
          { op: "subscribe", account_id: theirs },
          { op: "subscribe", account_id: second, after: -1 },
          { op: "subscribe", account_id: second },
          { op: "subscribe", channel: "tickers", symbols: "BTC-USD" },
          { op: "unsubscribe", account_id: second },
          { op: "ping" },
        ],
        ["not_found", "invalid_payload", "subscribed", "invalid_payload", "unsubscribed", "pong"],
      ],
      [
        ["[]", { op: "subscribe", account_id: third, after: 0 }, { op: "subscribe", account_id: third }, { op: "x" }],
        ["invalid_payload", "subscribed", "conflict", "invalid_payload"],
      ],
    ];
    const socket = await open();
    for (const [messages, answers] of rounds) {
      const from = socket.messages.length;
      const answered = (): Message[] => socket.messages.slice(from).filter((m) => m.op !== undefined);
      messages.forEach((message, id) => {
        socket.ws.send(typeof message === "string" ? message : JSON.stringify({ ...message, id }));
      });
      await socket.until(() => answered().length >= answers.length, "every answer");
      expect(answered().map((m) => [m.id ?? null, m.error ?? m.op])).toEqual(
        answers.map((answer, i) => [typeof messages[i] === "string" ? null : i, answer]),
      );
    }
    socket.close();
  });

  it("reads tickers symbols in the spellings REST accepts: BTC/USD is BTC-USD, a bare base is unknown", async () => {
    const socket = await open();
    socket.send({ op: "subscribe", channel: "tickers", symbols: ["BTC/USD", "sol_usd"], id: "spelled" });
    expect(await socket.next((m) => m.id === "spelled", "spelled")).toEqual({
      op: "subscribed",
      id: "spelled",
      channel: "tickers",
      symbols: ["BTC-USD", "SOL-USD"],
    });
    socket.send({ op: "subscribe", channel: "tickers", symbols: ["btc"], id: "bare" });
    expect(await socket.next((m) => m.id === "bare", "bare")).toEqual({
      op: "error",
      id: "bare",
      channel: "tickers",
      error: "invalid_payload",
      issues: [{ path: "symbols.0", message: "unknown symbol" }],
    });
    socket.close();
  });

  it("refuses an upgrade without valid credentials (401) and past the per-key cap (409 stream_limit_reached)", async () => {
    const capped = await newKey(api, "stream-capped", { label: "cap", permissions: ["READ_ONLY"] });
    await expect(StreamClient.open(base, { key: capped.key, secret: "wrong" })).rejects.toMatchObject({ status: 401 });
    const held = await Promise.allSettled(Array.from({ length: MAX_SOCKETS + 2 }, () => open(capped)));
    const refused = held
      .filter((r): r is PromiseRejectedResult => r.status === "rejected")
      .map((r) => r.reason as RefusedUpgrade);
    expect(held.filter((r) => r.status === "fulfilled")).toHaveLength(MAX_SOCKETS);
    expect(refused.map((r) => [r.status, r.body])).toEqual([
      [409, { error: "stream_limit_reached", limit: MAX_SOCKETS }],
      [409, { error: "stream_limit_reached", limit: MAX_SOCKETS }],
    ]);
    // A socket closed frees its slot.
    const first = (held[0] as PromiseFulfilledResult<StreamClient>).value;
    first.close();
    await first.closed;
    await eventually(async () => {
      const again = await StreamClient.open(base, capped).catch(() => undefined);
      if (again !== undefined) sockets.push(again);
      return again !== undefined;
    }, "a free slot");
  });

  it("cuts a socket that answers no ping", async () => {
    const silent = await newKey(api, "stream-silent", { label: "s", permissions: ["READ_ONLY"] });
    const socket = await open(silent);
    // A paused client reads nothing, so it answers no ping.
    socket.ws.pause();
    const closedLine = (line: string): boolean => line.includes("stream closed") && line.includes(silent.id);
    await eventually(() => Promise.resolve(stack.output().split("\n").some(closedLine)), "the cut");
    // A client that reads stays: the first socket of the file still answers.
    const alive = await open();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    alive.send({ op: "ping", id: "still" });
    expect(await alive.next((m) => m.id === "still", "pong")).toEqual({ op: "pong", id: "still" });
  });

  it("opens the same socket through the typed client's stream()", async () => {
    const accountId = await openAccount();
    const client = new TradingClient({ baseUrl: base, apiKey: trader.key, apiSecret: trader.secret });
    const ws = client.stream();
    const first = new Promise<Message>((resolve, reject) => {
      ws.once("message", (data: Buffer) => {
        resolve(JSON.parse(data.toString("utf8")) as Message);
      });
      ws.once("error", reject);
    });
    ws.once("open", () => {
      ws.send(JSON.stringify({ op: "subscribe", account_id: accountId, id: "c" }));
    });
    expect(await first).toEqual({ op: "subscribed", id: "c", account_id: accountId, after: 0 });
    ws.close();
  });

  it("keeps the socket of a key that expires in 40 days (further than one timer can wait) open", async () => {
    const expiresAt = new Date(Date.now() + 40 * 24 * 3_600_000).toISOString();
    const lasting = await newKey(api, "stream-lasting", { label: "l", permissions: ["READ_ONLY"], expiresAt });
    const socket = await open(lasting);
    // Past several revalidations and pings.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    socket.send({ op: "ping", id: "later" });
    expect(await socket.next((m) => m.id === "later", "pong")).toEqual({ op: "pong", id: "later" });
  });

  it("closes a revoked key's sockets with 4001", async () => {
    const doomed = await newKey(api, "stream-doomed", { label: "d", permissions: ["READ_ONLY"] });
    const socket = await open(doomed);
    expect((await revoke(api, "stream-doomed", doomed.id)).status).toBe(200);
    expect(await socket.closed).toMatchObject({ code: 4001 });
  });

  it("cuts a consumer that never reads once its unsent bytes pass the bound; the gateway holds no more", async () => {
    const socket = await open();
    socket.send({ op: "subscribe", channel: "tickers" });
    await socket.next((m) => m.channel === "tickers" && m.type === "ticker", "a ticker");
    socket.ws.pause();
    // Each subscribe to every ticker sends each one's latest again; more go out until the cut, so the unsent
    // bytes pass the bound however much the kernel's buffers take and however slowly the gateway gets to them.
    await eventually(() => {
      for (let i = 0; i < 300; i++) socket.send({ op: "subscribe", channel: "tickers" });
      return Promise.resolve(stack.output().includes("stream consumer too slow"));
    }, "the cut");
    const metrics = async (): Promise<string> => (await fetch(`${api}/metrics`)).text();
    await eventually(async () => /gateway_stream_buffered_bytes\{[^}]*\} 0\b/.test(await metrics()), "no bytes held");
    socket.ws.resume();
    expect([4008, 1006]).toContain((await socket.closed).code);
  });

  // Last: it restarts the engine.
  it("survives a kill -9 of the engine: the socket stays and the events continue with no gap and no repeat", async () => {
    const accountId = await openAccount();
    const socket = await open();
    socket.send({ op: "subscribe", account_id: accountId, after: 0 });
    await socket.next(subscribed(accountId), "ack");
    await burst(accountId, 5);
    await socket.until((m) => m.filter((x) => typeof x.sequence === "number").length >= 10, "10 events");
    await stack.restartEngine();
    await eventually(async () => {
      const placed = await call(trader, "/v1/order", "POST", {
        account_id: accountId,
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: 0.001,
        limit_price: 1000,
      });
      return placed.status === 201;
    }, "an order after the restart");
    await burst(accountId, 5);
    const total = (await journal(accountId)).length;
    await socket.until((m) => m.filter((x) => typeof x.sequence === "number").length >= total, "every event");
    expect(socket.events(accountId).map((e) => e.sequence)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(socket.events(accountId).map((e) => JSON.stringify(e))).toEqual(
      (await journal(accountId)).map((e) => JSON.stringify(e)),
    );
  });
});
