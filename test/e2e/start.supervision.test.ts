// `npm start` heals a crashed child (docs/runbook.md, "npm start: supervision"): on the embedded default, the
// engine is killed with SIGKILL while orders keep coming; the supervisor starts it again, the gateway answers
// `503 engine_unavailable` with Retry-After meanwhile (never a 500, never a hang), `/readyz` is 200 again within
// the 15 s the single-host default promises, and every order acknowledged before or after the kill is there
// exactly once, with the books adding up. Then the wallet and the gateway are killed in turn and come back
// serving, and the stack still stops cleanly. A stack without restarts to spare stops and says why. A child whose
// supervisor died while the child was starting stops by itself once started.
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newKey, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import {
  launchNpmStart,
  readyOrKill,
  startedChild,
  supervisorLines,
  until,
  type NpmStart,
} from "../harness/npm-start.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const PLAN_200K = "15ef9280-770d-4664-9de7-93fcd7677a98";
const STARTING_BALANCE = 200_000;
const ACCOUNTS = 4;
const WORKERS = 8;
/** Orders acknowledged before the kill, and again after the engine is back, before the load ends. */
const ACKS_PER_PHASE = 40;
/** The bound for the single-host default: `/readyz` answers 200 again this soon after a kill -9. */
const READY_AGAIN_WITHIN_MS = 15_000;

type Row = Record<string, unknown>;
type Phase = "before" | "gap" | "after";

interface Placed {
  clientId: string;
  account: number;
  phase: Phase;
  response?: JsonResponse;
  error?: unknown;
}

/** Money as integer units of 1e-8 USD, so sums are exact. */
const units = (value: unknown): number => Math.round(Number(value) * 1e8);
const orderOf = (response: JsonResponse): Row => response.body.order as Row;
const fillsOf = (response: JsonResponse): Row[] => (response.body.fills as Row[] | undefined) ?? [];

/** Even: a buy limit resting far below the market (NEW); odd: a small market order that fills. */
function bodyFor(index: number, clientId: string, accountId: string): Row {
  const common = { account_id: accountId, client_id: clientId };
  if (index % 2 === 0) {
    return { ...common, symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: 1_000 };
  }
  return { ...common, symbol: "ETH-USD", side: index % 4 === 1 ? "BUY" : "SELL", kind: "MARKET", quantity: "0.01" };
}

const ready = async (base: string): Promise<boolean> => (await fetch(`${base}/readyz`)).status === 200;

