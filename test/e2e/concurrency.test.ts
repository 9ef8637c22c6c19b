// Concurrent writes through the real processes on both databases: a throwaway PostgreSQL and the embedded
// default (one PGlite session lent to one connection at a time, docs/embedded-database.md). Two requests at
// once must never double-spend, double-place or pass a limit, and every answer is a documented status.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, stackOn, type TestStack } from "../harness/backends.js";
import { createKey, newKey, request, revoke, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";
import { makeTestCa, startReceiver, type Envelope, type Receiver, type TestCa } from "../harness/receiver.js";

const PLAN_200K = "15ef9280-770d-4664-9de7-93fcd7677a98";
const STARTING_BALANCE = 200_000;
const TRADER = { label: "bot", permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"] };
/** Money as integer units of 1e-8 USD, so sums are exact. */
const units = (value: unknown): number => Math.round(Number(value) * 1e8);

const json = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

describe.each(BACKENDS)("concurrent writes on %s", (backend) => {
  let ca: TestCa;
  let receiver: Receiver;
  let stack: TestStack;
  let market: Market;
  let base: string;
  let api: string;

  const openAccount = async (key: CreatedKey): Promise<string> => {
    const opened = await v1(base, "/v1/account", key, json({ plan_id: PLAN_200K }));
    expect(opened.status).toBe(201);
    return String(opened.body.account_id);
  };

  beforeAll(async () => {
    ca = makeTestCa();
    receiver = await startReceiver(ca);
    stack = await stackOn(backend, {
      env: { PRICE_FEED: "push", WEBHOOK_ALLOW_PRIVATE: "true" },
      engineEnv: { WEBHOOK_CA_FILE: ca.caFile, WEBHOOK_RETRY_SCHEDULE_MS: "0,300,600", WEBHOOK_POLL_MS: "50" },
      gatewayEnv: { RATE_LIMIT_MAX: "1000000" },
    });
    base = stack.gateways[0]?.v1 ?? "";
    api = stack.gateways[0]?.api ?? "";
    market = marketClient(stack.engineGrpc);
    await market.push({ "BTC-USD": 50_000, "ETH-USD": 2_500 });
  });
  afterAll(async () => {
    market?.close();
    await stack?.stop();
    await receiver?.close();
    ca?.remove();
  });

  it("keeps the 10-key limit under 60 parallel creates for 3 users: exactly 30 × 201 and 30 × 409", async () => {
    const users = ["race-a", "race-b", "race-c"];
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => createKey(api, users[i % 3] as string)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(30);
    const refused = answers.filter((a) => a.status === 409);
    expect(refused).toHaveLength(30);
    for (const a of refused) expect(a.body).toMatchObject({ error: "key_limit_reached", limit: 10 });
    for (const user of users) {
      const listed = await request(`${api}/api/api-keys`, { headers: { "x-user-id": user } });
      expect(listed.body.apiKeys as unknown[]).toHaveLength(10);
    }
  });

  it("revokes a key exactly once under 20 parallel DELETEs, and the key is refused on the next request", async () => {
    const key = await newKey(api, "revoker", TRADER);
    expect((await v1(base, "/v1/tickers", key)).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 20 }, () => revoke(api, "revoker", key.id)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 404)).toHaveLength(19);
    expect((await v1(base, "/v1/tickers", key)).status).toBe(401);
  });

  it("opens 40 accounts in parallel for one user, each once, each readable", async () => {
    const key = await newKey(api, "opener", TRADER);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => v1(base, "/v1/account", key, json({ plan_id: PLAN_200K, label: `p${i}` }))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 40 }, () => 201));
    const ids = answers.map((a) => String(a.body.account_id));
    expect(new Set(ids).size).toBe(40);
    const reads = await Promise.all(ids.map((id) => v1(base, `/v1/account/${id}`, key)));
    expect(reads.every((r) => r.status === 200 && r.body.balance === STARTING_BALANCE)).toBe(true);
  });

  it("places 60 parallel orders on one account, each client_id once, with the balance and position the fills imply", async () => {
    const key = await newKey(api, "parallel-orders", TRADER);
    const accountId = await openAccount(key);
    const bodies = Array.from({ length: 60 }, (_, i) => ({
      account_id: accountId,
      symbol: "BTC-USD",
      side: i % 3 === 2 && i % 5 !== 4 ? "SELL" : "BUY",
      kind: i % 5 === 4 ? "LIMIT" : "MARKET",
      quantity: "0.001",
      ...(i % 5 === 4 ? { limit_price: 40_000 } : {}),
      client_id: `par-${i}`,
    }));
    // Every body twice at once: one order per client_id, the copy a replay of it.
    const answers = await Promise.all(
      bodies.flatMap((body) => [body, body]).map((b) => v1(base, "/v1/order", key, json(b))),
    );
    for (const a of answers) expect([200, 201], JSON.stringify(a.body)).toContain(a.status);
    const orderIds = new Map<string, Set<string>>();
    for (const a of answers) {
      const order = a.body.order as { client_id: string; order_id: string };
      const seen = orderIds.get(order.client_id) ?? new Set<string>();
      seen.add(order.order_id);
      orderIds.set(order.client_id, seen);
    }
    expect(orderIds.size).toBe(60);
    for (const ids of orderIds.values()) expect(ids.size).toBe(1);

    const [record, trades, positions, working] = await Promise.all([
      v1(base, `/v1/account/${accountId}`, key),
      v1(base, `/v1/account/${accountId}/trades?limit=1000`, key),
      v1(base, `/v1/account/${accountId}/positions`, key),
      v1(base, `/v1/account/${accountId}/orders`, key),
    ]);
    const fills = trades.body.data as Record<string, unknown>[];
    expect(new Set(fills.map((f) => f.order_id)).size).toBe(fills.length);
    const implied = fills.reduce((sum, f) => sum + units(f.realized_pnl) - units(f.fee), units(STARTING_BALANCE));
    expect(units(record.body.balance)).toBe(implied);
    const net = fills.reduce((sum, f) => sum + (f.side === "BUY" ? 1 : -1) * Math.round(Number(f.quantity) * 1e4), 0);
    const held = (positions.body.data as Record<string, unknown>[]).reduce(
      (sum, p) => sum + (p.side === "BUY" ? 1 : -1) * Math.round(Number(p.quantity) * 1e4),
      0,
    );
    expect(held).toBe(net);
    // 32 MARKET buys of 0.001 less 16 MARKET sells; the 12 LIMIT buys rest below the market.
    expect(net).toBe(16 * 10);
    expect(working.body.data as unknown[]).toHaveLength(12);
  });

  it("closes a position once under 10 parallel closes: one fill, the others find nothing to close", async () => {
    const key = await newKey(api, "closer", TRADER);
    const accountId = await openAccount(key);
    const opened = await v1(
      base,
      "/v1/order",
      key,
      json({ account_id: accountId, symbol: "ETH-USD", side: "BUY", kind: "MARKET", quantity: "1" }),
    );
    expect(opened.status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        v1(base, "/v1/position/close", key, json({ account_id: accountId, symbol: "ETH-USD" })),
      ),
    );
    const closed = answers.filter((a) => a.status === 201);
    expect(closed, JSON.stringify(answers.map((a) => [a.status, a.body]))).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 201)) {
      // The others: nothing left to close (404), or a reduce-only order with nothing to reduce (409).
      expect([404, 409], JSON.stringify(a.body)).toContain(a.status);
    }
    const positions = await v1(base, `/v1/account/${accountId}/positions`, key);
    expect(positions.body.data).toEqual([]);
    const trades = await v1(base, `/v1/account/${accountId}/trades`, key);
    expect(trades.body.data as unknown[]).toHaveLength(2);
  });

  it("delivers every event of parallel orders on 4 accounts through the outbox, each once, with contiguous sequences", async () => {
    const traders = await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        const path = `/outbox-${backend}-${i}`;
        const key = await newKey(api, `outbox-${i}`, { ...TRADER, webhookUrl: `${receiver.origin}${path}` });
        if (key.webhookSecret === undefined) throw new Error("no webhookSecret");
        receiver.secrets.set(path, key.webhookSecret);
        return { key, path, accountId: await openAccount(key) };
      }),
    );
    const orders: Promise<JsonResponse>[] = [];
    for (const t of traders) {
      for (let i = 0; i < 10; i++) {
        orders.push(
          v1(
            base,
            "/v1/order",
            t.key,
            json({ account_id: t.accountId, symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" }),
          ),
        );
      }
    }
    for (const a of await Promise.all(orders)) expect(a.status).toBe(201);
    // Each MARKET order: order.ack and order.fill.
    const delivered = (path: string): Envelope[] => {
      const got = receiver.on(path).filter((r) => r.answered >= 200 && r.answered < 300);
      const events = new Map<number, Envelope>();
      for (const r of got) if (r.envelope !== undefined) events.set(r.envelope.sequence, r.envelope);
      return [...events.values()].sort((a, b) => a.sequence - b.sequence);
    };
    await receiver.until(() => traders.every((t) => delivered(t.path).length >= 20));
    for (const t of traders) {
      expect(receiver.on(t.path).every((r) => r.verified)).toBe(true);
      const events = delivered(t.path);
      expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(events.filter((e) => e.type === "order.fill")).toHaveLength(10);
      const catchUp = await v1(base, `/v1/account/${t.accountId}/events`, t.key);
      expect(catchUp.body).toEqual({ data: events, has_more: false });
    }
  });
});
