// The `ftrade` command line against `npm start`: its main commands with --json (in process, through
// client/src/cli.ts's `main`), the installed `npx ftrade` bin once as a real process, tables for people, and
// credentials that are never printed and a profile file others can read refused.
import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servingNpmStart, type ServingNpmStart } from "../../test/harness/npm-start.js";
import { marketClient, type Market } from "../../test/harness/market.js";
import { main } from "../src/cli.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
const ROOT = path.resolve(import.meta.dirname, "..", "..");

let stack: ServingNpmStart;
let market: Market;
let env: NodeJS.ProcessEnv;
let dir: string;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function ftrade(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<Ran> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    env: { ...env, ...extra },
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const ran = await ftrade(["--json", ...args]);
  expect(ran.stderr).toBe("");
  expect(ran.code).toBe(0);
  return JSON.parse(ran.stdout) as T;
}

beforeAll(async () => {
  stack = await servingNpmStart({ PRICE_FEED: "push" });
  market = marketClient(stack.engineGrpc, stack.internalToken);
  await market.push({ "BTC-USD": 50_000, "ETH-USD": 2_500 });
  dir = mkdtempSync(path.join(tmpdir(), "ftrade-"));
  env = {
    FTRADE_URL: stack.gateways[0]?.v1 ?? "",
    FTRADE_API_URL: stack.gateways[0]?.api ?? "",
    FTRADE_USER_ID: "cli-user",
    FTRADE_PROFILE_FILE: path.join(dir, "absent.json"),
  };
});
afterAll(async () => {
  market?.close();
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("ftrade", () => {
  let secret: string;

  it("creates, lists and revokes keys, and trades with one from the environment without printing it", async () => {
    const created = await json<{ apiKey: { id: string }; key: string; secret: string }>([
      "keys",
      "create",
      "--label",
      "cli",
      "--permissions",
      "READ_ONLY,TRADE,MANAGE_ORDERS",
    ]);
    secret = created.secret;
    env.FTRADE_API_KEY = created.key;
    env.FTRADE_API_SECRET = created.secret;
    // Without --permissions a key may read, place and manage (cancel, amend) its orders.
    const spare = await json<{ apiKey: { id: string; permissions: string[] } }>(["keys", "create", "--label", "spare"]);
    expect(spare.apiKey.permissions).toEqual(["READ_ONLY", "TRADE", "MANAGE_ORDERS"]);
    const listed = await json<{ id: string }[]>(["keys", "list"]);
    expect(listed.map((k) => k.id).sort()).toEqual([created.apiKey.id, spare.apiKey.id].sort());
    expect(await json(["keys", "revoke", spare.apiKey.id])).toMatchObject({ id: spare.apiKey.id });
    expect((await json<{ id: string }[]>(["keys", "list"])).map((k) => k.id)).toEqual([created.apiKey.id]);

    const plans = await json<{ plan_id: string }[]>(["plans"]);
    expect(plans.map((p) => p.plan_id)).toContain(PLAN_10K);
    const tickers = await json<{ symbol: string }[]>(["tickers"]);
    expect(tickers.map((t) => t.symbol)).toContain("BTC-USD");

    const account = await json<{ account_id: string }>(["account", "open", "--plan", PLAN_10K, "--label", "cli"]);
    const id = account.account_id;
    expect(await json(["account", "show", id])).toMatchObject({ account_id: id, state: "ACTIVE" });
    expect(await json(["account", "summary", id])).toMatchObject({ account_id: id, balance: 10_000 });
    expect(await json(["account", "cancel-after", id, "60000"])).toMatchObject({ armed: true, timeout_ms: 60_000 });
    expect(await json(["account", "cancel-after", id])).toMatchObject({ armed: true, timeout_ms: 60_000 });
    expect(await json(["account", "cancel-after", id, "0"])).toMatchObject({ armed: false, deadline: null });

    const order = ["--account", id, "--symbol", "BTC-USD", "--side", "BUY", "--quantity", "0.02"];
    expect(await json(["order", "test", ...order])).toMatchObject({ result: "accepted", violations: [] });
    const rejected = await ftrade([
      "--json",
      "order",
      "test",
      "--account",
      id,
      "--symbol",
      "BTC-USD",
      "--side",
      "BUY",
      "--quantity",
      "100",
    ]);
    expect(rejected.code).toBe(2);
    expect(JSON.parse(rejected.stdout)).toMatchObject({ result: "rejected" });
    const filled = await json<{ result: string; order: { status: string } }>(["order", "place", ...order]);
    expect(filled).toMatchObject({ result: "accepted", order: { status: "FILLED" } });
    expect(await json<unknown[]>(["account", "positions", id])).toHaveLength(1);

    const resting = await json<{ order: { order_id: string } }>([
      "order",
      "place",
      "--account",
      id,
      "--symbol",
      "ETH-USD",
      "--side",
      "BUY",
      "--kind",
      "LIMIT",
      "--quantity",
      "0.1",
      "--price",
      "2000",
    ]);
    const orderId = resting.order.order_id;
    expect(await json(["order", "amend", orderId, "--price", "2100"])).toMatchObject({
      order_id: orderId,
      limit_price: 2100,
    });
    expect(await json(["order", "cancel", orderId])).toMatchObject({ order_id: orderId, status: "CANCELED" });
    expect(await json(["position", "close", "--account", id, "--symbol", "BTC-USD"])).toMatchObject({
      result: "accepted",
    });
    expect(await json<unknown[]>(["account", "trades", id])).toHaveLength(2);
    expect(await json(["order", "show", orderId])).toMatchObject({ order_id: orderId, status: "CANCELED" });
    const orders = await json<{ order_id: string }[]>(["account", "orders", id]);
    expect(orders.map((o) => o.order_id)).toContain(orderId);
    expect(orders).toHaveLength(3);
    expect(await json<unknown[]>(["breaches", id])).toEqual([]);
    expect(await json(["analytics", id])).toMatchObject({ closed_positions: 1 });

    const table = await ftrade(["account", "positions", id]);
    expect(table.stdout).toMatch(/^POSITION_ID\s+SYMBOL/);
    const trades = await ftrade(["account", "trades", id]);
    expect(trades.stdout.split("\n").filter((l) => l.includes("BTC-USD"))).toHaveLength(2);
    expect(table.stdout + trades.stdout).not.toContain(secret);

    // The bulk calls: cancel-all (of one symbol) and flatten.
    const limit = ["--account", id, "--side", "BUY", "--kind", "LIMIT", "--quantity", "0.1", "--price", "2000"];
    await json(["order", "place", "--symbol", "ETH-USD", ...limit]);
    const eth = await json<{ symbol: string; status: string }[]>([
      "order",
      "cancel-all",
      "--account",
      id,
      "--symbol",
      "ETH-USD",
    ]);
    expect(eth).toEqual([expect.objectContaining({ symbol: "ETH-USD", status: "CANCELED" })]);
    await json(["order", "place", "--symbol", "ETH-USD", ...limit]);
    await json(["order", "place", ...order]);
    const flat = await ftrade(["account", "flatten", id]);
    expect(flat.code).toBe(0);
    expect(flat.stdout).toMatch(/^canceled 1 order\(s\)\nSYMBOL\s+VENUE\s+STATUS/);
    expect(flat.stdout).toMatch(/BTC-USD\s+GMX\s+FILLED/);
    expect(flat.stdout.trimEnd().endsWith("flat")).toBe(true);
    expect(await json<unknown[]>(["account", "positions", id])).toEqual([]);
  });

  it("names a refused request's code and problems on stderr and exits 1, never echoing the secret", async () => {
    const ran = await ftrade([
      "order",
      "place",
      "--account",
      "not-a-uuid",
      "--symbol",
      "BTC-USD",
      "--side",
      "BUY",
      "--quantity",
      "x",
    ]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/^error: 400 invalid_payload/);
    const wrong = await ftrade(["tickers"], { FTRADE_API_SECRET: `${secret.slice(0, -1)}x` });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^error: 401 unauthorized/);
    expect(ran.stdout + ran.stderr + wrong.stdout + wrong.stderr).not.toContain(secret.slice(0, -1));
  });

  it("reads a profile file only its owner can read, and refuses one others can", async () => {
    const file = path.join(dir, "profiles.json");
    writeFileSync(
      file,
      JSON.stringify({ profiles: { bot: { url: env.FTRADE_URL, apiKey: env.FTRADE_API_KEY, apiSecret: secret } } }),
    );
    const profileEnv = { FTRADE_PROFILE_FILE: file, FTRADE_API_KEY: undefined, FTRADE_API_SECRET: undefined };
    chmodSync(file, 0o644);
    const refused = await ftrade(["--profile", "bot", "tickers"], profileEnv);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("readable by others");
    chmodSync(file, 0o600);
    const allowed = await ftrade(["--json", "--profile", "bot", "tickers"], profileEnv);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).not.toContain(secret);
  });

  it("announces each retry on stderr", async () => {
    let calls = 0;
    const flaky = createServer((_request, response) => {
      calls += 1;
      response.writeHead(calls === 1 ? 503 : 200, { "content-type": "application/json" });
      response.end(calls === 1 ? '{"error":"engine_unavailable"}' : '{"data":[]}');
    });
    await new Promise<void>((resolve) => flaky.listen(0, "127.0.0.1", resolve));
    try {
      const ran = await ftrade(["--json", "plans"], {
        FTRADE_URL: `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`,
      });
      expect(ran.code).toBe(0);
      expect(ran.stderr).toMatch(/^retrying GET \/v1\/plans in \d+\.\d s \(503\)\n$/);
      expect(JSON.parse(ran.stdout)).toEqual([]);
    } finally {
      flaky.close();
    }
  });

  it("runs as `npx ftrade` from the repository", async () => {
    const { stdout } = await promisify(execFile)("npx", ["ftrade", "--json", "plans"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: dir,
        FTRADE_URL: env.FTRADE_URL,
        FTRADE_API_KEY: env.FTRADE_API_KEY,
        FTRADE_API_SECRET: secret,
      },
    });
    expect((JSON.parse(stdout) as { plan_id: string }[]).map((p) => p.plan_id)).toContain(PLAN_10K);
  });
});
