// The client's socket session (client/src/session.ts) against the real gateway, engine and wallet, on both
// databases: orders placed, canceled and replayed over `GET /v1/stream` (docs/streaming.md) with the results the
// REST methods give, the account's events on the same socket in sequence order as the catch-up list has them,
// and REST's error answers (another user's account, a key without TRADE) as the same `ApiError`s.
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import {
  ApiError,
  TradingClient,
  type PlaceOrderRequest,
  type TradingSession,
  type WebhookEnvelope,
} from "../../client/src/index.js";
import { BACKENDS, stackOn, type TestStack } from "../harness/backends.js";
import { newKey } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";

/** The next `count` events of a subscription. */
async function take(events: AsyncIterator<WebhookEnvelope>, count: number): Promise<WebhookEnvelope[]> {
  const taken: WebhookEnvelope[] = [];
  while (taken.length < count) {
    const next = await events.next();
    if (next.done === true) throw new Error(`the subscription ended after ${taken.length} event(s)`);
    taken.push(next.value);
  }
  return taken;
}

/**
 * A relay between the session and the gateway's stream that loses the answer to the first `order.place`: it
 * forwards the operation, waits for the gateway's answer (the order was placed), drops it and cuts the client's
 * socket. Every later socket is relayed faithfully. `placed` lists the `client_id` of each `order.place` relayed.
 */
