// A planned hand-over (docs/scale-out.md, "Hand-over"): two engines and a successor of engine 1 (a second
// engine process of index 1, waiting for its leases), two gateways listing it after engine 1, PostgreSQL and
// Redis. Under steady load from a few keys (orders, cancels, reads, on both engines' accounts, through both
// gateways), engine 1 gets SIGTERM: it drains, releases its leases and exits 0; the successor takes them and
// serves engine 1's accounts; no request fails, and every order placed appears exactly once. A WebSocket
// subscriber on each gateway, subscribed to an account of engine 1 before the load, receives every event of it
// exactly once, in order, across the SIGTERM, without doing anything (docs/streaming.md).
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionOf } from "../../kernel/partition.js";
import { stackOn, type TestStack } from "../harness/backends.js";
import { eventually } from "../harness/eventually.js";
import { engineProcessName } from "../harness/stack.js";
import { accountEvents, newKey, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { StreamClient } from "../harness/stream.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
const KEYS = 3;

interface Trader {
  key: CreatedKey;
  /** Its accounts: one on each engine. */
  accounts: [string, string];
  /** Order ids answered 201, by account. */
  placed: Map<string, string[]>;
}

describe("hand-over: SIGTERM of an engine under load, with a successor", () => {
  let stack: TestStack;
  let db: pg.Pool;
  const traders: Trader[] = [];
  /** Every request that did not get the answer it should have. */
  const failures: string[] = [];

  const gateway = (i: number): string => stack.gateways[i % 2]?.v1 ?? "";
  const send = (trader: Trader, via: number, path: string, init?: Parameters<typeof v1>[3]): Promise<JsonResponse> =>
    v1(gateway(via), path, trader.key, init);
  const post = (trader: Trader, via: number, path: string, body: unknown): Promise<JsonResponse> =>
    send(trader, via, path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const owners = async (engine: number): Promise<{ owner: string; epoch: string; expired: boolean }[]> =>
    (
      await db.query<{ owner: string; epoch: string; expired: boolean }>(
        `SELECT owner, epoch, expires_at <= now() AS expired
           FROM engine_partition_leases WHERE partition % 2 = $1`,
        [engine],
      )
    ).rows;

  beforeAll(async () => {
    stack = await stackOn("postgres", {
      engines: 2,
      gateways: 2,
      redis: true,
      successors: [1],
      // Bounded generously for a loaded test machine: the successor starts its shard threads once it holds
      // the leases, and each gateway's channel to it reconnects on its own backoff.
      gatewayEnv: { HANDOVER_HOLD_MS: "20000", RATE_LIMIT_MAX: "1000000" },
    });
    db = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
    for (let k = 0; k < KEYS; k++) {
      const key = await newKey(stack.gateways[0]?.api ?? "", `handover-${k}`, {
        label: "algo",
        permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
      });
      const trader: Trader = { key, accounts: ["", ""], placed: new Map() };
      while (trader.accounts.includes("")) {
        const created = await post(trader, k, "/v1/account", { plan_id: PLAN_10K });
        expect(created.status).toBe(201);
        const id = String(created.body.account_id);
        trader.accounts[partitionOf(id) % 2] = id;
      }
      for (const account of trader.accounts) trader.placed.set(account, []);
      traders.push(trader);
    }
  });

  afterAll(async () => {
    await db.end();
    await stack.stop();
  });

  /** One round of a trader: on each account, a resting order placed, read back, canceled; the account read. */
  async function round(trader: Trader, via: number): Promise<void> {
    for (const account of trader.accounts) {
      const placed = await post(trader, via, "/v1/order", {
        account_id: account,
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: "0.01",
        limit_price: "1000",
      });
      if (placed.status !== 201) {
        failures.push(`place ${placed.status} ${JSON.stringify(placed.body)}`);
        continue;
      }
      const orderId = String((placed.body.order as Record<string, unknown>).order_id);
      trader.placed.get(account)?.push(orderId);
      const read = await send(trader, via + 1, `/v1/order/${orderId}`);
      if (read.status !== 200) failures.push(`read order ${read.status} ${JSON.stringify(read.body)}`);
      const canceled = await send(trader, via, `/v1/order/${orderId}`, { method: "DELETE" });
      if (canceled.status !== 200) failures.push(`cancel ${canceled.status} ${JSON.stringify(canceled.body)}`);
      const summary = await send(trader, via + 1, `/v1/account/${account}/summary`);
      if (summary.status !== 200) failures.push(`summary ${summary.status} ${JSON.stringify(summary.body)}`);
    }
  }

  /** Every event of the account, as GET /v1/account/{id}/events lists them: (sequence, id) in order. */
  async function eventsOf(trader: Trader, account: string): Promise<{ sequence: number; id: string }[]> {
    const all = await accountEvents((path) => send(trader, 0, path), account);
    return all.map((event) => ({ sequence: Number(event.sequence), id: String(event.id) }));
  }

  it("hands engine 1's partitions to its successor: 0 failed requests, every order once, every event streamed once", async () => {
    const before = new Set((await owners(1)).map((row) => row.owner));
    expect(before.size).toBe(1);
    // A subscriber on each gateway to trader 0's account of engine 1, from its first event.
    const watcher = traders[0] as Trader;
    const watched = watcher.accounts[1];
    const subscribers = await Promise.all([0, 1].map((via) => StreamClient.open(gateway(via), watcher.key)));
    for (const subscriber of subscribers) {
      subscriber.send({ op: "subscribe", account_id: watched, after: 0, id: 1 });
      await subscriber.next((m) => m.op === "subscribed", "the subscription");
    }
    let phase: "before" | "during" | "after" = "before";
    const roundsAfter = traders.map(() => 0);
    const roundsBefore = traders.map(() => 0);
    const load = traders.map(async (trader, k) => {
      for (let r = 0; phase !== "after" || (roundsAfter[k] ?? 0) < 5; r++) {
        await round(trader, k + r);
        if (phase === "before") roundsBefore[k] = (roundsBefore[k] ?? 0) + 1;
        if (phase === "after") roundsAfter[k] = (roundsAfter[k] ?? 0) + 1;
      }
    });
    // Steady load first, then the SIGTERM in the middle of it.
    while (roundsBefore.some((n) => n < 3)) await new Promise((resolve) => setTimeout(resolve, 50));
    phase = "during";
    const streamedBefore = subscribers.map((subscriber) => subscriber.events(watched).length);
    const exited = stack.killEngine(1, "SIGTERM");
    await stack.successorListening(1);
    expect(await exited).toBe(0);
    phase = "after";
    await Promise.all(load);

    expect(failures).toEqual([]);
    // The successor holds engine 1's partitions under a new epoch; the stopped engine released them.
    const after = await owners(1);
    expect(new Set(after.map((row) => row.owner)).size).toBe(1);
    expect(after[0]?.owner).toMatch(/^engine-1-/);
    expect(before.has(after[0]?.owner ?? "")).toBe(false);
    expect(after.every((row) => row.epoch === "2" && !row.expired)).toBe(true);
    expect(stack.output()).toContain("partitions handed over: shards drained, leases released");

    // Every order placed appears exactly once in its account's history, and nothing else does.
    for (const trader of traders) {
      for (const account of trader.accounts) {
        const history = await send(trader, 0, `/v1/account/${account}/orders/history?limit=1000`);
        expect(history.status).toBe(200);
        expect(history.body.has_more).toBe(false);
        const listed = (history.body.data as Record<string, unknown>[]).map((order) => String(order.order_id));
        const placed = trader.placed.get(account) ?? [];
        expect(placed.length).toBeGreaterThan(0);
        expect([...listed].sort()).toEqual([...placed].sort());
      }
    }

    // Each subscriber got every event of the account once, in order, across the SIGTERM: the gateway resumed
    // its engine stream on the successor after the last sequence it passed on.
    const events = await eventsOf(watcher, watched);
    const last = events.at(-1)?.sequence ?? 0;
    expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    for (const [i, subscriber] of subscribers.entries()) {
      await subscriber.until(
        () => Number(subscriber.events(watched).at(-1)?.sequence ?? 0) >= last,
        `event ${last} on the subscriber of gateway ${i}`,
      );
      const streamed = subscriber.events(watched).map((e) => ({ sequence: Number(e.sequence), id: String(e.id) }));
      expect(streamed).toEqual(events);
      expect(streamed.length).toBeGreaterThan(streamedBefore[i] ?? 0);
      expect(subscriber.messages.filter((m) => m.op === "error")).toEqual([]);
      subscriber.close();
    }
  });

  it("keeps serving engine 1's accounts through both gateways from the successor", async () => {
    for (const trader of traders) {
      for (const via of [0, 1]) {
        const account = await send(trader, via, `/v1/account/${trader.accounts[1]}`);
        expect(account.status).toBe(200);
      }
    }
  });

  it("has the stopped engine, started again, wait listening as the successor's successor, and exit 0 on SIGTERM", async () => {
    stack.startEngine(1, 0);
    const name = engineProcessName(1, 0);
    await eventually(
      () =>
        Promise.resolve(stack.linesOf(name).some((line) => line.includes("partitions leased by another live engine"))),
      "the restarted engine 1 waiting for the successor's leases",
    );
    // Its ports are the first engine 1's: alive, not ready, while the successor keeps serving the accounts.
    const admin = stack.engineAdmins[1] ?? "";
    expect((await fetch(`${admin}/healthz`)).status).toBe(200);
    expect((await fetch(`${admin}/readyz`)).status).toBe(503);
    const trader = traders[0] as Trader;
    expect((await send(trader, 0, `/v1/account/${trader.accounts[1]}`)).status).toBe(200);
    expect(await stack.signalEngine(1, 0, "SIGTERM")).toBe(0);
    expect(stack.linesOf(name).some((line) => line.includes("engine stopped while starting"))).toBe(true);
  });
});
