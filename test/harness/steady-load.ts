// A steady trading load from many keys through a balancer (test/harness/balancer.ts), for tests and benchmarks
// of rolling restarts: each account runs one deterministic script, step after step at a fixed pace. Step i
// places a LIMIT buy resting far below the market (client_id `L<i>`), cancels the previous step's LIMIT on odd
// steps (and the oldest working one while more than 100 work), places a MARKET order of alternating side
// (`M<i>`, filled at the pushed price), and reads the LIMIT order and the account's summary. Every answer must
// be the documented success; anything else (a 5xx, a connection error) is recorded as a failure. With fixed
// prices (PRICE_FEED=push) the same script leaves the same books on any account of the same plan, which
// `books` reads for comparison.
import type { Balancer } from "./balancer.js";
import { errorCode } from "./balancer.js";
import type { CreatedKey } from "./client.js";

export interface LoadAccount {
  key: CreatedKey;
  account: string;
}

export interface Sent {
  /** When it was sent (performance.now(), ms) and how long its answer took (ms). */
  at: number;
  ms: number;
  ok: boolean;
  /** What it was and what it got, when not ok. */
  failure?: string;
}

/** What one account's run did. */
export interface AccountRun {
  steps: number;
  /** Order ids answered 201, in order. */
  placed: string[];
}

export interface LoadResult {
  runs: Map<string, AccountRun>;
  sent: Sent[];
  /** Each request that did not get its documented success: what it was and what it got. */
  failures: string[];
}

export interface LoadOptions {
  /** Between the starts of two steps of one account (default 250 ms). */
  paceMs?: number;
  /** Whether the account runs step `step` (numbered from 0); checked before each step. */
  more: (who: LoadAccount, step: number) => boolean;
}

/** A load running: what it did so far, and a promise that resolves with it once every account stopped. */
export interface RunningLoad {
  result: LoadResult;
  done: Promise<LoadResult>;
}

type Json = Record<string, unknown>;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends one request of `who` through the balancer; resolves with its status and JSON body, or a failure. */
async function send(
  balancer: Balancer,
  who: LoadAccount,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json } | { error: string }> {
  const headers: Record<string, string> = { "x-api-key": who.key.key, "x-api-secret": who.key.secret };
  if (body !== undefined) headers["content-type"] = "application/json";
  try {
    const init: RequestInit = { method, headers };
    if (body !== undefined) init.body = JSON.stringify(body);
    const { response } = await balancer.fetch(path, init);
    const text = await response.text();
    return { status: response.status, body: text === "" ? {} : (JSON.parse(text) as Json) };
  } catch (error) {
    return { error: errorCode(error) };
  }
}

