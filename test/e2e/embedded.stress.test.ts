// The embedded default under concurrency, as a newcomer runs it: `npm start` with no PostgreSQL and no Redis
// (one PGlite session lent to one connection at a time, docs/embedded-database.md). Every answer is a status
// the interface documents for its route, never a 5xx, and the 10-key limit holds exactly.
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createKeySettled,
  newKey,
  settled,
  request,
  v1,
  type CreatedKey,
  type JsonResponse,
} from "../harness/client.js";
import { launchNpmStart, type NpmStart } from "../harness/npm-start.js";

const PLAN_200K = "15ef9280-770d-4664-9de7-93fcd7677a98";
const TRADER = { label: "stress", permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"] };

/** Runs `tasks` with at most `inFlight` of them at once. */
async function pool<T>(tasks: (() => Promise<T>)[], inFlight: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let i = next++; i < tasks.length; i = next++) results[i] = await (tasks[i] as () => Promise<T>)();
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return results;
}

/** A fixed shuffle (a small LCG), so a failure replays in the same order. */
function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  let seed = 17;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

interface Answer {
  route: string;
  status: number;
  body: Record<string, unknown>;
}

describe("npm start's embedded database under concurrent writes", () => {
  let stack: NpmStart;

  beforeAll(async () => {
    stack = await launchNpmStart();
    await stack.ready();
  });
  afterAll(async () => {
    stack.child.kill("SIGTERM");
    await stack.exited;
    rmSync(stack.dataDir, { recursive: true, force: true });
    stack.lines.assertEachKeyOnce();
  });

  // A create that runs out of time is 503 with Retry-After and did nothing (docs/decisions.md, "Key creation
  // under load"): sent again, every one of the 100 ends as 201 or 409, and no key exists that no caller saw.
  it("answers 100 parallel key creates for 5 users with exactly 50 × 201 and 50 × 409 key_limit_reached", async () => {
    const users = Array.from({ length: 5 }, (_, u) => `burst-${u}`);
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => createKeySettled(stack.api, users[i % 5] as string)),
    );
    const statuses = answers.map((a) => a.status);
    const unavailable = answers.reduce((n, a) => n + a.unavailable, 0);
    if (unavailable > 0) console.log(`key creates answered 503 and sent again: ${unavailable}`);
    expect(answers.filter((a) => a.status !== 201 && a.status !== 409)).toEqual([]);
    expect(statuses.filter((s) => s === 201)).toHaveLength(50);
    expect(statuses.filter((s) => s === 409)).toHaveLength(50);
    for (const answer of answers.filter((a) => a.status === 409)) {
      expect(answer.body).toMatchObject({ error: "key_limit_reached", limit: 10 });
    }
    for (const user of users) {
      const listed = await request(`${stack.api}/api/api-keys`, { headers: { "x-user-id": user } });
      expect(listed.status).toBe(200);
      expect(listed.body.apiKeys as unknown[]).toHaveLength(10);
    }
  });

  it(
    "answers 300 mixed writes at 64 in flight with documented statuses only, and exactly 10 keys per user",
    { timeout: 180_000 },
    async () => {
      const users = Array.from({ length: 5 }, (_, u) => `mixed-${u}`);
      const traders: CreatedKey[] = [];
      const accounts: { id: string; key: CreatedKey }[] = [];
      for (const user of users) {
        const key = await newKey(stack.api, user, TRADER);
        traders.push(key);
        for (let i = 0; i < 2; i++) {
          const opened = await v1(stack.v1Base, "/v1/account", key, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ plan_id: PLAN_200K }),
          });
          expect(opened.status).toBe(201);
          accounts.push({ id: String(opened.body.account_id), key });
        }
      }
      const tickers = await v1(stack.v1Base, "/v1/tickers", traders[0]);
      const btc = (tickers.body.data as { symbol: string; mark_price: number }[]).find((t) => t.symbol === "BTC-USD");
      const farBelow = Math.round((btc?.mark_price ?? 50_000) / 2);

      // A 503 (with Retry-After) is sent again: orders carry a client_id, cancels and closes are idempotent.
      const post = async (route: string, key: CreatedKey, body: unknown): Promise<Answer> => {
        const answer: JsonResponse = await settled(() =>
          v1(stack.v1Base, route, key, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
          }),
        );
        return { route: `POST ${route}`, status: answer.status, body: answer.body };
      };
      const tasks: (() => Promise<Answer[]>)[] = [];
      // 100 key creates: each user already has one key, so 9 of its 20 get 201 and 11 get 409.
      for (let i = 0; i < 100; i++) {
        tasks.push(async () => {
          const answer = await createKeySettled(stack.api, users[i % 5] as string);
          return [{ route: "POST /api/api-keys", status: answer.status, body: answer.body }];
        });
      }
      // 40 account opens.
      for (let i = 0; i < 40; i++) {
        tasks.push(async () => [await post("/v1/account", traders[i % 5] as CreatedKey, { plan_id: PLAN_200K })]);
      }
      // 50 MARKET orders, two symbols, both sides.
      for (let i = 0; i < 50; i++) {
        const account = accounts[i % accounts.length] as (typeof accounts)[number];
        tasks.push(async () => [
          await post("/v1/order", account.key, {
            account_id: account.id,
            symbol: i % 2 === 0 ? "BTC-USD" : "ETH-USD",
            side: i % 4 < 2 ? "BUY" : "SELL",
            kind: "MARKET",
            quantity: i % 2 === 0 ? "0.001" : "0.01",
            client_id: `market-${i}`,
          }),
        ]);
      }
      // 40 resting LIMIT orders, each cancelled by the next request: 80 requests.
      for (let i = 0; i < 40; i++) {
        const account = accounts[i % accounts.length] as (typeof accounts)[number];
        tasks.push(async () => {
          const placed = await post("/v1/order", account.key, {
            account_id: account.id,
            symbol: "BTC-USD",
            side: "BUY",
            kind: "LIMIT",
            quantity: "0.001",
            limit_price: farBelow,
            client_id: `rest-${i}`,
          });
          const order = placed.body.order as { order_id?: string } | undefined;
          const answer = await settled(() =>
            v1(stack.v1Base, `/v1/order/${String(order?.order_id)}`, account.key, { method: "DELETE" }),
          );
          return [placed, { route: "DELETE /v1/order/:id", status: answer.status, body: answer.body }];
        });
      }
      // 30 closes, racing the orders that open the positions (404 when there is none yet).
      for (let i = 0; i < 30; i++) {
        const account = accounts[i % accounts.length] as (typeof accounts)[number];
        tasks.push(async () => [
          await post("/v1/position/close", account.key, {
            account_id: account.id,
            symbol: i % 2 === 0 ? "BTC-USD" : "ETH-USD",
          }),
        ]);
      }

      const answers = (await pool(shuffled(tasks), 64)).flat();
      expect(answers).toHaveLength(300);
      const documented: Record<string, number[]> = {
        "POST /api/api-keys": [201, 409],
        "POST /v1/account": [201],
        "POST /v1/order": [200, 201],
        "DELETE /v1/order/:id": [200],
        "POST /v1/position/close": [200, 201, 404],
      };
      for (const answer of answers) {
        expect(documented[answer.route], `${answer.route} ${answer.status} ${JSON.stringify(answer.body)}`).toContain(
          answer.status,
        );
      }
      const keyAnswers = answers.filter((a) => a.route === "POST /api/api-keys");
      expect(keyAnswers.filter((a) => a.status === 201)).toHaveLength(45);
      for (const a of keyAnswers.filter((k) => k.status === 409)) expect(a.body.error).toBe("key_limit_reached");
      for (const a of answers.filter((x) => x.route === "DELETE /v1/order/:id")) {
        expect((a.body.order as { status: string }).status).toBe("CANCELED");
      }
      for (const user of users) {
        const listed = await request(`${stack.api}/api/api-keys`, { headers: { "x-user-id": user } });
        expect(listed.body.apiKeys as unknown[]).toHaveLength(10);
      }
      // Every account opened is there, readable by exactly one of the users (its owner).
      const opened = answers.filter((a) => a.route === "POST /v1/account").map((a) => String(a.body.account_id));
      expect(new Set(opened).size).toBe(40);
      for (const id of opened) {
        const reads = await Promise.all(traders.map((key) => v1(stack.v1Base, `/v1/account/${id}`, key)));
        expect(reads.map((r) => r.status).sort(), id).toEqual([200, 404, 404, 404, 404]);
      }
    },
  );
});
