// Scale-out (issue 6, docs/scale-out.md): two engine processes and two gateways on one machine sharing one
// PostgreSQL and Redis. Accounts on both engines' partitions are traded through either gateway; killing an
// engine makes its accounts 503 engine_unavailable through both gateways while the other engine's keep
// working; the survivor never serves the dead engine's partitions, nor takes their leases, even after they
// expire; restarting the dead engine's index brings its accounts back with their state.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionOf, partitionOfId } from "../../kernel/partition.js";
import { fromGrpcError } from "../../kernel/errors.js";
import { createClients, type Clients } from "../../gateway/clients.js";
import { untraced } from "../../gateway/origin.js";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";

interface LeaseRow {
  partition: number;
  owner: string;
  epoch: string;
  expired: boolean;
}

describe("scale-out: two engines, two gateways", () => {
  let stack: TestStack;
  let markets: Market[];
  let db: pg.Pool;
  let trader: CreatedKey;
  /** Accounts by owning engine (partitionOf(id) % 2). */
  const accounts: [string[], string[]] = [[], []];
  /** A resting order of each engine's first account, placed before the kill. */
  const resting: string[] = [];

  const gateway = (i: number): string => stack.gateways[i]?.v1 ?? "";
  const post = (via: number, path: string, body: unknown): Promise<JsonResponse> =>
    v1(gateway(via), path, trader, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const get = (via: number, path: string): Promise<JsonResponse> => v1(gateway(via), path, trader);
  const cancel = (via: number, orderId: string): Promise<JsonResponse> =>
    v1(gateway(via), `/v1/order/${orderId}`, trader, { method: "DELETE" });
  const orderOf = (reply: JsonResponse): Record<string, unknown> => reply.body.order as Record<string, unknown>;
  const accountOn = (engine: 0 | 1): string => accounts[engine][0] ?? "";

  const leases = async (engine: number): Promise<LeaseRow[]> =>
    (
      await db.query<LeaseRow>(
        `SELECT partition, owner, epoch, expires_at <= now() AS expired
           FROM engine_partition_leases WHERE partition % 2 = $1 ORDER BY partition`,
        [engine],
      )
    ).rows;

  beforeAll(async () => {
    stack = await stackOn("postgres", { engines: 2, gateways: 2, redis: true, env: { PRICE_FEED: "push" } });
    db = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
    // Each engine has its own prices: a market.v1 pusher pushes to every engine.
    markets = stack.engineGrpcs.map((target) => marketClient(target));
    await Promise.all(markets.map((m) => m.push({ "BTC-USD": 50_000, "ETH-USD": 2_500 })));
    trader = await newKey(stack.gateways[0]?.api ?? "", "scaler", {
      label: "algo",
      permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
    });
  });

  afterAll(async () => {
    for (const m of markets) m.close();
    await db.end();
    await stack.stop();
  });

  it("leases every partition to exactly one engine: p % 2 == k to engine k, epoch 1", async () => {
    for (const engine of [0, 1]) {
      const rows = await leases(engine);
      expect(rows).toHaveLength(128);
      const owners = new Set(rows.map((r) => r.owner));
      expect(owners.size).toBe(1);
      expect([...owners][0]).toMatch(new RegExp(`^engine-${engine}-`));
      expect(rows.every((r) => r.epoch === "1" && !r.expired)).toBe(true);
    }
  });

  it("creates accounts on both engines through either gateway, each in a partition its engine owns", async () => {
    for (const via of [0, 1, 0, 1]) {
      const created = await post(via, "/v1/account", { plan_id: PLAN_10K, label: `via-${via}` });
      expect(created.status).toBe(201);
      const id = String(created.body.account_id);
      accounts[(partitionOf(id) % 2) as 0 | 1].push(id);
    }
    // Each gateway spreads new accounts round-robin over the engines.
    expect(accounts[0].length).toBeGreaterThan(0);
    expect(accounts[1].length).toBeGreaterThan(0);
    const stored = await db.query<{ account_id: string; partition: number }>(
      "SELECT account_id, partition FROM engine_accounts",
    );
    for (const row of stored.rows) expect(row.partition).toBe(partitionOf(row.account_id));
  });

  it("trades accounts of both engines through either gateway: fill, rest, cancel through the other, read", async () => {
    for (const engine of [0, 1] as const) {
      const accountId = accountOn(engine);
      for (const [via, other] of [
        [0, 1],
        [1, 0],
      ] as const) {
        const filled = await post(via, "/v1/order", {
          account_id: accountId,
          symbol: "BTC-USD",
          side: "BUY",
          kind: "MARKET",
          quantity: "0.01",
        });
        expect(filled.status).toBe(201);
        expect(orderOf(filled).status).toBe("FILLED");
        const placed = await post(via, "/v1/order", {
          account_id: accountId,
          symbol: "BTC-USD",
          side: "BUY",
          kind: "LIMIT",
          quantity: "0.01",
          limit_price: "40000",
        });
        expect(placed.status).toBe(201);
        const orderId = String(orderOf(placed).order_id);
        // Order ids name their account's partition, so cancels reach the owner without a lookup.
        expect(partitionOfId(orderId)).toBe(partitionOf(accountId));
        const canceled = await cancel(other, orderId);
        expect(canceled.status).toBe(200);
        expect(orderOf(canceled).status).toBe("CANCELED");
      }
      for (const via of [0, 1]) {
        const positions = await get(via, `/v1/account/${accountId}/positions`);
        expect(positions.status).toBe(200);
        expect(positions.body.data).toEqual([expect.objectContaining({ symbol: "BTC-USD", quantity: 0.02 })]);
      }
      const rest = await post(engine, "/v1/order", {
        account_id: accountId,
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: "0.01",
        limit_price: "39000",
      });
      expect(rest.status).toBe(201);
      resting[engine] = String(orderOf(rest).order_id);
    }
  });

  it("answers 503 engine_unavailable for a killed engine's accounts through both gateways; the other engine's keep trading", async () => {
    const deadOwner = (await leases(1))[0]?.owner ?? "";
    await stack.killEngine(1, "SIGKILL");
    const dead = accountOn(1);
    const live = accountOn(0);
    for (const via of [0, 1]) {
      const read = await get(via, `/v1/account/${dead}`);
      expect(read.status).toBe(503);
      expect(read.body).toEqual({ error: "engine_unavailable" });
      const placed = await post(via, "/v1/order", {
        account_id: dead,
        symbol: "BTC-USD",
        side: "BUY",
        kind: "MARKET",
        quantity: "0.01",
      });
      expect(placed.status).toBe(503);
      expect(placed.body).toEqual({ error: "engine_unavailable" });
      const canceled = await cancel(via, resting[1] ?? "");
      expect(canceled.status).toBe(503);
      expect(canceled.body).toEqual({ error: "engine_unavailable" });

      const trade = await post(via, "/v1/order", {
        account_id: live,
        symbol: "BTC-USD",
        side: "SELL",
        kind: "MARKET",
        quantity: "0.01",
      });
      expect(trade.status).toBe(201);
      expect((await get(via, `/v1/account/${live}/summary`)).status).toBe(200);
      // Not about one account: any engine answers.
      expect((await get(via, "/v1/tickers")).status).toBe(200);
      // New accounts land on the engine that is up.
      const created = await post(via, "/v1/account", { plan_id: PLAN_10K });
      expect(created.status).toBe(201);
      expect(partitionOf(String(created.body.account_id)) % 2).toBe(0);
    }
    // The dead engine's leases still name it: nobody took them.
    expect(new Set((await leases(1)).map((r) => r.owner))).toEqual(new Set([deadOwner]));
  });

  it("never lets the surviving engine serve or lease the dead engine's partitions, even after their leases expired", async () => {
    const deadOwner = (await leases(1))[0]?.owner ?? "";
    // Wait for the leases to run out (ENGINE_LEASE_TTL_MS is 3 s in the harness).
    while (!(await leases(1)).every((r) => r.expired)) await new Promise((r) => setTimeout(r, 200));
    // Asked directly, bypassing the gateways' routing, engine 0 refuses the account: it owns only p % 2 == 0.
    const direct: Clients = createClients(stack.walletGrpc[0] ?? "", [stack.engineGrpcs[0] ?? ""], undefined);
    try {
      const refused: unknown = await direct.engine
        .getAccount({ user_id: "scaler", account_id: accountOn(1) }, untraced("scale-out-direct"))
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(fromGrpcError(refused).code).toBe("engine_unavailable");
      const placed: unknown = await direct.engine
        .placeOrder(
          {
            user_id: "scaler",
            account_id: accountOn(1),
            symbol: "BTC-USD",
            side: "BUY",
            kind: "MARKET",
            quantity: "0.01",
          },
          untraced("scale-out-direct"),
        )
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(fromGrpcError(placed).code).toBe("engine_unavailable");
    } finally {
      direct.close();
    }
    // Expired, but still the dead engine's rows under epoch 1: the survivor never tried to take them.
    const rows = await leases(1);
    expect(rows.every((r) => r.owner === deadOwner && r.epoch === "1" && r.expired)).toBe(true);
  });

  it("brings the dead engine's accounts back with their state when its index restarts", async () => {
    await stack.restartEngine({ index: 1 });
    markets[1]?.close();
    markets[1] = marketClient(stack.engineGrpcs[1] ?? "");
    await markets[1].push({ "BTC-USD": 50_000, "ETH-USD": 2_500 });
    const rows = await leases(1);
    expect(new Set(rows.map((r) => r.epoch))).toEqual(new Set(["2"]));
    expect(rows.every((r) => r.owner.startsWith("engine-1-") && !r.expired)).toBe(true);
    const accountId = accountOn(1);
    for (const via of [0, 1]) {
      // Each gateway's channel to engine 1 reconnects on its own backoff (at most 2 s): 503 until then.
      let orders = await get(via, `/v1/account/${accountId}/orders`);
      while (orders.status === 503) {
        await new Promise((r) => setTimeout(r, 200));
        orders = await get(via, `/v1/account/${accountId}/orders`);
      }
      expect(orders.status).toBe(200);
      expect(orders.body.data).toEqual([expect.objectContaining({ order_id: resting[1], status: "NEW" })]);
      const positions = await get(via, `/v1/account/${accountId}/positions`);
      expect(positions.body.data).toEqual([expect.objectContaining({ symbol: "BTC-USD", quantity: 0.02 })]);
    }
    const canceled = await cancel(1, resting[1] ?? "");
    expect(canceled.status).toBe(200);
    expect(orderOf(canceled).status).toBe("CANCELED");
  });
});
