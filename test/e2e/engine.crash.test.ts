// Durability (docs/engine.md, "Shards": group commit answers only after the journal transaction): a crash
// while hundreds of order requests are in flight, then a start on the same data. On PostgreSQL the engine
// process is killed with SIGKILL and started again on the same database and ports; on the embedded default
// the whole `npm start` process group (supervisor and its database, wallet, engine, gateway) is killed with
// SIGKILL and `npm start` runs again on the same DATA_DIR (docs/embedded-database.md). Every order the API
// acknowledged must come back identical, balances must be exactly what the journaled fills imply, and
// retrying every client_id must never create a second order.
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";
import { launchNpmStart, type NpmStart } from "../harness/npm-start.js";

const PLAN_200K = "15ef9280-770d-4664-9de7-93fcd7677a98";
const STARTING_BALANCE = 200_000;
const PRICES = { "BTC-USD": 50_000, "ETH-USD": 2_500 };
const ACCOUNTS = 8;
const REQUESTS = 480;
const CONCURRENCY = 96;
/** The engine is killed once this many orders have been acknowledged. */
const KILL_AFTER_ACKS = 160;

type Row = Record<string, unknown>;

interface Spec {
  index: number;
  accountId: string;
  key: CreatedKey;
  clientId: string;
  body: Row;
}

interface Outcome {
  spec: Spec;
  response?: JsonResponse;
  error?: unknown;
}

const WORKING = new Set(["NEW", "PARTIALLY_FILLED", "HELD"]);
/** Money as integer units of 1e-8 USD, so sums are exact. */
const units = (value: unknown): number => Math.round(Number(value) * 1e8);
const orderOf = (response: JsonResponse): Row => response.body.order as Row;
const fillsOf = (response: JsonResponse): Row[] => response.body.fills as Row[];
const acknowledged = (response: JsonResponse | undefined): response is JsonResponse =>
  response !== undefined && (response.status === 200 || response.status === 201);

