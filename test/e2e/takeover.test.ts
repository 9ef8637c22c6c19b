// A standby takes over a dead engine (docs/scale-out.md, "Standbys"): two engine owners and one standby
// (ENGINE_ROLE=standby, listed as an alternate of both engines in the gateway's ENGINE_GRPC_TARGETS), one
// gateway, PostgreSQL and Redis. Under steady load from a few keys on both engines' accounts, engine 1 gets
// SIGKILL: once its leases lapse the standby takes its index under a new epoch and serves its accounts, having
// read at the take only what it had not followed of engine 1's journal (it is hot); every
// order answered 201 appears exactly once in its account's history; every request that failed in the gap is
// 503 engine_unavailable with Retry-After; engine 0's accounts are served throughout. A WebSocket subscriber,
// subscribed to an account of engine 1 before the load, receives every event of it exactly once, in order,
// across the kill and the take-over, without doing anything (docs/streaming.md).
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClients } from "../../gateway/clients.js";
import { untraced } from "../../gateway/origin.js";
import { partitionOf, partitionsOfEngine } from "../../kernel/partition.js";
import { stackOn, type TestStack } from "../harness/backends.js";
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
  /** Places answered 503 (they may have run), by account. */
  unsure: Map<string, number>;
}

describe("take-over: SIGKILL of an engine owner under load, with a standby", () => {
  let stack: TestStack;
  let db: pg.Pool;
  const traders: Trader[] = [];
  /** Requests that got neither their answer nor 503 engine_unavailable with Retry-After, or failed on engine 0. */
  const failures: string[] = [];
  /** 503s answered for engine 1's accounts while it was down. */
  let gapAnswers = 0;
  /**
   * When the kill was sent, when engine 1 had exited, and when engine 1's accounts were first served after it
   * (Date.now()) by a request sent once engine 1 had exited (so not one engine 1 answered as it died).
   */
  let killedAt = 0;
  let deadAt = 0;
  let servedAgainAt = 0;

  const gateway = (): string => stack.gateways[0]?.v1 ?? "";
  const send = (trader: Trader, path: string, init?: Parameters<typeof v1>[3]): Promise<JsonResponse> =>
    v1(gateway(), path, trader.key, init);
  const post = (trader: Trader, path: string, body: unknown): Promise<JsonResponse> =>
    send(trader, path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  beforeAll(async () => {
    stack = await stackOn("postgres", {
      engines: 2,
      gateways: 1,
      redis: true,
      standbys: 1,
      gatewayEnv: { RATE_LIMIT_MAX: "1000000" },
    });
    db = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
    for (let k = 0; k < KEYS; k++) {
      const key = await newKey(stack.gateways[0]?.api ?? "", `takeover-${k}`, {
        label: "algo",
        permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
      });
      const trader: Trader = { key, accounts: ["", ""], placed: new Map(), unsure: new Map() };
      while (trader.accounts.includes("")) {
        const created = await post(trader, "/v1/account", { plan_id: PLAN_10K });
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

  /** Whether `reply` is what it should be; a 503 engine_unavailable with Retry-After is allowed on engine 1. */
  function check(what: string, engine: number, reply: JsonResponse, ok: number, sent: number): boolean {
    if (reply.status === ok) {
      if (engine === 1 && deadAt > 0 && sent >= deadAt && servedAgainAt === 0) servedAgainAt = Date.now();
      return true;
    }
    const gap = engine === 1 && killedAt > 0;
    if (gap && reply.status === 503 && reply.body.error === "engine_unavailable" && reply.headers.has("retry-after")) {
      gapAnswers++;
    } else {
      failures.push(`${what} on engine ${engine}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    return false;
  }

  /** One round of a trader: on each account, a resting order placed, canceled, and the account read. */
  async function round(trader: Trader): Promise<void> {
    for (const [engine, account] of trader.accounts.entries()) {
      let sent = Date.now();
      const placed = await post(trader, "/v1/order", {
        account_id: account,
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: "0.01",
        limit_price: "1000",
      });
      if (!check("place", engine, placed, 201, sent)) {
        if (placed.status === 503) trader.unsure.set(account, (trader.unsure.get(account) ?? 0) + 1);
        continue;
      }
      const orderId = String((placed.body.order as Record<string, unknown>).order_id);
      trader.placed.get(account)?.push(orderId);
      sent = Date.now();
      check("cancel", engine, await send(trader, `/v1/order/${orderId}`, { method: "DELETE" }), 200, sent);
      sent = Date.now();
      check("summary", engine, await send(trader, `/v1/account/${account}/summary`), 200, sent);
    }
  }

  /** Every event of the account, as GET /v1/account/{id}/events lists them: (sequence, id) in order. */
  async function eventsOf(trader: Trader, account: string): Promise<{ sequence: number; id: string }[]> {
    const all = await accountEvents((path) => send(trader, path), account);
    return all.map((event) => ({ sequence: Number(event.sequence), id: String(event.id) }));
  }

  it("serves engine 1's accounts from the standby; no acknowledged order lost or duplicated; every event streamed once", async () => {
    // A subscriber to trader 0's account of engine 1, from its first event.
    const watcher = traders[0] as Trader;
    const watched = watcher.accounts[1];
    const subscriber = await StreamClient.open(gateway(), watcher.key);
    subscriber.send({ op: "subscribe", account_id: watched, after: 0, id: 1 });
    await subscriber.next((m) => m.op === "subscribed", "the subscription");
    let phase: "before" | "after" = "before";
    const rounds = traders.map(() => 0);
    const roundsAfter = traders.map(() => 0);
    const load = traders.map(async (trader, k) => {
      while (phase === "before" || (roundsAfter[k] ?? 0) < 5) {
        await round(trader);
        rounds[k] = (rounds[k] ?? 0) + 1;
        if (phase === "after" && servedAgainAt > 0) roundsAfter[k] = (roundsAfter[k] ?? 0) + 1;
      }
    });
    while (rounds.some((n) => n < 3)) await new Promise((resolve) => setTimeout(resolve, 50));
    const streamedBefore = subscriber.events(watched).length;
    killedAt = Date.now();
    await stack.killEngine(1, "SIGKILL");
    deadAt = Date.now();
    const standby = await stack.standbyListening(0);
    phase = "after";
    await Promise.all(load);

    expect(standby.engine).toBe(1);
    expect(servedAgainAt).toBeGreaterThan(killedAt);
    const line = stack
      .output()
      .split("\n")
      .find((l) => l.includes('"standby took over engine"'));
    console.log(
      `take-over: engine 1's accounts served again ${servedAgainAt - killedAt} ms after the kill ` +
        `(lease TTL 3000 ms); ${gapAnswers} requests answered 503 in the gap; standby: ${line ?? "no line"}`,
    );
    expect(failures).toEqual([]);
    // Hot: at the take the standby's shards read only what they had not followed yet, not engine 1's journal.
    const caughtUp = stack
      .output()
      .split("\n")
      .find((l) => l.includes('"standby caught up with the journal of the engine it took"'));
    expect(caughtUp, "the standby's catch-up line").toBeDefined();
    const { rows } = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM engine_events e JOIN engine_accounts a ON a.account_id = e.account_id
        WHERE a.partition = ANY($1::int[])`,
      [partitionsOfEngine(1, 2)],
    );
    const journaled = Number(rows[0]?.n);
    expect(journaled).toBeGreaterThan(0);
    expect((JSON.parse(caughtUp ?? "{}") as { events: number }).events).toBeLessThan(journaled);
    // The standby holds engine 1's partitions under a new epoch; engine 0 keeps its own.
    const leases = await db.query<{ engine: number; owner: string; epoch: string; expired: boolean }>(
      `SELECT partition % 2 AS engine, owner, epoch, expires_at <= now() AS expired FROM engine_partition_leases`,
    );
    const of = (engine: number) => leases.rows.filter((row) => row.engine === engine);
    expect(new Set(of(1).map((row) => row.owner)).size).toBe(1);
    expect(of(1)[0]?.owner).toMatch(/^engine-standby-/);
    expect(of(1).every((row) => row.epoch === "2" && !row.expired)).toBe(true);
    expect(of(0).every((row) => row.owner.startsWith("engine-0-") && row.epoch === "1")).toBe(true);

    // Every order answered 201 appears exactly once; an order appears beyond them only for a 503'd place.
    for (const trader of traders) {
      for (const account of trader.accounts) {
        const history = await send(trader, `/v1/account/${account}/orders/history?limit=1000`);
        expect(history.status, JSON.stringify(history.body)).toBe(200);
        expect(history.body.has_more).toBe(false);
        const listed = (history.body.data as Record<string, unknown>[]).map((order) => String(order.order_id));
        const placed = trader.placed.get(account) ?? [];
        expect(placed.length).toBeGreaterThan(0);
        expect(new Set(listed).size).toBe(listed.length);
        for (const id of placed) expect(listed).toContain(id);
        expect(listed.length - placed.length).toBeLessThanOrEqual(trader.unsure.get(account) ?? 0);
      }
    }

    // The subscriber got every event of the account once, in order, across the kill: the gateway reopened its
    // engine stream on the standby after the last sequence it passed on, and the standby replayed the journal.
    const events = await eventsOf(watcher, watched);
    const last = events.at(-1)?.sequence ?? 0;
    expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    await subscriber.until(
      () => Number(subscriber.events(watched).at(-1)?.sequence ?? 0) >= last,
      `event ${last} on the subscriber`,
    );
    const streamed = subscriber.events(watched).map((e) => ({ sequence: Number(e.sequence), id: String(e.id) }));
    expect(streamed).toEqual(events);
    expect(streamed.length).toBeGreaterThan(streamedBefore);
    expect(subscriber.messages.filter((m) => m.op === "error")).toEqual([]);
    subscriber.close();
  });

  it("has the standby refuse engine 0's accounts as not served (so a gateway moves on), asked directly", async () => {
    const standby = await stack.standbyListening(0);
    const direct = createClients(stack.walletGrpc[0] ?? "", [`127.0.0.1:${String(standby.grpcPort)}`], undefined);
    try {
      const trader = traders[0] as Trader;
      const refused: unknown = await direct.engine
        .getAccount({ user_id: "takeover-0", account_id: trader.accounts[0] }, untraced("takeover-direct"))
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      // The router's name for an engine_not_serving refusal (gateway/engine-router.ts), not an unreachable engine.
      expect(refused).toMatchObject({
        code: "engine_unavailable",
        message: "engine 0 does not serve the partition now",
      });
      const served = await direct.engine.getAccount(
        { user_id: "takeover-0", account_id: trader.accounts[1] },
        untraced("takeover-direct"),
      );
      expect(served).toMatchObject({ account_id: trader.accounts[1] });
    } finally {
      direct.close();
    }
  });
});
