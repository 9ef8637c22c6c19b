// Order entry on GET /v1/stream end to end (docs/streaming.md, "Order entry"): every trading operation answers
// with the status and body its REST route gives for the same input and state, under the same scopes, validation,
// rate limit and idempotency; operations on one account are decided in the order sent, even 200 of them sent
// without waiting; an order's events follow its answer. On both database backends.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, stackOn, type TestStack } from "../harness/backends.js";
import { accountEvents, newKey, revoke, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";
import { StreamClient, type Message } from "../harness/stream.js";
import { MAX_QUEUED_OPS } from "../../gateway/stream/session.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
const RATE_LIMIT = 300;
const UNKNOWN = "0a0a0a0a-0000-4000-8000-00000000abcd";
const RESTING = { symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "1000" };

type Row = Record<string, unknown>;

describe.each(BACKENDS)("order entry on the stream on %s", (backend) => {
  let stack: TestStack;
  let market: Market;
  let base: string;
  let api: string;
  let trader: CreatedKey;
  const sockets: StreamClient[] = [];
  let nextId = 0;

  const rest = (key: CreatedKey, path: string, method = "GET", body?: unknown): Promise<JsonResponse> =>
    v1(base, path, key, {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
  const openAccount = async (key = trader): Promise<string> => {
    const created = await rest(key, "/v1/account", "POST", { plan_id: PLAN_10K });
    expect(created.status).toBe(201);
    return String(created.body.account_id);
  };
  const open = async (key = trader): Promise<StreamClient> => {
    const socket = await StreamClient.open(base, key);
    sockets.push(socket);
    return socket;
  };
  /** Sends one operation; resolves to its answer. */
  const ask = async (socket: StreamClient, op: string, args: unknown): Promise<Message> => {
    const id = ++nextId;
    socket.send({ op, id, args });
    return socket.next((m) => m.id === id && m.op === op, `the answer to ${op} #${id}`);
  };
  /** The stream's answer as REST's status and body. */
  const asRest = (answer: Message | JsonResponse) => ({ status: answer.status, body: answer.body });

  beforeAll(async () => {
    stack = await stackOn(backend, {
      env: { PRICE_FEED: "push" },
      gatewayEnv: { RATE_LIMIT_MAX: String(RATE_LIMIT), STREAM_REVALIDATE_MS: "200" },
    });
    market = marketClient(stack.engineGrpc);
    await market.push({ "BTC-USD": 100_000, "SOL-USD": 100 });
    base = stack.gateways[0]?.v1 ?? "";
    api = stack.gateways[0]?.api ?? "";
    trader = await newKey(api, "stream-orders", { label: "bot", permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"] });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    market?.close();
    await stack?.stop();
  });

  it("places, replays, amends, cancels and reads back as REST does", async () => {
    const accountId = await openAccount();
    const socket = await open();
    const placed = await ask(socket, "order.place", { account_id: accountId, ...RESTING, client_id: "s-1" });
    expect(placed).toMatchObject({ op: "order.place", status: 201 });
    expect(placed.replayed).toBeUndefined();
    const order = (placed.body as Row).order as Row;
    const viaRest = await rest(trader, `/v1/order/${String(order.order_id)}`);
    expect((placed.body as Row).order).toEqual(viaRest.body.order);
    // The same client_id again: REST's 200 with Idempotent-Replayed, and the same order.
    const again = await ask(socket, "order.place", { account_id: accountId, ...RESTING, client_id: "s-1" });
    const restAgain = await rest(trader, "/v1/order", "POST", { account_id: accountId, ...RESTING, client_id: "s-1" });
    expect(restAgain.status).toBe(200);
    expect(restAgain.headers.get("idempotent-replayed")).toBe("true");
    expect(again).toMatchObject({ status: 200, replayed: true });
    expect(((again.body as Row).order as Row).order_id).toBe(order.order_id);
    expect(again.body).toEqual(restAgain.body);

    const amended = await ask(socket, "order.amend", { order_id: order.order_id, limit_price: "1001" });
    expect(amended.status).toBe(200);
    expect(amended.body).toEqual({ order: (await rest(trader, `/v1/order/${String(order.order_id)}`)).body.order });
    const canceled = await ask(socket, "order.cancel", { order_id: order.order_id });
    expect(canceled.status).toBe(200);
    expect(((canceled.body as Row).order as Row).status).toBe("CANCELED");
    // Canceled twice: the REST error, status and body.
    const twice = await ask(socket, "order.cancel", { order_id: order.order_id });
    expect(asRest(twice)).toEqual(await rest(trader, `/v1/order/${String(order.order_id)}`, "DELETE").then(asRest));
  });

  it("tests, closes, batches, cancels all, flattens and arms cancel-after with REST's answers", async () => {
    const [viaStream, viaRest] = [await openAccount(), await openAccount()];
    const socket = await open();
    const market_buy = { symbol: "SOL-USD", side: "BUY", kind: "MARKET", quantity: "2" };
    const tested = await ask(socket, "order.test", { account_id: viaStream, ...market_buy });
    expect(asRest(tested)).toEqual(
      await rest(trader, "/v1/order/test", "POST", { account_id: viaRest, ...market_buy }).then(asRest),
    );
    const filled = await ask(socket, "order.place", { account_id: viaStream, ...market_buy });
    expect(filled.status).toBe(201);
    expect(((filled.body as Row).fills as Row[]).length).toBeGreaterThan(0);
    const batch = await ask(socket, "orders.batch", {
      orders: [
        { account_id: viaStream, ...RESTING },
        { account_id: viaStream, ...RESTING, quantity: "-1" },
      ],
    });
    expect(batch.status).toBe(200);
    const items = (batch.body as Row).data as Row[];
    expect(items.map((item) => item.status)).toEqual([201, 400]);
    const batchRest = await rest(trader, "/v1/orders/batch", "POST", {
      orders: [{ account_id: viaRest, ...RESTING, quantity: "-1" }],
    });
    expect(items[1]).toEqual((batchRest.body.data as Row[])[0]);

    const all = await ask(socket, "orders.cancel_all", { account_id: viaStream, symbol: "BTC-USD" });
    expect(all.status).toBe(200);
    expect(((all.body as Row).data as Row[]).map((o) => o.status)).toEqual(["CANCELED"]);
    const armed = await ask(socket, "cancel_after.set", { account_id: viaStream, timeout_ms: 60_000 });
    expect(armed).toMatchObject({ status: 200, body: { account_id: viaStream, armed: true, timeout_ms: 60_000 } });
    const disarmed = await ask(socket, "cancel_after.set", { account_id: viaStream, timeout_ms: 0 });
    expect(disarmed.body).toEqual((await rest(trader, `/v1/account/${viaStream}/cancel-after`)).body);
    const closed = await ask(socket, "position.close", { account_id: viaStream, symbol: "SOL-USD", quantity: "1" });
    expect(closed.status).toBe(201);
    const flat = await ask(socket, "account.flatten", { account_id: viaStream });
    expect(flat.status).toBe(200);
    expect((flat.body as Row).positions).toEqual([]);
    expect((await rest(trader, `/v1/account/${viaStream}/positions`)).body.data).toEqual([]);
  });

  it("refuses as REST refuses: another user's account, bad input, a READ_ONLY key", async () => {
    const accountId = await openAccount();
    const socket = await open();
    const stranger = await newKey(api, "stream-orders-stranger", {
      label: "bot",
      permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
    });
    const theirs = await open(stranger);
    const cases: [string, unknown, string, string, unknown?][] = [
      [
        "order.place",
        { account_id: accountId, ...RESTING },
        "/v1/order",
        "POST",
        { account_id: accountId, ...RESTING },
      ],
      ["orders.cancel_all", { account_id: accountId }, `/v1/account/${accountId}/orders`, "DELETE"],
      ["account.flatten", { account_id: accountId }, `/v1/account/${accountId}/flatten`, "POST"],
      ["order.cancel", { order_id: UNKNOWN }, `/v1/order/${UNKNOWN}`, "DELETE"],
    ];
    for (const [op, args, path, method, body] of cases) {
      const answer = await ask(theirs, op, args);
      expect(answer.status, op).toBe(404);
      expect(asRest(answer), op).toEqual(await rest(stranger, path, method, body).then(asRest));
    }
    const bad = { account_id: accountId, symbol: "BTC-USD", side: "SIDEWAYS", kind: "LIMIT", quantity: "x", extra: 1 };
    const invalid = await ask(socket, "order.place", bad);
    expect(invalid.status).toBe(400);
    expect(asRest(invalid)).toEqual(await rest(trader, "/v1/order", "POST", bad).then(asRest));
    const notUuid = await ask(socket, "order.cancel", { order_id: "nope" });
    expect(asRest(notUuid)).toEqual(await rest(trader, "/v1/order/nope", "DELETE").then(asRest));
    const amendNothing = await ask(socket, "order.amend", { order_id: UNKNOWN });
    expect(asRest(amendNothing)).toEqual(await rest(trader, `/v1/order/${UNKNOWN}`, "PATCH", {}).then(asRest));

    const reader = await newKey(api, "stream-orders", { label: "bot", permissions: ["READ_ONLY"] });
    const readOnly = await open(reader);
    for (const [op, args] of [
      ["order.place", { account_id: accountId, ...RESTING }],
      ["order.cancel", { order_id: UNKNOWN }],
    ] as const) {
      const refused = await ask(readOnly, op, args);
      expect(refused.status).toBe(403);
      const restPath = op === "order.place" ? "/v1/order" : `/v1/order/${UNKNOWN}`;
      const restMethod = op === "order.place" ? "POST" : "DELETE";
      expect(asRest(refused)).toEqual(
        await rest(reader, restPath, restMethod, op === "order.place" ? args : undefined).then(asRest),
      );
    }
  });

  it("decides 200 pipelined operations on one account in the order sent, and each order's events follow its answer", async () => {
    const [first, second] = [await openAccount(), await openAccount()];
    const socket = await open();
    socket.send({ op: "subscribe", account_id: first, after: 0, id: "sub" });
    await socket.next((m) => m.op === "subscribed", "the subscription");
    const placed = await ask(socket, "order.place", { account_id: first, ...RESTING });
    const orderId = String(((placed.body as Row).order as Row).order_id);
    // 100 amends of one order (each a new limit price) interleaved with 100 orders on another account.
    const sent: number[] = [];
    for (let i = 1; i <= 100; i++) {
      const id = ++nextId;
      sent.push(id);
      socket.send({ op: "order.amend", id, args: { order_id: orderId, limit_price: String(1000 + i) } });
      socket.send({ op: "order.place", id: ++nextId, args: { account_id: second, ...RESTING, client_id: `p-${i}` } });
    }
    await socket.until(
      (m) => m.filter((x) => x.op === "order.amend" && sent.includes(Number(x.id))).length === 100,
      "100 amends",
    );
    await socket.until((m) => m.filter((x) => x.op === "order.place" && x.status === 201).length === 101, "100 orders");
    const amends = socket.messages.filter((m) => m.op === "order.amend" && sent.includes(Number(m.id)));
    expect(amends.map((m) => m.status)).toEqual(Array(100).fill(200));
    // Answers of one account leave in the order sent, each seeing the one before it.
    expect(amends.map((m) => m.id)).toEqual(sent);
    expect(amends.map((m) => Number(((m.body as Row).order as Row).limit_price))).toEqual(
      Array.from({ length: 100 }, (_, i) => 1001 + i),
    );
    const final = await rest(trader, `/v1/order/${orderId}`);
    expect(Number((final.body.order as Row).limit_price)).toBe(1100);
    // The other account's orders were placed in the order sent: their acks come in client_id order.
    const acks = (await accountEvents((path) => rest(trader, path), second)).filter((e) => e.type === "order.ack");
    expect(acks.map((e) => (e.data as Row).client_id)).toEqual(Array.from({ length: 100 }, (_, i) => `p-${i + 1}`));
    // On the subscribed account, the order's ack came after its answer.
    const answerAt = socket.messages.indexOf(placed);
    const ackAt = socket.messages.findIndex(
      (m) => m.type === "order.ack" && ((m.data as Row).order_id ?? (m.data as Row).id) === orderId,
    );
    expect(ackAt).toBeGreaterThan(answerAt);
    const sequences = socket.events(first).map((e) => Number(e.sequence));
    expect(sequences).toEqual([...sequences].sort((x, y) => x - y));
  });

  it("counts each operation against the key's rate limit, then answers 429 with REST's body", async () => {
    const limited = await newKey(api, "stream-orders-limited", { label: "bot", permissions: ["READ_ONLY", "TRADE"] });
    const socket = await open(limited);
    // The upgrade counted one; each refused order (bad input, no engine call) counts one more. They go in batches
    // of 100, each awaited, to stay under the socket's bound on pending operations (MAX_QUEUED_OPS).
    expect(MAX_QUEUED_OPS).toBeGreaterThan(100);
    for (let start = 0; start < RATE_LIMIT - 1; start += 100) {
      const end = Math.min(start + 100, RATE_LIMIT - 1);
      for (let i = start; i < end; i++) socket.send({ op: "order.place", id: `n-${i}`, args: {} });
      const last = `n-${end - 1}`;
      const answer = await socket.next((m) => m.id === last, `the answer to ${last}`);
      expect(answer.status).toBe(400);
    }
    socket.send({ op: "order.place", id: "over", args: {} });
    const over = await socket.next((m) => m.id === "over", "the refusal");
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ error: "rate_limited", retry_after_ms: expect.any(Number) as number });
    const viaRest = await rest(limited, "/v1/order", "POST", {});
    expect(viaRest.status).toBe(429);
    expect(Object.keys(viaRest.body)).toEqual(Object.keys(over.body as Row));
  });

  it("closes the socket of a key revoked while it trades (4001)", async () => {
    const doomed = await newKey(api, "stream-orders-doomed", { label: "bot", permissions: ["READ_ONLY", "TRADE"] });
    const accountId = await openAccount(doomed);
    const socket = await open(doomed);
    expect((await ask(socket, "order.place", { account_id: accountId, ...RESTING })).status).toBe(201);
    expect((await revoke(api, "stream-orders-doomed", doomed.id)).status).toBe(200);
    expect(await socket.closed).toMatchObject({ code: 4001 });
  });
});
