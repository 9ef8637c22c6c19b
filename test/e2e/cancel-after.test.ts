// The dead-man's switch end to end (docs/risk.md, "Cancel-after") on both database backends (the embedded one
// is what `npm start` runs) with pushed prices: armed over /v1, it fires on the engine's clock with no traffic at
// all, cancels what could add exposure and keeps the stop-loss and take-profit of the open position, and sends
// order.cancel (cancel_after) then account.cancel_after. Placements and heartbeats racing the deadline: orders
// placed before it are canceled, orders placed from it on work, the switch keeps the latest heartbeat.
// Journaled: after a kill -9 of the engine (the account rebuilt from a snapshot that holds the armed switch) the
// deadline is the same and fires on time, and a deadline that passed while the engine was down fires as soon as
// the engine has started.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
const PRICES = { "BTC-USD": 100_000, "ETH-USD": 3_000 };
/** The test gives up this long after a deadline (or after it starts to wait): only a switch that never fires fails it. */
const GIVE_UP_MS = 30_000;

type Row = Record<string, unknown>;

interface Envelope {
  type: string;
  created_at: string;
  sequence: number;
  data: Row;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const dataOf = (response: JsonResponse): Row[] => response.body.data as Row[];

describe.each(BACKENDS)("the dead-man's switch on the real stack on %s", (backend) => {
  let stack: TestStack;
  let db: pg.Pool;
  let market: Market;
  let trader: CreatedKey;

  const base = (): string => stack.gateways[0]?.v1 ?? "";
  const post = (path: string, body: unknown): Promise<JsonResponse> =>
    v1(base(), path, trader, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const get = (path: string): Promise<JsonResponse> => v1(base(), path, trader);

  /** Places an order that must be accepted; returns its id. */
  const placed = async (body: Row): Promise<string> => {
    const reply = await post("/v1/order", body);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return String((reply.body.order as Row).order_id);
  };

  /**
   * A 10K account long 0.01 BTC with a stop-loss and a take-profit (reduce-only), a resting BUY LIMIT on BTC and
   * an ETH entry stop: the switch keeps the first two and cancels the other two.
   */
  async function tradingAccount() {
    const created = await post("/v1/account", { plan_id: PLAN_10K });
    expect(created.status).toBe(201);
    const account = String(created.body.account_id);
    const order = (body: Row) => placed({ account_id: account, ...body });
    await order({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
    const stop = await order({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "95000",
      reduce_only: true,
    });
    const takeProfit = await order({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "TAKE_PROFIT",
      quantity: "0.01",
      trigger_price: "110000",
      reduce_only: true,
    });
    const entry = await order({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "90000",
    });
    const ethStop = await order({
      symbol: "ETH-USD",
      side: "BUY",
      kind: "STOP",
      quantity: "0.1",
      trigger_price: "3200",
    });
    return { account, kept: [stop, takeProfit], canceled: [entry, ethStop] };
  }

  const arm = async (account: string, timeoutMs: number): Promise<number> => {
    const reply = await post(`/v1/account/${account}/cancel-after`, { timeout_ms: timeoutMs });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ account_id: account, armed: true, timeout_ms: timeoutMs });
    return Date.parse(String(reply.body.deadline));
  };

  /** Reads (reads decide nothing) until the account's events hold account.cancel_after; its envelopes then. */
  async function firedEvents(account: string, deadline: number): Promise<Envelope[]> {
    const giveUp = Math.max(deadline, Date.now()) + GIVE_UP_MS;
    for (;;) {
      let events: Envelope[] = [];
      try {
        // Every page (the race below makes hundreds of events).
        for (;;) {
          const reply = await get(`/v1/account/${account}/events?limit=1000&after=${events.length}`);
          if (reply.status !== 200) break;
          events = [...events, ...(dataOf(reply) as unknown as Envelope[])];
          if (reply.body.has_more !== true) break;
        }
      } catch {
        // The gateway's engine may be restarting: read again.
      }
      if (events.some((e) => e.type === "account.cancel_after")) return events;
      if (Date.now() > giveUp) throw new Error("the dead-man's switch did not fire");
      await sleep(100);
    }
  }

  /** What fired: the cancels before account.cancel_after, its data, and the orders still working. */
  async function expectFired(
    account: string,
    deadline: number,
    timeoutMs: number,
    orders: { kept: string[]; canceled: string[] },
  ) {
    const events = await firedEvents(account, deadline);
    const firedAt = events.findIndex((e) => e.type === "account.cancel_after");
    const fired = events[firedAt] as Envelope;
    const cancels = events.slice(firedAt - orders.canceled.length, firedAt);
    expect(cancels.map((e) => [e.type, e.data.order_id, e.data.reason, e.data.status])).toEqual(
      orders.canceled.map((id) => ["order.cancel", id, "cancel_after", "CANCELED"]),
    );
    expect(fired.data).toMatchObject({ account_id: account, timeout_ms: timeoutMs });
    expect(Date.parse(String(fired.data.deadline))).toBe(deadline);
    // Never before the deadline.
    expect(Date.parse(fired.created_at)).toBeGreaterThanOrEqual(deadline);
    expect(Date.parse(String(fired.data.fired_at))).toBe(Date.parse(fired.created_at));
    expect((fired.data.canceled as Row[]).map((o) => [o.order_id, o.reason])).toEqual(
      orders.canceled.map((id) => [id, "cancel_after"]),
    );
    expect((fired.data.kept as Row[]).map((o) => o.order_id)).toEqual(orders.kept);
    // Nothing after it in the same decision, and the sequence has no gap.
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));

    const working = await get(`/v1/account/${account}/orders`);
    expect(working.status).toBe(200);
    expect(dataOf(working).map((o) => o.order_id)).toEqual(orders.kept);
    const positions = await get(`/v1/account/${account}/positions`);
    expect(dataOf(positions)).toHaveLength(1);
    expect((await get(`/v1/account/${account}/cancel-after`)).body).toMatchObject({ armed: false, deadline: null });
  }

  /** The gateway answers again after an engine restart, and the new engine has prices again. */
  async function afterRestart(account: string): Promise<void> {
    const until = Date.now() + 60_000;
    for (;;) {
      const reply = await get(`/v1/account/${account}/cancel-after`).catch(() => undefined);
      if (reply?.status === 200) break;
      if (Date.now() > until) throw new Error("engine not reachable after restart");
      await sleep(100);
    }
    market.close();
    market = marketClient(stack.engineGrpc);
    for (;;) {
      try {
        await market.push(PRICES);
        return;
      } catch (error) {
        if (Date.now() > until) throw error;
        await sleep(100);
      }
    }
  }

  beforeAll(async () => {
    // Snapshots every 10 events (the least): the restart test's account is rebuilt from a snapshot that holds
    // the armed switch.
    stack = await stackOn(backend, { env: { PRICE_FEED: "push" }, engineEnv: { ENGINE_SNAPSHOT_EVERY: "10" } });
    db = new pg.Pool({ connectionString: stack.databaseUrl, max: 1 });
    market = marketClient(stack.engineGrpc);
    trader = await newKey(stack.gateways[0]?.api ?? "", "switch-trader", {
      label: "bot",
      permissions: ["TRADE"],
    });
    await market.push(PRICES);
  });
  afterAll(async () => {
    market?.close();
    await db?.end();
    await stack?.stop();
  });

  it("fires on time with no traffic, keeps the stop-loss and take-profit, cancels the rest", async () => {
    const { account, kept, canceled } = await tradingAccount();
    const deadline = await arm(account, 2_000);
    // Reads only from here on, and no price.
    await expectFired(account, deadline, 2_000, { kept, canceled });
  });

  it("races placements and heartbeats against the deadline: before it canceled, from it on placed normally", async () => {
    const created = await post("/v1/account", { plan_id: PLAN_10K });
    expect(created.status).toBe(201);
    const account = String(created.body.account_id);
    // Concurrent heartbeats with one timeout: each answers its own deadline, the switch keeps the latest.
    const beats = await Promise.all(
      Array.from({ length: 12 }, () => post(`/v1/account/${account}/cancel-after`, { timeout_ms: 1_500 })),
    );
    for (const beat of beats) expect(beat.status).toBe(200);
    const deadlines = beats.map((beat) => Date.parse(String(beat.body.deadline)));
    const deadline = Math.max(...deadlines);
    expect((await get(`/v1/account/${account}/cancel-after`)).body.deadline).toBe(new Date(deadline).toISOString());

    // Two placers from before the deadline until a little after it (at most 150 orders: the working-order
    // limit is 200).
    const created_at = new Map<string, number>();
    const placer = async (): Promise<void> => {
      while (Date.now() < deadline + 700 && created_at.size < 150) {
        const reply = await post("/v1/order", {
          account_id: account,
          symbol: "BTC-USD",
          side: "BUY",
          kind: "LIMIT",
          quantity: "0.001",
          limit_price: "50000",
        });
        expect(reply.status, JSON.stringify(reply.body)).toBe(201);
        const order = reply.body.order as Row;
        created_at.set(String(order.order_id), Date.parse(String(order.created_at)));
        // Paced, so the orders span the deadline rather than reaching the cap before it.
        await sleep(40);
      }
    };
    await Promise.all([placer(), placer()]);
    const events = await firedEvents(account, deadline);
    const fired = events.filter((e) => e.type === "account.cancel_after");
    expect(fired).toHaveLength(1);
    const firedAt = Date.parse((fired[0] as Envelope).created_at);
    expect(firedAt).toBeGreaterThanOrEqual(deadline);

    const working = new Set(dataOf(await get(`/v1/account/${account}/orders`)).map((o) => String(o.order_id)));
    const canceled = new Set(((fired[0] as Envelope).data.canceled as Row[]).map((o) => String(o.order_id)));
    const before = [...created_at].filter(([, at]) => at < deadline);
    const after = [...created_at].filter(([, at]) => at >= deadline);
    expect(before.length, "orders placed before the deadline").toBeGreaterThan(0);
    expect(after.length, "orders placed after the deadline").toBeGreaterThan(0);
    for (const [id] of before) {
      expect(canceled.has(id), `${id} placed before the deadline is canceled`).toBe(true);
      expect(working.has(id)).toBe(false);
    }
    for (const [id] of after) {
      expect(canceled.has(id), `${id} placed after the deadline is not canceled`).toBe(false);
      expect(working.has(id), `${id} placed after the deadline works`).toBe(true);
    }
    expect(canceled.size).toBe(before.length);
  });

  it("keeps its deadline across a kill -9 of the engine and fires on time after the restart", async () => {
    const { account, kept, canceled } = await tradingAccount();
    // Long enough to outlast the restart: it fires on the restarted engine's clock.
    const deadline = await arm(account, 20_000);
    // More events after arming, until the account's snapshot holds the armed switch: the restart restores it
    // from there (docs/engine.md, "Snapshots") rather than replaying its arming.
    const later: string[] = [];
    for (;;) {
      const row = await db.query<{ armed: boolean }>(
        "SELECT json_typeof(payload->'fields'->'cancel_after') = 'object' AS armed FROM engine_snapshots WHERE account_id = $1",
        [account],
      );
      if (row.rows[0]?.armed === true) break;
      expect(later.length, "a snapshot with the armed switch").toBeLessThan(20);
      later.push(
        await placed({
          account_id: account,
          symbol: "BTC-USD",
          side: "BUY",
          kind: "LIMIT",
          quantity: "0.001",
          limit_price: "80000",
        }),
      );
      await sleep(50);
    }
    await stack.restartEngine({ signal: "SIGKILL" });
    await afterRestart(account);
    const reply = await get(`/v1/account/${account}/cancel-after`);
    // Still armed with the very deadline, unless the restart took longer than the timeout and it fired already
    // (expectFired holds its event to that same deadline either way).
    if (reply.body.armed === true) {
      expect(reply.body).toMatchObject({ timeout_ms: 20_000, deadline: new Date(deadline).toISOString() });
    }
    await expectFired(account, deadline, 20_000, { kept, canceled: [...canceled, ...later] });
  });

  it("fires at start a deadline that passed while the engine was down", async () => {
    const { account, kept, canceled } = await tradingAccount();
    const deadline = await arm(account, 1_000);
    await stack.killEngine(0, "SIGKILL");
    // Down past the deadline: nothing could fire it.
    while (Date.now() <= deadline + 500) await sleep(100);
    const startedAt = Date.now();
    await stack.restartEngine();
    await afterRestart(account);
    await expectFired(account, deadline, 1_000, { kept, canceled });
    const events = await firedEvents(account, deadline);
    const fired = events.find((e) => e.type === "account.cancel_after") as Envelope;
    expect(Date.parse(fired.created_at)).toBeGreaterThanOrEqual(startedAt);
  });
});