describe("npm start heals a crashed child", () => {
  let stack: NpmStart;
  let key: CreatedKey;
  const accounts: { id: string; record: Row }[] = [];
  const placed: Placed[] = [];

  const send = (method: string, path: string, body?: unknown, as: CreatedKey = key): Promise<JsonResponse> =>
    v1(stack.v1Base, path, as, {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });

  /** Kills the child (SIGKILL), waits until its restart started and both listeners answer ready: ms from the kill. */
  const killAndWait = async (child: string): Promise<number> => {
    const before = await startedChild(stack, child);
    const killedAt = performance.now();
    process.kill(before.pid, "SIGKILL");
    await startedChild(stack, child, before.restarts);
    await until(
      async () => (await ready(stack.v1Base)) && (await ready(stack.api)),
      60_000,
      () => (stack.exitCode === undefined ? undefined : `npm start exited with ${String(stack.exitCode)}`),
      () => stack.output,
    );
    return performance.now() - killedAt;
  };

  beforeAll(async () => {
    stack = await launchNpmStart({ env: { RATE_LIMIT_MAX: "1000000" }, detached: true });
    await readyOrKill(stack);
    key = await newKey(stack.api, "healer", { label: "load", permissions: ["READ_ONLY", "TRADE"] });
    for (let i = 0; i < ACCOUNTS; i++) {
      const created = await send("POST", "/v1/account", { plan_id: PLAN_200K, label: `heal-${i}` });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      accounts.push({ id: String(created.body.account_id), record: created.body });
    }
  }, 120_000);

  afterAll(() => {
    const pid = stack.child.pid;
    if (stack.exitCode === undefined && pid !== undefined) process.kill(-pid, "SIGKILL");
    rmSync(stack.dataDir, { recursive: true, force: true });
  });

  it(
    "restarts a killed engine under load: 503 with Retry-After meanwhile, ready again, no acknowledged order lost",
    {
      timeout: 180_000,
    },
    async () => {
      let phase: Phase = "before";
      let done = false;
      let next = 0;
      const acks = { before: 0, gap: 0, after: 0 };
      const worker = async (): Promise<void> => {
        while (!done) {
          const index = next++;
          const account = index % ACCOUNTS;
          const clientId = `heal-${index}`;
          const entry: Placed = { clientId, account, phase };
          try {
            const accountId = (accounts[account] as { id: string }).id;
            entry.response = await send("POST", "/v1/order", bodyFor(index, clientId, accountId));
          } catch (error) {
            entry.error = error;
          }
          placed.push(entry);
          if (entry.response?.status === 201) acks[entry.phase]++;
          // A client that got 503 waits before its next order, as Retry-After asks.
          else await new Promise((r) => setTimeout(r, 1_000));
        }
      };
      const load = Promise.all(Array.from({ length: WORKERS }, worker));

      await until(
        () => Promise.resolve(acks.before >= ACKS_PER_PHASE),
        60_000,
        () => undefined,
        () => stack.output,
      );
      phase = "gap";
      const tookMs = await killAndWait("engine");
      phase = "after";
      await until(
        () => Promise.resolve(acks.after >= ACKS_PER_PHASE),
        60_000,
        () => undefined,
        () => stack.output,
      );
      done = true;
      await load;
      // The supervisor let the killed engine's leases go: its successor did not wait for them to expire.
      expect(stack.output).not.toContain("partitions leased by another live engine");
      expect(tookMs, "ms from the kill to /readyz 200 with the engine started again").toBeLessThan(
        READY_AGAIN_WITHIN_MS,
      );

      // Every request got an answer from the gateway: acknowledged, or 503 engine_unavailable with Retry-After.
      for (const entry of placed) {
        expect(entry.error, entry.clientId).toBeUndefined();
        const response = entry.response as JsonResponse;
        expect([201, 503], `${entry.clientId}: ${JSON.stringify(response.body)}`).toContain(response.status);
        if (response.status === 503) {
          expect(response.body).toEqual({ error: "engine_unavailable" });
          expect(response.headers.get("retry-after")).toBe("1");
        }
      }
      const unavailable = placed.filter((entry) => entry.response?.status === 503);
      expect(unavailable.length, "orders sent while the engine was down were answered 503").toBeGreaterThan(0);
      expect(acks.before + acks.gap + acks.after).toBe(placed.length - unavailable.length);

      await checkBooks();
    },
  );

  /** Every acknowledged order is there once (by id and in its account's lists), and the money adds up. */
  async function checkBooks(): Promise<void> {
    const acked = placed.filter((entry) => entry.response?.status === 201);
    for (const entry of acked) {
      const order = orderOf(entry.response as JsonResponse);
      const read = await send("GET", `/v1/order/${String(order.order_id)}`);
      expect(read.status, entry.clientId).toBe(200);
      expect((read.body.order as Row | undefined) ?? read.body).toMatchObject({
        order_id: order.order_id,
        client_id: entry.clientId,
      });
    }
    for (const [index, account] of accounts.entries()) {
      const [record, working, trades] = await Promise.all([
        send("GET", `/v1/account/${account.id}`),
        send("GET", `/v1/account/${account.id}/orders`),
        send("GET", `/v1/account/${account.id}/trades?limit=1000`),
      ]);
      for (const answer of [record, working, trades]) expect(answer.status).toBe(200);
      expect(trades.body.has_more).toBe(false);
      const workingRows = working.body.data as Row[];
      const fills = trades.body.data as Row[];
      // One order per client_id, whatever answered the request that placed it.
      const orderIdOf = new Map<string, string>();
      for (const row of [...workingRows, ...fills]) {
        const known = orderIdOf.get(String(row.client_id));
        if (known === undefined) orderIdOf.set(String(row.client_id), String(row.order_id));
        else expect(row.order_id, `client_id ${String(row.client_id)} has one order`).toBe(known);
      }
      expect(new Set(workingRows.map((o) => o.order_id)).size, "no working order listed twice").toBe(
        workingRows.length,
      );
      expect(new Set(fills.map((f) => f.fill_id)).size, "no fill listed twice").toBe(fills.length);
      const workingIds = new Set(workingRows.map((o) => String(o.order_id)));
      const fillIds = new Set(fills.map((f) => String(f.fill_id)));
      for (const entry of acked.filter((e) => e.account === index)) {
        const response = entry.response as JsonResponse;
        const order = orderOf(response);
        if (order.status === "NEW") expect(workingIds.has(String(order.order_id)), entry.clientId).toBe(true);
        for (const fill of fillsOf(response)) expect(fillIds.has(String(fill.fill_id)), entry.clientId).toBe(true);
      }
      const implied = fills.reduce((sum, f) => sum + units(f.realized_pnl) - units(f.fee), units(STARTING_BALANCE));
      expect(units(record.body.balance), "balance = start + the fills' realized P&L − fees").toBe(implied);
      expect(record.body).toMatchObject({ account_id: account.id, created_at: account.record.created_at });
    }
  }

  it(
    "restarts a killed wallet: /v1 keeps answering (200 or 503 wallet_unavailable), then keys are served again",
    {
      timeout: 120_000,
    },
    async () => {
      const statuses = new Set<number>();
      let back = false;
      const wallet = killAndWait("wallet");
      const reads = (async () => {
        while (!back) {
          const answer = await send("GET", `/v1/account/${(accounts[0] as { id: string }).id}`);
          statuses.add(answer.status);
          if (answer.status === 503) expect(answer.body).toEqual({ error: "wallet_unavailable" });
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      await wallet;
      back = true;
      await reads;
      expect([...statuses].filter((s) => s !== 200 && s !== 503)).toEqual([]);
      const another = await newKey(stack.api, "after-wallet", { label: "again", permissions: ["READ_ONLY", "TRADE"] });
      const accountId = (accounts[1] as { id: string }).id;
      expect((await send("GET", "/v1/tickers", undefined, another)).status).toBe(200);
      const order = await send("POST", "/v1/order", bodyFor(0, "after-wallet", accountId));
      expect(order.status, JSON.stringify(order.body)).toBe(201);
    },
  );

  it("restarts a killed gateway on the same ports, serving what was placed before", { timeout: 120_000 }, async () => {
    await killAndWait("gateway");
    const first = placed.find((entry) => entry.response?.status === 201 && entry.phase === "before");
    const order = orderOf(first?.response as JsonResponse);
    const read = await send("GET", `/v1/order/${String(order.order_id)}`);
    expect(read.status).toBe(200);
    const again = await send("POST", "/v1/order", bodyFor(2, "after-gateway", (accounts[2] as { id: string }).id));
    expect(again.status, JSON.stringify(again.body)).toBe(201);
  });

  it("still stops cleanly on SIGTERM, restarting nothing while it stops", { timeout: 60_000 }, async () => {
    stack.child.kill("SIGTERM");
    expect(await stack.exited, stack.output).toBe(0);
    const lines = supervisorLines(stack).map((line) => String(line.msg));
    const stopping = lines.indexOf("stopping");
    expect(stopping).toBeGreaterThan(0);
    expect(lines.slice(stopping)).toEqual([
      "stopping",
      "stopping gateway",
      "stopping engine",
      "stopping wallet",
      "stopped",
    ]);
    const restarts = lines.filter((msg) => msg.includes("; restarting in "));
    for (const child of ["engine", "wallet", "gateway"]) {
      expect(restarts.some((msg) => msg.startsWith(`${child} exited (SIGKILL); restarting in `))).toBe(true);
    }
    stack.lines.assertEachKeyOnce();
  });
});

const EXHAUSTED =
  /^gateway exited \(SIGKILL\); restarts exhausted: \d+ crashes within 60000 ms, at most 1 restarts allowed \(SUPERVISOR_RESTARTS_MAX\); stopping the stack$/;

describe("npm start without restarts to spare", () => {
  it("stops the whole stack with exit code 1 and a line naming the child", { timeout: 120_000 }, async () => {
    const stack = await launchNpmStart({ env: { SUPERVISOR_RESTARTS_MAX: "1" }, detached: true });
    try {
      // The gateway needs no database to start: the test need not wait for the whole stack.
      const first = await startedChild(stack, "gateway");
      process.kill(first.pid, "SIGKILL");
      process.kill((await startedChild(stack, "gateway", first.restarts)).pid, "SIGKILL");
      expect(await stack.exited, stack.output).toBe(1);
      const lines = supervisorLines(stack).map((line) => String(line.msg));
      expect(
        lines.some((msg) => EXHAUSTED.test(msg)),
        lines.join("\n"),
      ).toBe(true);
      expect(lines.at(-1)).toBe("stopped");
    } finally {
      const pid = stack.child.pid;
      if (stack.exitCode === undefined && pid !== undefined) process.kill(-pid, "SIGKILL");
      rmSync(stack.dataDir, { recursive: true, force: true });
    }
  });
});

describe("a supervised child whose supervisor is gone", () => {
  // A supervisor killed with SIGKILL closes its children's channels; one still starting then must not run on
  // unsupervised once it started (its `disconnect` came before anyone listened for it).
  it(
    "stops by itself once it started, when the channel closed while it was starting",
    { timeout: 60_000 },
    async () => {
      const child = spawn(process.execPath, ["--import", "tsx", "gateway/main.ts"], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? "",
          FTS_SUPERVISED: "1",
          HTTP_PORT: "0",
          WALLET_HTTP_PORT: "0",
          WALLET_GRPC_TARGET: "127.0.0.1:1",
          ENGINE_GRPC_TARGET: "127.0.0.1:1",
          LOG_LEVEL: "info",
        },
        stdio: ["ignore", "pipe", "pipe", "ipc"],
      });
      let output = "";
      child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      child.disconnect();
      try {
        expect(await exited, output).toBe(0);
        expect(output).toContain("gateway stopped");
      } finally {
        child.kill("SIGKILL");
      }
    },
  );
});