/** A mix of MARKET fills, resting LIMITs on two symbols and post-only rejections, 0.001 BTC / 0.01 ETH each. */
function bodyFor(index: number, clientId: string, accountId: string): Row {
  const common = { account_id: accountId, client_id: clientId };
  switch (index % 6) {
    case 0:
      return { ...common, symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" };
    case 1:
      return { ...common, symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.002" };
    case 2:
      return {
        ...common,
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: "0.001",
        limit_price: 40_000 + (index % 50) * 10,
      };
    case 3:
      return { ...common, symbol: "ETH-USD", side: "SELL", kind: "LIMIT", quantity: "0.01", limit_price: 3_000 };
    case 4:
      return { ...common, symbol: "ETH-USD", side: "BUY", kind: "MARKET", quantity: "0.01" };
    default:
      // Would take: REJECTED with post_only_would_take, answered 200, kept for audit and idempotency.
      return {
        ...common,
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: "0.001",
        limit_price: 51_000,
        post_only: true,
      };
  }
}

/** What crashes and how the test reaches the service before and after. */
interface Target {
  /** The /v1 and /api listeners and the engine's market.v1 address, as of now. */
  v1(): string;
  api(): string;
  engineGrpc(): string;
  /** The INTERNAL_TOKEN its gRPC asks for, when it asks for one. */
  internalToken: string | undefined;
  /** Kills with SIGKILL and starts again on the same data; resolves once the new processes listen. */
  crashAndRestart(): Promise<void>;
  /** The whole stack died with the crash, so requests in flight fail on the socket rather than with 5xx. */
  socketErrorsExpected: boolean;
  stop(): Promise<void>;
}

const SETTINGS = { PRICE_FEED: "push", ENGINE_SHARDS: "4" };
const GATEWAY_SETTINGS = { RATE_LIMIT_MAX: "1000000" };

async function postgresTarget(): Promise<Target> {
  const stack: TestStack = await stackOn("postgres", { env: SETTINGS, gatewayEnv: GATEWAY_SETTINGS });
  return {
    v1: () => stack.gateways[0]?.v1 ?? "",
    api: () => stack.gateways[0]?.api ?? "",
    engineGrpc: () => stack.engineGrpc,
    internalToken: undefined,
    crashAndRestart: () => stack.restartEngine({ signal: "SIGKILL" }),
    socketErrorsExpected: false,
    stop: () => stack.stop(),
  };
}

async function embeddedTarget(): Promise<Target> {
  // npm start would mint a token of its own: this one lets the test push prices through market.v1.
  const internalToken = "crash-test-internal-token-0123456789";
  const env = { ...SETTINGS, ...GATEWAY_SETTINGS, INTERNAL_TOKEN: internalToken };
  let stack: NpmStart = await launchNpmStart({ env, detached: true });
  await stack.ready();
  const dataDir = stack.dataDir;
  const killGroup = async (): Promise<void> => {
    const pid = stack.child.pid;
    if (pid === undefined || stack.exitCode !== undefined) return;
    process.kill(-pid, "SIGKILL");
    await stack.exited;
  };
  return {
    v1: () => stack.v1Base,
    api: () => stack.api,
    engineGrpc: () => `127.0.0.1:${String(stack.ports.ENGINE_GRPC_PORT)}`,
    internalToken,
    async crashAndRestart() {
      await killGroup();
      stack = await launchNpmStart({ env, detached: true, dataDir });
      await stack.ready();
    },
    socketErrorsExpected: true,
    async stop() {
      await killGroup();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe.each([
  ["PostgreSQL, the engine killed", postgresTarget],
  ["the embedded default, all of npm start killed", embeddedTarget],
])("crash (SIGKILL) under load on %s", (_name, start) => {
  let target: Target;
  let market: Market;
  const keys: CreatedKey[] = [];
  const accounts: { id: string; key: CreatedKey; record: Row }[] = [];

  const send = (key: CreatedKey, method: string, path: string, body?: unknown): Promise<JsonResponse> =>
    v1(target.v1(), path, key, {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    target = await start();
    market = marketClient(target.engineGrpc(), target.internalToken);
    const api = target.api();
    const scopes = { label: "load", permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"] };
    keys.push(await newKey(api, "crash-a", scopes), await newKey(api, "crash-b", scopes));
    await market.push(PRICES);
    for (let i = 0; i < ACCOUNTS; i++) {
      const key = keys[i % keys.length] as CreatedKey;
      const created = await send(key, "POST", "/v1/account", { plan_id: PLAN_200K, label: `crash-${i}` });
      expect(created.status).toBe(201);
      accounts.push({ id: String(created.body.account_id), key, record: created.body });
    }
  });
  afterAll(async () => {
    market?.close();
    await target?.stop();
  });
  it("keeps every acknowledged order, fill and balance across a kill -9, and never duplicates a client_id", async () => {
    const specs: Spec[] = Array.from({ length: REQUESTS }, (_, index) => {
      const account = accounts[index % ACCOUNTS] as (typeof accounts)[number];
      const clientId = `load-${index}`;
      return { index, accountId: account.id, key: account.key, clientId, body: bodyFor(index, clientId, account.id) };
    });

    // Load: CONCURRENCY requests in flight at all times; the engine is killed (not awaited here) once
    // KILL_AFTER_ACKS orders are acknowledged, and restarted at once, while the rest keep coming.
    const outcomes: Outcome[] = [];
    let next = 0;
    let acks = 0;
    let inFlight = 0;
    let inFlightAtKill = -1;
    let restart: Promise<void> | undefined;
    const worker = async (): Promise<void> => {
      for (;;) {
        const spec = specs[next++];
        if (spec === undefined) return;
        inFlight++;
        const outcome: Outcome = { spec };
        try {
          outcome.response = await send(spec.key, "POST", "/v1/order", spec.body);
        } catch (error) {
          outcome.error = error;
        }
        inFlight--;
        outcomes.push(outcome);
        if (acknowledged(outcome.response) && ++acks === KILL_AFTER_ACKS) {
          inFlightAtKill = inFlight;
          restart = target.crashAndRestart();
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(restart, "the engine was killed during the load").toBeDefined();
    await restart;
    expect(inFlightAtKill).toBeGreaterThan(0);

    // First pass: an order request is acknowledged (200/201) or failed by the crash (5xx, or on the socket
    // when the gateway died with it); nothing else.
    for (const { response, error } of outcomes) {
      if (error !== undefined && target.socketErrorsExpected) continue;
      expect(error).toBeUndefined();
      expect([200, 201, 500, 502, 503, 504]).toContain(response?.status);
    }
    const acked = new Map<string, Outcome & { response: JsonResponse }>();
    for (const outcome of outcomes) {
      const response = outcome.response;
      if (acknowledged(response)) acked.set(outcome.spec.clientId, { ...outcome, response });
    }
    const failedCount = outcomes.length - acked.size;
    expect(acked.size).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
    expect(failedCount, "some requests were cut by the crash").toBeGreaterThan(0);

    // The gateway reconnects to the new engine by itself; wait until it answers, then give it prices again
    // (push prices are not journaled). The same prices: no resting order crosses them.
    const first = accounts[0] as (typeof accounts)[number];
    const deadline = Date.now() + 30_000;
    for (;;) {
      const answer = await send(first.key, "GET", `/v1/account/${first.id}`);
      if (answer.status === 200) break;
      if (Date.now() > deadline) throw new Error(`engine not reachable after restart: ${answer.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // The test's own market.v1 channel lost its connection too: retry until it has reconnected (to the new
    // engine's address when it moved).
    market.close();
    market = marketClient(target.engineGrpc(), target.internalToken);
    for (;;) {
      try {
        await market.push(PRICES);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    const specsOf = new Map(specs.map((spec) => [spec.clientId, spec]));
    /** client_id → the one order id seen for it anywhere (lists, replays); a second id is a duplicate. */
    const orderIdOf = new Map<string, string>();
    const seen = (clientId: unknown, orderId: unknown): void => {
      expect(typeof clientId, `order ${String(orderId)} has a client_id`).toBe("string");
      const spec = specsOf.get(String(clientId));
      expect(spec, `client_id ${String(clientId)} was sent`).toBeDefined();
      const known = orderIdOf.get(String(clientId));
      if (known === undefined) orderIdOf.set(String(clientId), String(orderId));
      else expect(orderId, `client_id ${String(clientId)} has one order`).toBe(known);
    };

    interface Snapshot {
      working: Row[];
      trades: Row[];
      positions: Row[];
      balance: number;
    }
    const snapshot = async (account: (typeof accounts)[number]): Promise<Snapshot> => {
      const [record, working, trades, positions] = await Promise.all([
        send(account.key, "GET", `/v1/account/${account.id}`),
        send(account.key, "GET", `/v1/account/${account.id}/orders`),
        send(account.key, "GET", `/v1/account/${account.id}/trades?limit=1000`),
        send(account.key, "GET", `/v1/account/${account.id}/positions`),
      ]);
      for (const answer of [record, working, trades, positions]) expect(answer.status).toBe(200);
      expect(trades.body.has_more).toBe(false);
      expect(record.body).toMatchObject({
        account_id: account.id,
        plan_id: PLAN_200K,
        label: account.record.label,
        created_at: account.record.created_at,
        starting_balance: STARTING_BALANCE,
      });
      return {
        working: working.body.data as Row[],
        trades: trades.body.data as Row[],
        positions: positions.body.data as Row[],
        balance: Number(record.body.balance),
      };
    };

    /** Balance = starting + Σ (realized − fee) of the journaled fills; positions = Σ signed fill quantities. */
    const checkMoney = (state: Snapshot): void => {
      const implied = state.trades.reduce(
        (sum, f) => sum + units(f.realized_pnl) - units(f.fee),
        units(STARTING_BALANCE),
      );
      expect(units(state.balance)).toBe(implied);
      for (const symbol of Object.keys(PRICES)) {
        const net = state.trades
          .filter((f) => f.symbol === symbol)
          .reduce((sum, f) => sum + (f.side === "BUY" ? 1 : -1) * Math.round(Number(f.quantity) * 1e4), 0);
        const rows = state.positions.filter((p) => p.symbol === symbol);
        const held = rows.reduce(
          (sum, p) => sum + (p.side === "BUY" ? 1 : -1) * Math.round(Number(p.quantity) * 1e4),
          0,
        );
        expect(held, `${symbol} position equals the fills`).toBe(net);
      }
    };

    // Second pass, before any retry: every acknowledged order is there, identical.
    let committedUnacked = 0;
    for (const account of accounts) {
      const state = await snapshot(account);
      const workingById = new Map(state.working.map((o) => [String(o.order_id), o]));
      const tradesById = new Map(state.trades.map((f) => [String(f.fill_id), f]));
      expect(tradesById.size, "no fill listed twice").toBe(state.trades.length);
      expect(new Set(state.working.map((o) => o.client_id)).size, "one working order per client_id").toBe(
        state.working.length,
      );
      for (const order of state.working) seen(order.client_id, order.order_id);
      for (const fill of state.trades) seen(fill.client_id, fill.order_id);

      const ackedHere = [...acked.values()].filter((a) => a.spec.accountId === account.id);
      const ackedFills = new Set<string>();
      for (const { spec, response } of ackedHere) {
        const order = orderOf(response);
        seen(spec.clientId, order.order_id);
        for (const fill of fillsOf(response)) {
          ackedFills.add(String(fill.fill_id));
          expect(tradesById.get(String(fill.fill_id)), `fill of ${spec.clientId}`).toEqual(fill);
        }
        if (WORKING.has(String(order.status))) {
          expect(workingById.get(String(order.order_id)), `working order ${spec.clientId}`).toEqual(order);
        } else {
          // A final order: DELETE answers its stored final state (200 CANCELED, else 409 order_final).
          expect(workingById.has(String(order.order_id))).toBe(false);
          const readBack = await send(account.key, "DELETE", `/v1/order/${String(order.order_id)}`);
          expect([200, 409]).toContain(readBack.status);
          expect(readBack.body.order, `final order ${spec.clientId}`).toEqual(order);
        }
      }
      // Fills of orders that were not acknowledged: their commit won the race with the kill, the answer lost.
      const extra = state.trades.filter((f) => !ackedFills.has(String(f.fill_id)));
      for (const fill of extra) expect(acked.has(String(fill.client_id))).toBe(false);
      committedUnacked += new Set([
        ...extra.map((f) => f.client_id),
        ...state.working.filter((o) => !acked.has(String(o.client_id))).map((o) => o.client_id),
      ]).size;
      checkMoney(state);
    }

    // Retry every client_id. Acknowledged: the original response again. Not acknowledged: replayed if it had
    // committed (the same order as listed), else created now, once.
    const retried = new Map<string, JsonResponse>();
    let created = 0;
    let replayedUnacked = 0;
    await Promise.all(
      Array.from({ length: 32 }, async (_, lane) => {
        for (let i = lane; i < specs.length; i += 32) {
          const spec = specs[i] as Spec;
          const answer = await send(spec.key, "POST", "/v1/order", spec.body);
          retried.set(spec.clientId, answer);
        }
      }),
    );
    for (const spec of specs) {
      const answer = retried.get(spec.clientId) as JsonResponse;
      const original = acked.get(spec.clientId);
      if (original !== undefined) {
        expect(answer.status, spec.clientId).toBe(200);
        expect(answer.headers.get("idempotent-replayed")).toBe("true");
        expect(answer.body, spec.clientId).toEqual(original.response.body);
        continue;
      }
      expect([200, 201], `${spec.clientId}: ${JSON.stringify(answer.body)}`).toContain(answer.status);
      const replay = answer.headers.get("idempotent-replayed") === "true";
      if (answer.status === 201) created++;
      else if (replay) replayedUnacked++;
      else expect(orderOf(answer).status, `${spec.clientId} 200 without replay is a rejection`).toBe("REJECTED");
      const known = orderIdOf.get(spec.clientId);
      if (answer.status === 201 || (answer.status === 200 && !replay)) {
        // Created now: nothing of it may have been journaled before.
        expect(known, `${spec.clientId} was already journaled, yet created again`).toBeUndefined();
      } else if (known !== undefined) {
        expect(orderOf(answer).order_id).toBe(known);
      }
      seen(spec.clientId, orderOf(answer).order_id);
    }
    // Every unacknowledged order found in the lists replayed (checked one by one above).
    expect(replayedUnacked).toBeGreaterThanOrEqual(committedUnacked);
    expect(created + replayedUnacked).toBeLessThanOrEqual(failedCount);

    // A second retry of everything: now every client_id replays the answer of the first time it succeeded.
    for (const spec of specs) {
      const answer = await send(spec.key, "POST", "/v1/order", spec.body);
      const firstAnswer = acked.get(spec.clientId)?.response ?? retried.get(spec.clientId);
      expect(answer.status, spec.clientId).toBe(200);
      expect(answer.headers.get("idempotent-replayed"), spec.clientId).toBe("true");
      expect(answer.body, spec.clientId).toEqual(firstAnswer?.body);
    }

    // Finally: one order per client_id everywhere, and the money still adds up.
    for (const account of accounts) {
      const state = await snapshot(account);
      expect(new Set(state.working.map((o) => o.client_id)).size).toBe(state.working.length);
      for (const order of state.working) seen(order.client_id, order.order_id);
      for (const fill of state.trades) seen(fill.client_id, fill.order_id);
      checkMoney(state);
    }
    expect(orderIdOf.size).toBe(REQUESTS);
    expect(new Set(orderIdOf.values()).size).toBe(REQUESTS);
  });
});