async function lossyRelay(upstream: string): Promise<{ url: string; placed: unknown[]; close: () => Promise<void> }> {
  const placed: unknown[] = [];
  let lost = false;
  const wss = new WebSocketServer({ noServer: true });
  const http = createServer();
  http.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const headers = {
      "x-api-key": String(request.headers["x-api-key"]),
      "x-api-secret": String(request.headers["x-api-secret"]),
    };
    const gateway = new WebSocket(`${upstream.replace(/^http/, "ws")}/v1/stream`, { headers });
    gateway.once("open", () => {
      wss.handleUpgrade(request, socket, head, (client) => {
        let dropId: unknown;
        client.on("message", (data: Buffer) => {
          const message = JSON.parse(data.toString("utf8")) as Record<string, unknown>;
          if (message.op === "order.place") {
            placed.push((message.args as Record<string, unknown>).client_id);
            if (!lost) {
              lost = true;
              dropId = message.id;
            }
          }
          gateway.send(data.toString("utf8"));
        });
        gateway.on("message", (data: Buffer) => {
          const message = JSON.parse(data.toString("utf8")) as Record<string, unknown>;
          if (dropId !== undefined && message.op === "order.place" && message.id === dropId) client.terminate();
          else if (client.readyState === WebSocket.OPEN) client.send(data.toString("utf8"));
        });
        client.on("close", () => {
          gateway.close();
        });
        gateway.on("close", () => {
          client.terminate();
        });
      });
    });
    gateway.on("error", () => socket.destroy());
  });
  http.listen(0, "127.0.0.1");
  await once(http, "listening");
  const address = http.address();
  return {
    url: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`,
    placed,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

describe.each(BACKENDS)("client socket session on %s", (backend) => {
  let stack: TestStack;
  let market: Market;
  let base: string;
  let api: string;
  const sessions: TradingSession[] = [];

  const clientFor = async (user: string, permissions: string[]): Promise<TradingClient> => {
    const key = await newKey(api, user, { label: "session", permissions });
    return new TradingClient({ baseUrl: base, apiKey: key.key, apiSecret: key.secret });
  };
  const connect = async (client: TradingClient): Promise<TradingSession> => {
    const session = await client.connect();
    sessions.push(session);
    return session;
  };

  beforeAll(async () => {
    stack = await stackOn(backend, { env: { PRICE_FEED: "push" }, gatewayEnv: { RATE_LIMIT_MAX: "100000" } });
    market = marketClient(stack.engineGrpc);
    await market.push({ "BTC-USD": 50_000 });
    base = stack.gateways[0]?.v1 ?? "";
    api = stack.gateways[0]?.api ?? "";
  });
  afterAll(async () => {
    for (const session of sessions) await session.close();
    market?.close();
    await stack.stop();
  });

  it("places a LIMIT, cancels it, places a MARKET, and reads their events on the same socket", async () => {
    const client = await clientFor("session-trader", ["READ_ONLY", "TRADE", "MANAGE_ORDERS"]);
    const accountId = (await client.openAccount({ plan_id: PLAN_10K })).account_id;
    const session = await connect(client);
    const events = await session.subscribe(accountId, { after: 0 });
    const order = (o: Partial<PlaceOrderRequest>): PlaceOrderRequest => ({
      account_id: accountId,
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      ...o,
    });

    const limit = await session.placeOrder(order({ limit_price: "40000" }));
    expect([limit.kind, limit.replayed, limit.response.order.status]).toEqual(["accepted", false, "NEW"]);
    const canceled = await session.cancelOrder(limit.response.order.order_id);
    expect([canceled.order_id, canceled.status]).toEqual([limit.response.order.order_id, "CANCELED"]);
    const bought = await session.placeOrder(order({ kind: "MARKET" }));
    expect([bought.kind, bought.response.order.status, bought.response.order.filled_quantity]).toEqual([
      "accepted",
      "FILLED",
      0.01,
    ]);

    const seen = await take(events, 4);
    expect(seen.map((e) => [e.type, e.sequence])).toEqual([
      ["order.ack", 1],
      ["order.cancel", 2],
      ["order.ack", 3],
      ["order.fill", 4],
    ]);
    const journal: WebhookEnvelope[] = [];
    for await (const event of client.allEvents(accountId)) journal.push(event);
    expect(seen.map((e) => JSON.stringify(e))).toEqual(journal.map((e) => JSON.stringify(e)));

    // The same client_id again is the original answer, replayed: one order, one position of 0.01.
    const again = await session.placeOrder(order({ kind: "MARKET", client_id: bought.clientId }));
    expect([again.kind, again.replayed, again.response.order.order_id]).toEqual([
      "accepted",
      true,
      bought.response.order.order_id,
    ]);
    expect((await client.positions(accountId)).map((p) => p.quantity)).toEqual([0.01]);
    expect((await session.testOrder(order({ limit_price: "40000" }))).kind).toBe("accepted");
    const flat = await session.flatten(accountId);
    expect([flat.closes.length, flat.positions]).toEqual([1, []]);
  });

  it("sends a placement whose answer was lost again on a new socket with its client_id: one order, replayed", async () => {
    const key = await newKey(api, "session-lossy", { label: "session", permissions: ["READ_ONLY", "TRADE"] });
    const rest = new TradingClient({ baseUrl: base, apiKey: key.key, apiSecret: key.secret });
    const accountId = (await rest.openAccount({ plan_id: PLAN_10K })).account_id;
    const relay = await lossyRelay(base);
    try {
      // The relay serves the stream only; REST goes to the gateway (`rest`).
      const client = new TradingClient({
        baseUrl: relay.url,
        apiKey: key.key,
        apiSecret: key.secret,
        sleep: () => Promise.resolve(),
      });
      const session = await connect(client);
      const events = await session.subscribe(accountId, { after: 0 });
      const placed = await session.placeOrder({
        account_id: accountId,
        symbol: "BTC-USD",
        side: "BUY",
        kind: "MARKET",
        quantity: "0.01",
      });
      expect([placed.kind, placed.replayed, placed.attempts]).toEqual(["accepted", true, 2]);
      expect(relay.placed).toEqual([placed.clientId, placed.clientId]);
      expect((await rest.positions(accountId)).map((p) => p.quantity)).toEqual([0.01]);
      // The subscription resumed on the new socket: the order's ack and fill, once each.
      expect((await take(events, 2)).map((e) => [e.type, e.sequence])).toEqual([
        ["order.ack", 1],
        ["order.fill", 2],
      ]);
      await session.close();
    } finally {
      await relay.close();
    }
  });

  it("answers the bulk operations as REST does", async () => {
    const client = await clientFor("session-bulk", ["READ_ONLY", "TRADE", "MANAGE_ORDERS"]);
    const accountId = (await client.openAccount({ plan_id: PLAN_10K })).account_id;
    const session = await connect(client);
    const rest = { account_id: accountId, symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01" } as const;
    const batch = await session.placeOrders([
      { ...rest, limit_price: "40000" },
      { ...rest, limit_price: "39000" },
    ]);
    expect(batch.data.map((d) => [d.status, d.replayed])).toEqual([
      [201, false],
      [201, false],
    ]);
    const replayed = await session.placeOrders([{ ...rest, limit_price: "40000", client_id: batch.clientIds[0] }]);
    expect(replayed.data.map((d) => [d.status, d.replayed])).toEqual([[200, true]]);
    expect((await session.setCancelAfter(accountId, 60_000)).account_id).toBe(accountId);
    const canceled = await session.cancelAllOrders(accountId, "BTC-USD");
    expect(canceled).toHaveLength(2);
    expect(await client.workingOrders(accountId)).toEqual([]);
  });

  it("throws REST's ApiErrors: another user's account is not_found, a key without TRADE is refused with its scope", async () => {
    const client = await clientFor("session-errors", ["READ_ONLY", "TRADE"]);
    const other = await clientFor("session-other", ["READ_ONLY", "TRADE"]);
    const theirs = (await other.openAccount({ plan_id: PLAN_10K })).account_id;
    const session = await connect(client);
    const notFound = await session
      .placeOrder({ account_id: theirs, symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" })
      .catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(ApiError);
    expect(notFound).toMatchObject({ status: 404, code: "not_found", attempts: 1 });

    // A READ_ONLY key of the same user, on the user's own account.
    const reader = await clientFor("session-errors", ["READ_ONLY"]);
    const readerAccount = (await client.openAccount({ plan_id: PLAN_10K })).account_id;
    const denied = await (
      await connect(reader)
    )
      .placeOrder({ account_id: readerAccount, symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" })
      .catch((e: unknown) => e);
    expect(denied).toMatchObject({ status: 403, code: "permission_denied", requiredScope: "TRADE" });
  });
});