/** Runs the script on every account at once. */
export function startLoad(balancer: Balancer, accounts: LoadAccount[], options: LoadOptions): RunningLoad {
  const result: LoadResult = { runs: new Map(), sent: [], failures: [] };
  for (const who of accounts) result.runs.set(who.account, { steps: 0, placed: [] });
  const paceMs = options.paceMs ?? 250;
  const call = async (who: LoadAccount, what: string, expect: number, method: string, path: string, body?: unknown) => {
    const at = performance.now();
    const answer = await send(balancer, who, method, path, body);
    const ok = "status" in answer && answer.status === expect;
    const sent: Sent = { at, ms: performance.now() - at, ok };
    if (!ok) {
      sent.failure = `${what} ${who.account}: ${JSON.stringify(answer)}`;
      result.failures.push(sent.failure);
    }
    result.sent.push(sent);
    return ok && "body" in answer ? answer.body : undefined;
  };
  const done = Promise.all(
    accounts.map(async (who, n) => {
      const run = result.runs.get(who.account) as AccountRun;
      const working: string[] = [];
      // Spread the accounts over one pace, so that the load is steady rather than in waves.
      await sleep((paceMs * n) / accounts.length);
      for (let step = 0; options.more(who, step); step++) {
        const started = performance.now();
        const limit = await call(who, `place L${step}`, 201, "POST", "/v1/order", {
          account_id: who.account,
          symbol: "BTC-USD",
          side: "BUY",
          kind: "LIMIT",
          quantity: "0.01",
          limit_price: "1000",
          client_id: `L${step}`,
        });
        const limitId = limit === undefined ? undefined : String((limit.order as Json).order_id);
        if (limitId !== undefined) run.placed.push(limitId);
        const cancels: string[] = [];
        if (step % 2 === 1) cancels.push(...working.splice(-1, 1));
        if (working.length > 100) cancels.push(...working.splice(0, 1));
        if (limitId !== undefined) working.push(limitId);
        for (const id of cancels) await call(who, `cancel ${id}`, 200, "DELETE", `/v1/order/${id}`);
        const market = await call(who, `place M${step}`, 201, "POST", "/v1/order", {
          account_id: who.account,
          symbol: "BTC-USD",
          side: step % 2 === 0 ? "BUY" : "SELL",
          kind: "MARKET",
          // 50 USD: the book's first level (250,000 USD per side, renewed only by a price update, and prices
          // are pushed once) then fills thousands of these per engine, so every fill is at the mark.
          quantity: "0.001",
          client_id: `M${step}`,
        });
        if (market !== undefined) run.placed.push(String((market.order as Json).order_id));
        if (limitId !== undefined) await call(who, `read ${limitId}`, 200, "GET", `/v1/order/${limitId}`);
        await call(who, "summary", 200, "GET", `/v1/account/${who.account}/summary`);
        run.steps = step + 1;
        await sleep(Math.max(0, paceMs - (performance.now() - started)));
      }
    }),
  ).then(() => result);
  return { result, done };
}

/** Ids and times name a particular account, order or moment; books compare without them (client_id stays). */
function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (typeof value !== "object" || value === null) return value;
  const kept: Json = {};
  for (const [key, field] of Object.entries(value as Json)) {
    if (key !== "client_id" && (key === "id" || key.endsWith("_id") || key.endsWith("_at") || key === "as_of"))
      continue;
    kept[key] = strip(field);
  }
  return kept;
}

/** Every order of the account's history (all pages), oldest first. */
export async function orderHistory(balancer: Balancer, who: LoadAccount): Promise<Json[]> {
  const orders: Json[] = [];
  let page = `/v1/account/${who.account}/orders/history?limit=500`;
  const to = new Date(Date.now() + 60_000).toISOString();
  for (;;) {
    const answer = await send(balancer, who, "GET", `${page}&to=${encodeURIComponent(to)}`);
    if (!("status" in answer) || answer.status !== 200) throw new Error(`history: ${JSON.stringify(answer)}`);
    const data = answer.body.data as Json[];
    orders.push(...data);
    const last = data.at(-1);
    if (answer.body.has_more !== true || last === undefined) return orders;
    const from = encodeURIComponent(String(last.created_at));
    page = `/v1/account/${who.account}/orders/history?limit=500&from=${from}&after_id=${String(last.order_id)}`;
  }
}

/**
 * The account's books without ids and times: its summary, positions, working orders and every order of its
 * history, orders sorted by client_id.
 */
export async function books(balancer: Balancer, who: LoadAccount): Promise<Json> {
  const read = async (path: string): Promise<Json> => {
    const answer = await send(balancer, who, "GET", path);
    if (!("status" in answer) || answer.status !== 200) throw new Error(`${path}: ${JSON.stringify(answer)}`);
    return answer.body;
  };
  const byClientId = (orders: Json[]): unknown[] =>
    [...orders].sort((a, b) => String(a.client_id).localeCompare(String(b.client_id))).map(strip);
  return {
    summary: strip(await read(`/v1/account/${who.account}/summary`)),
    positions: strip((await read(`/v1/account/${who.account}/positions`)).data),
    working: byClientId((await read(`/v1/account/${who.account}/orders`)).data as Json[]),
    history: byClientId(await orderHistory(balancer, who)),
  };
}
