// `npm run bench:engine`: how fast the engine takes orders, against what this architecture can do at all.
//   1. Pure core, one thread: the engine's actor (decide → apply → book depth) in a worker thread started as
//      the shards start theirs (resourceLimits.maxYoungGenerationSizeMb: 64), for resting LIMIT orders,
//      MARKET orders that fill, a mix with cancels, and LIMIT plus the shard shell's CPU work
//      (scripts/bench-engine-core.ts). Orders/s median, min, max over the measured rounds.
//   2. Ceilings, each server in its own child process (scripts/bench-engine-server.ts): bare node:http with a
//      constant JSON answer, and the architecture's own ceiling: an Express 5 route making one grpc-js unary
//      call to a separate grpc-js process that answers a constant.
//   3. End to end: the real wallet, engine and gateway processes (test/harness/stack.ts) on a throwaway
//      PostgreSQL and Redis, prices pushed over market.v1, the gateway's rate limit raised out of the way.
//      Closed-loop POST /v1/order at 64 connections for resting LIMIT orders and, separately, MARKET orders
//      that fill; then an open loop at half the measured LIMIT maximum, p50/p99/max and errors.
// Every HTTP figure uses the same load generator in this process (scripts/bench-engine-load.ts) and the same
// request, and the rounds of the four targets are interleaved (order reversed every other round), so load
// from elsewhere on the machine lands on all of them alike. CPU time of every process tree is read from /proc
// around each round, to split a request's cost by process.
// Prints a table and writes bench/engine-results.json. The targets are reported, not asserted.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { newKey, v1, type CreatedKey } from "../test/harness/client.js";
import { marketClient, type Market } from "../test/harness/market.js";
import { startPostgres } from "../test/harness/postgres.js";
import { startRedis } from "../test/harness/redis.js";
import { startStack, type Stack } from "../test/harness/stack.js";
import type { CoreBenchOptions, CoreBenchResult, CoreMessage } from "./bench-engine-core.js";
import {
  childProcesses,
  closedLoop,
  median,
  openLoop,
  round,
  sampleCpu,
  type CpuSample,
  type HttpTarget,
  type RunResult,
} from "./bench-engine-load.js";
import type { ServerMessage, ServerRole } from "./bench-engine-server.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SERVER_SCRIPT = path.join(ROOT, "scripts", "bench-engine-server.ts");
const CORE_SCRIPT = path.join(ROOT, "scripts", "bench-engine-core.ts");
const RESULTS_FILE = path.join(ROOT, "bench", "engine-results.json");

/** Challenge 200K: margin enough for every order below (the pure core and end to end use the same). */
const PLAN_ID = "15ef9280-770d-4664-9de7-93fcd7677a98";
const SYMBOL = "BTC-USD";
const MARK = 50_000;
/** 10 steps of 0.0001: 50 USD at the mark, fills at level 0–2 of a book of ~26,000 steps per level. */
const QUANTITY = "0.001";
/** Resting limits far from the mark: they never fill while the mark moves by a tick. */
const BUY_LIMIT = "25000";
const SELL_LIMIT = "100000";

const CORE: CoreBenchOptions = {
  role: "bench-engine-core",
  accounts: 1_000,
  commandsPerRound: 100_000,
  rounds: 5,
  warmupRounds: 1,
  updateEvery: 10_000,
  planId: PLAN_ID,
  symbol: SYMBOL,
  markTicks: MARK * 10,
  quantity: QUANTITY,
  buyLimit: BUY_LIMIT,
  sellLimit: SELL_LIMIT,
};
/** As engine/shard/runtime.ts gives every shard thread. */
const SHARD_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 64 };

const CONNECTIONS = 64;
const ROUNDS = 5;
const ROUND_MS = 3_000;
const WARMUP_MS = { ceiling: 2_000, e2e: 3_000 };
const OPEN_LOOP_MS = 10_000;
/** Accounts spread the load: each gets a few orders per second at the rates expected here. */
const E2E_USERS = 16;
const ACCOUNTS_PER_USER = 32;
/** One in this many answers has its body parsed and checked. */
const CHECK_EVERY = 25;
/** A price feed during the end-to-end runs, as PRICE_FEED=simulator would send (SIMULATOR_INTERVAL_MS). */
const FEED_INTERVAL_MS = 1_000;
/** Longest wait for a server, PostgreSQL, Redis or the stack to start. */
const START_TIMEOUT_MS = 180_000;

const TARGETS = {
  corePerSecond: 300_000,
  e2eShareOfCeiling: 0.75,
  p99AtHalfMaxMs: 20,
};

// ---------------------------------------------------------------- clean-up, whatever happens

const cleanups: { name: string; run: () => Promise<void> }[] = [];
/** For the report of a failure: what the stack's processes printed. */
let activeStack: Stack | undefined;
let cleaning: Promise<void> | undefined;

function onCleanup(name: string, run: () => Promise<void>): void {
  cleanups.push({ name, run });
}

function cleanupAll(): Promise<void> {
  cleaning ??= (async () => {
    for (let next = cleanups.pop(); next !== undefined; next = cleanups.pop()) {
      try {
        await next.run();
      } catch (error) {
        process.stderr.write(`clean-up of ${next.name} failed: ${errorText(error)}\n`);
      }
    }
  })();
  return cleaning;
}

/** Resolves `promise`, or rejects after `ms` (the timer does not keep the process alive). */
function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${what} did not finish within ${ms / 1000} s`));
    }, ms);
    timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * Registers the clean-up of something still starting, and bounds its start: a failure or signal during the
 * start waits a little for it to settle (the harness stops what it started when its start fails), then
 * stops it; whatever is still running after that is killed by `killLeftChildren`.
 */
function stoppedAtCleanup<T extends { stop(): Promise<void> }>(name: string, starting: Promise<T>): Promise<T> {
  starting.catch(() => undefined);
  onCleanup(name, async () => {
    const started = await withTimeout(starting, 15_000, `${name} start`).catch(() => undefined);
    await started?.stop();
  });
  return withTimeout(starting, START_TIMEOUT_MS, `${name} start`);
}

/** A throwaway directory of the harness (under the temp dir, with its prefix), or undefined. */
function harnessDir(dir: string | undefined, prefix: string): string | undefined {
  if (dir === undefined) return undefined;
  const resolved = path.resolve(dir);
  return path.dirname(resolved) === path.resolve(os.tmpdir()) && path.basename(resolved).startsWith(prefix)
    ? resolved
    : undefined;
}

/**
 * Last resort after the clean-ups: child processes of this one still running are killed by pid (a detached
 * PostgreSQL by its process group), and the harness directories they name are removed.
 */
function killLeftChildren(): void {
  for (const { pid, cmdline } of childProcesses()) {
    // tsx's compiler service ends with this process; an empty command line is a process already exiting.
    if (cmdline.includes("esbuild") || cmdline.trim() === "") continue;
    process.stderr.write(`killing left-over child ${pid}: ${cmdline.slice(0, 120)}\n`);
    let dir: string | undefined;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
      dir = harnessDir(environ.find((entry) => entry.startsWith("DATA_DIR="))?.slice("DATA_DIR=".length), "fts-stack-");
    } catch {
      // gone meanwhile
    }
    const postgres = cmdline.includes("postgres");
    if (postgres) dir = harnessDir(/ -k (\S+)/.exec(cmdline)?.[1], "fts-pg-");
    try {
      process.kill(postgres ? -pid : pid, "SIGKILL");
    } catch {
      // already gone
    }
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

let signalled = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (signalled) return;
    signalled = true;
    process.stderr.write(`\n${signal}: stopping everything this run started\n`);
    void cleanupAll()
      .then(killLeftChildren)
      .finally(() => process.exit(130));
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

const say = (line: string): void => {
  process.stdout.write(line + "\n");
};
const fmt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "-");

// ---------------------------------------------------------------- 1. the pure core in a shard-like thread

async function benchCore(): Promise<CoreBenchResult> {
  // tsx cannot start a .ts worker file on Node 20: the thread registers tsx, then imports the module.
  const code = [
    `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})`,
    `.then((tsx) => { tsx.register(); return import(${JSON.stringify(pathToFileURL(CORE_SCRIPT).href)}); })`,
  ].join("");
  const worker = new Worker(code, { eval: true, workerData: CORE, resourceLimits: SHARD_RESOURCE_LIMITS });
  onCleanup("core worker", async () => {
    await worker.terminate();
  });
  return new Promise<CoreBenchResult>((resolve, reject) => {
    let result: CoreBenchResult | undefined;
    worker.on("message", (message: CoreMessage) => {
      if (message.type === "progress") say(message.line);
      else result = message.result;
    });
    worker.once("error", reject);
    worker.once("exit", (code) => {
      if (result !== undefined) resolve(result);
      else reject(new Error(`the core worker exited with code ${code} and no result`));
    });
  });
}

// ---------------------------------------------------------------- 2. ceiling servers

interface ServerChild {
  role: ServerRole;
  pid: number;
  port: number;
}

async function startServer(role: ServerRole, env: Record<string, string> = {}): Promise<ServerChild> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", SERVER_SCRIPT, role], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      resolve();
    });
  });
  onCleanup(`${role} server`, async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.kill("SIGTERM");
    await exited;
    clearTimeout(timer);
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${role} server not ready within 60 s`));
    }, 60_000);
    child.once("message", (message: ServerMessage) => {
      clearTimeout(timer);
      if (message.type === "ready") resolve(message.port);
      else reject(new Error(`${role} server failed: ${message.message}`));
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${role} server exited with code ${String(code)}`));
    });
  });
  if (child.pid === undefined) throw new Error(`${role} server has no pid`);
  return { role, pid: child.pid, port };
}

// ---------------------------------------------------------------- 3. the real stack

interface BenchAccount {
  accountId: string;
  key: CreatedKey;
}

interface E2eSetup {
  stack: Stack;
  market: Market;
  accounts: BenchAccount[];
  setupSeconds: number;
}

async function inParallel(count: number, limit: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}

async function startE2e(): Promise<E2eSetup> {
  const started = performance.now();
  const postgres = await stoppedAtCleanup("postgres", startPostgres());
  const redis = await stoppedAtCleanup("redis", startRedis());
  const stack = await stoppedAtCleanup(
    'the stack (startStack waits for the "listening" log line of every process)',
    startStack({
      databaseUrl: postgres.url,
      redisUrl: redis.url,
      // info, not warn: the harness reads the ports from the "listening" lines; per-request logs are debug.
      env: { PRICE_FEED: "push", LOG_LEVEL: "info" },
      gatewayEnv: { RATE_LIMIT_MAX: "100000000" },
    }),
  );
  activeStack = stack;
  const market = marketClient(stack.engineGrpc);
  onCleanup("market client", () => {
    market.close();
    return Promise.resolve();
  });
  const gateway = stack.gateways[0];
  if (gateway === undefined) throw new Error("no gateway");
  await market.push({ [SYMBOL]: MARK });

  const keys: CreatedKey[] = [];
  await inParallel(E2E_USERS, 4, async (u) => {
    keys[u] = await newKey(gateway.api, `bench-user-${u}`, { label: "bench", permissions: ["READ_ONLY", "TRADE"] });
  });
  const accounts: BenchAccount[] = [];
  await inParallel(E2E_USERS * ACCOUNTS_PER_USER, 16, async (i) => {
    const key = keys[i % E2E_USERS];
    if (key === undefined) throw new Error("missing key");
    const created = await v1(gateway.v1, "/v1/account", key, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ plan_id: PLAN_ID, label: `bench ${i}` }),
    });
    if (created.status !== 201) throw new Error(`account creation: ${created.status} ${JSON.stringify(created.body)}`);
    accounts[i] = { accountId: String(created.body.account_id), key };
  });
  return { stack, market, accounts, setupSeconds: round((performance.now() - started) / 1000, 1) };
}

/** Pushes a price every FEED_INTERVAL_MS (the mark moves by one tick) while end-to-end runs are on. */
class Feed {
  pushes = 0;
  failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private tick = 0;

  constructor(private readonly market: Market) {}

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      this.tick ^= 1;
      this.market.push({ [SYMBOL]: MARK + this.tick / 10 }).then(
        () => this.pushes++,
        () => this.failures++,
      );
    }, FEED_INTERVAL_MS);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

// ---------------------------------------------------------------- the requests

type OrderKind = "LIMIT" | "MARKET";

/** POST /v1/order requests over the accounts round-robin, a fresh client_id each, sides alternating per account. */
function orderTarget(
  name: string,
  port: number,
  accounts: readonly BenchAccount[],
  kind: OrderKind,
  check: boolean,
): HttpTarget {
  const runTag = Date.now().toString(36);
  const sides = new Uint32Array(accounts.length);
  const heads = accounts.map(
    (a) =>
      `POST /v1/order HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
      `x-api-key: ${a.key.key}\r\nx-api-secret: ${a.key.secret}\r\n`,
  );
  const expectStatus = kind === "LIMIT" ? "NEW" : "FILLED";
  return {
    name,
    host: "127.0.0.1",
    port,
    expectStatus: 201,
    checkEvery: check ? CHECK_EVERY : 0,
    request(seq) {
      const i = seq % accounts.length;
      const account = accounts[i];
      if (account === undefined) throw new Error("no account");
      const buy = (sides[i] = (sides[i] ?? 0) + 1) % 2 === 1;
      const side = buy ? "BUY" : "SELL";
      const price = kind === "LIMIT" ? `,"limit_price":"${buy ? BUY_LIMIT : SELL_LIMIT}"` : "";
      const body =
        `{"account_id":"${account.accountId}","symbol":"${SYMBOL}","side":"${side}","kind":"${kind}",` +
        `"quantity":"${QUANTITY}"${price},"client_id":"${name}-${runTag}-${seq}"}`;
      return `${heads[i] ?? ""}Content-Length: ${body.length}\r\n\r\n${body}`;
    },
    check(body) {
      const parsed = JSON.parse(body) as { order?: { status?: string }; violations?: unknown[] };
      if (parsed.order?.status !== expectStatus || (parsed.violations?.length ?? 0) !== 0) {
        return `expected ${expectStatus} without violations: ${body.slice(0, 300)}`;
      }
      return undefined;
    },
  };
}

// ---------------------------------------------------------------- CPU split by process

type Label = string;

function labelProcesses(): Map<number, Label> {
  const labels = new Map<number, Label>();
  for (const { pid, cmdline } of childProcesses()) {
    const server = /bench-engine-server\.ts (\w+)/.exec(cmdline)?.[1];
    const label =
      server !== undefined
        ? `${server} server`
        : cmdline.includes("gateway/main.ts")
          ? "gateway"
          : cmdline.includes("engine/main.ts")
            ? "engine"
            : cmdline.includes("wallet/main.ts")
              ? "wallet"
              : cmdline.includes("redis-server")
                ? "redis"
                : cmdline.includes("postgres")
                  ? "postgres"
                  : "other";
    labels.set(pid, label);
  }
  return labels;
}

function cpuDelta(before: CpuSample, after: CpuSample): Record<Label, number> {
  const delta: Record<Label, number> = {};
  for (const [label, seconds] of after) delta[label] = seconds - (before.get(label) ?? 0);
  return delta;
}

interface Measured {
  run: RunResult;
  /** CPU seconds per process tree during the run. */
  cpu: Record<Label, number>;
}

async function measure(labels: Map<number, Label>, run: () => Promise<RunResult>): Promise<Measured> {
  const before = sampleCpu(labels);
  const result = await run();
  return { run: result, cpu: cpuDelta(before, sampleCpu(labels)) };
}

/** The processes that serve each target; every other process of this run is summed as "idle others". */
const SERVING: Record<string, readonly Label[]> = {
  bare: ["http server"],
  ceiling: ["express server", "grpc server"],
  "e2e-limit": ["gateway", "engine", "wallet", "postgres", "redis"],
  "e2e-market": ["gateway", "engine", "wallet", "postgres", "redis"],
};
const IDLE = "idle others";

/** CPU µs per request and % of one core by process (serving ones by name, the rest summed). */
function cpuSplit(
  target: string,
  runs: readonly { cpu: Record<Label, number>; completed: number; seconds: number }[],
): { usPerRequest: Record<Label, number>; percent: Record<Label, number> } {
  const serving = SERVING[target] ?? [];
  const group = (cpu: Record<Label, number>): Record<Label, number> => {
    const grouped: Record<Label, number> = {};
    for (const [label, seconds] of Object.entries(cpu)) {
      const key = serving.includes(label) ? label : IDLE;
      grouped[key] = (grouped[key] ?? 0) + seconds;
    }
    return grouped;
  };
  const grouped = runs.map((r) => ({ ...r, cpu: group(r.cpu) }));
  const usPerRequest: Record<Label, number> = {};
  const percent: Record<Label, number> = {};
  for (const label of [...serving, IDLE]) {
    usPerRequest[label] = round(median(grouped.map((r) => ((r.cpu[label] ?? 0) * 1e6) / Math.max(1, r.completed))), 1);
    percent[label] = round(median(grouped.map((r) => ((r.cpu[label] ?? 0) / r.seconds) * 100)), 1);
  }
  return { usPerRequest, percent };
}

/**
 * What the machine's cores could serve if this run had them to itself: cores / (client + serving CPU per
 * request); and the busiest serving process with its own bound (one thread for the Node processes).
 */
function cpuBound(usPerRequest: Record<Label, number>, clientUs: number) {
  let total = clientUs;
  let busiest: Label = "";
  let busiestUs = 0;
  for (const [label, us] of Object.entries(usPerRequest)) {
    if (label === IDLE) continue;
    total += us;
    if (us > busiestUs) {
      busiest = label;
      busiestUs = us;
    }
  }
  return {
    cpuUsPerRequest: round(total, 1),
    coresBoundPerSecond: Math.round((os.cpus().length * 1e6) / total),
    busiest,
    busiestBoundPerSecond: Math.round(1e6 / busiestUs),
  };
}

interface TargetSummary {
  target: string;
  description: string;
  rounds: number[];
  medianPerSecond: number;
  minPerSecond: number;
  maxPerSecond: number;
  /** Medians over rounds. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
  firstError: string | undefined;
  clientCpuUsPerRequest: number;
  /** CPU µs per request by process (medians over rounds), and % of one core at the median round. */
  serverCpuUsPerRequest: Record<Label, number>;
  serverCpuPercent: Record<Label, number>;
  bound: ReturnType<typeof cpuBound>;
  runs: RunResult[];
}

function summarize(target: string, description: string, measured: readonly Measured[]): TargetSummary {
  const rates = measured.map((m) => m.run.requestsPerSecond);
  const { usPerRequest, percent } = cpuSplit(
    target,
    measured.map((m) => ({ cpu: m.cpu, completed: m.run.completed, seconds: m.run.durationMs / 1000 })),
  );
  const clientUs = round(median(measured.map((m) => m.run.clientCpuUsPerRequest)), 1);
  return {
    target,
    description,
    rounds: rates,
    medianPerSecond: Math.round(median(rates)),
    minPerSecond: Math.min(...rates),
    maxPerSecond: Math.max(...rates),
    p50Ms: round(median(measured.map((m) => m.run.latency.p50Ms))),
    p99Ms: round(median(measured.map((m) => m.run.latency.p99Ms))),
    maxMs: round(Math.max(...measured.map((m) => m.run.latency.maxMs))),
    errors: measured.reduce((s, m) => s + m.run.errors, 0),
    firstError: measured.find((m) => m.run.firstError !== undefined)?.run.firstError,
    clientCpuUsPerRequest: clientUs,
    serverCpuUsPerRequest: usPerRequest,
    serverCpuPercent: percent,
    bound: cpuBound(usPerRequest, clientUs),
    runs: measured.map((m) => m.run),
  };
}

function openSummary(id: string, measured: Measured, description: string) {
  const { run, cpu } = measured;
  const { usPerRequest, percent } = cpuSplit(id, [{ cpu, completed: run.completed, seconds: run.durationMs / 1000 }]);
  return {
    target: run.target,
    description,
    rate: run.targetRate ?? 0,
    achievedPerSecond: run.requestsPerSecond,
    durationMs: run.durationMs,
    completed: run.completed,
    errors: run.errors,
    statuses: run.statuses,
    firstError: run.firstError,
    maxBacklog: run.maxBacklog ?? 0,
    latency: run.latency,
    clientCpuUsPerRequest: run.clientCpuUsPerRequest,
    serverCpuUsPerRequest: usPerRequest,
    serverCpuPercent: percent,
  };
}

// ---------------------------------------------------------------- report

function table(rows: (string | number)[][]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => String(row[c] ?? "").length))) ?? [];
  const line = (row: (string | number)[]): string =>
    `| ${row.map((cell, c) => String(cell).padEnd(widths[c] ?? 0)).join(" | ")} |`;
  const [head, ...body] = rows;
  if (head === undefined) return "";
  return [line(head), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...body.map(line)].join("\n");
}

const cpuText = (cpu: Record<Label, number>): string =>
  Object.entries(cpu)
    .filter(([label]) => label !== IDLE)
    .sort((a, b) => b[1] - a[1])
    .map(([label, us]) => `${label} ${us}`)
    .join(", ");

async function main(): Promise<void> {
  const started = performance.now();
  const loadAverage = (): string =>
    os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  const loadStart = loadAverage();
  const cpuModel = os.cpus()[0]?.model ?? "unknown";
  say(`bench:engine on Node ${process.version}, ${os.cpus().length} × ${cpuModel}, load average ${loadStart}`);

  // 1. The pure core, alone on the machine as far as this run goes.
  say(
    `core: worker thread with resourceLimits ${JSON.stringify(SHARD_RESOURCE_LIMITS)} (as the shards), ` +
      `${fmt(CORE.commandsPerRound)} commands per round over ${fmt(CORE.accounts)} accounts`,
  );
  const core = await benchCore();
  // `--only=core`: the core figures as JSON, no servers, no report file (for profiling).
  if (process.argv.includes("--only=core")) {
    say(JSON.stringify(core, null, 2));
    return;
  }

  // 2 + 3. Every server up before the first measured request.
  say("starting the ceiling servers and the stack (PostgreSQL, Redis, wallet, engine, gateway)...");
  const grpcServer = await startServer("grpc");
  const [httpServer, expressServer, e2e] = await Promise.all([
    startServer("http"),
    startServer("express", { GRPC_TARGET: `127.0.0.1:${grpcServer.port}` }),
    startE2e(),
  ]);
  say(`stack ready with ${e2e.accounts.length} accounts of ${E2E_USERS} users in ${e2e.setupSeconds} s`);
  const gatewayPort = Number(new URL(e2e.stack.gateways[0]?.v1 ?? "").port);
  const labels = labelProcesses();

  // A first order of each kind by hand: a broken stack fails here, with its answer.
  const probe = e2e.accounts[0];
  if (probe === undefined) throw new Error("no accounts");
  for (const kind of ["LIMIT", "MARKET"] as const) {
    const answer = await v1(e2e.stack.gateways[0]?.v1 ?? "", "/v1/order", probe.key, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        account_id: probe.accountId,
        symbol: SYMBOL,
        side: "BUY",
        kind,
        quantity: QUANTITY,
        ...(kind === "LIMIT" ? { limit_price: BUY_LIMIT } : {}),
      }),
    });
    const status = (answer.body.order as { status?: string } | undefined)?.status;
    if (answer.status !== 201 || status !== (kind === "LIMIT" ? "NEW" : "FILLED")) {
      throw new Error(`probe ${kind} order: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  }
  // Sell back the probe's position, so every account starts flat.
  await v1(e2e.stack.gateways[0]?.v1 ?? "", "/v1/position/close", probe.key, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ account_id: probe.accountId, symbol: SYMBOL }),
  });

  const targets: { id: string; description: string; target: HttpTarget; e2e: boolean }[] = [
    {
      id: "bare",
      description: "bare node:http, constant JSON (reads the same POST)",
      target: orderTarget("bare", httpServer.port, e2e.accounts, "LIMIT", false),
      e2e: false,
    },
    {
      id: "ceiling",
      description: "Express 5 route → one grpc-js unary call → constant (separate process)",
      target: orderTarget("ceiling", expressServer.port, e2e.accounts, "LIMIT", false),
      e2e: false,
    },
    {
      id: "e2e-limit",
      description: "gateway POST /v1/order, resting LIMIT (wallet, Redis, engine, PostgreSQL)",
      target: orderTarget("e2e-limit", gatewayPort, e2e.accounts, "LIMIT", true),
      e2e: true,
    },
    {
      id: "e2e-market",
      description: "gateway POST /v1/order, MARKET that fills",
      target: orderTarget("e2e-market", gatewayPort, e2e.accounts, "MARKET", true),
      e2e: true,
    },
  ];
  const feed = new Feed(e2e.market);
  const withFeed = async <T>(on: boolean, run: () => Promise<T>): Promise<T> => {
    if (on) feed.start();
    try {
      return await run();
    } finally {
      feed.stop();
    }
  };

  for (const t of targets) {
    const warm = await withFeed(t.e2e, () =>
      closedLoop(t.target, CONNECTIONS, t.e2e ? WARMUP_MS.e2e : WARMUP_MS.ceiling),
    );
    say(`warm-up ${t.id}: ${fmt(warm.requestsPerSecond)} req/s, ${warm.errors} errors`);
    if (warm.errors > 0 && warm.completed === 0) throw new Error(`${t.id}: nothing succeeded: ${warm.firstError}`);
  }

  const measured = new Map<string, Measured[]>(targets.map((t) => [t.id, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? targets : [...targets].reverse();
    for (const t of order) {
      const m = await withFeed(t.e2e, () => measure(labels, () => closedLoop(t.target, CONNECTIONS, ROUND_MS)));
      measured.get(t.id)?.push(m);
      say(
        `round ${r + 1}/${ROUNDS} ${t.id}: ${fmt(m.run.requestsPerSecond)} req/s, p50 ${m.run.latency.p50Ms} ms, ` +
          `p99 ${m.run.latency.p99Ms} ms, ${m.run.errors} errors`,
      );
    }
  }
  const summaries = new Map(targets.map((t) => [t.id, summarize(t.id, t.description, measured.get(t.id) ?? [])]));
  const get = (id: string): TargetSummary => {
    const summary = summaries.get(id);
    if (summary === undefined) throw new Error(`no summary for ${id}`);
    return summary;
  };
  const bare = get("bare");
  const ceiling = get("ceiling");
  const e2eLimit = get("e2e-limit");
  const e2eMarket = get("e2e-market");

  // Open loop at half the measured maximum: the latency a client sees when the service is not saturated.
  const openTargets = [
    { t: targets[2], max: e2eLimit.medianPerSecond, description: "gateway, resting LIMIT, at half its max" },
    { t: targets[1], max: ceiling.medianPerSecond, description: "architecture ceiling at half its max (reference)" },
  ];
  const open: ReturnType<typeof openSummary>[] = [];
  for (const { t, max, description } of openTargets) {
    if (t === undefined) continue;
    const rate = Math.max(1, Math.round(max / 2));
    const m = await withFeed(t.e2e, () => measure(labels, () => openLoop(t.target, CONNECTIONS, rate, OPEN_LOOP_MS)));
    const summary = openSummary(t.id, m, description);
    open.push(summary);
    say(
      `open loop ${t.id} at ${fmt(rate)} req/s: p50 ${m.run.latency.p50Ms} ms, p99 ${m.run.latency.p99Ms} ms, ` +
        `max ${m.run.latency.maxMs} ms, ${m.run.errors} errors`,
    );
  }
  const e2eOpen = open[0];
  const loadEnd = loadAverage();

  // ---------------------------------------------------------------- results
  const ratio = (a: number, b: number): number => round(a / b, 3);
  const pairedRatio = (a: TargetSummary, b: TargetSummary): number =>
    round(median(a.rounds.map((x, i) => x / (b.rounds[i] ?? NaN))), 3);
  const ratios = {
    e2eLimitToCeiling: ratio(e2eLimit.medianPerSecond, ceiling.medianPerSecond),
    e2eLimitToCeilingPairedRounds: pairedRatio(e2eLimit, ceiling),
    e2eMarketToCeiling: ratio(e2eMarket.medianPerSecond, ceiling.medianPerSecond),
    e2eMarketToCeilingPairedRounds: pairedRatio(e2eMarket, ceiling),
    e2eLimitToBare: ratio(e2eLimit.medianPerSecond, bare.medianPerSecond),
    e2eMarketToBare: ratio(e2eMarket.medianPerSecond, bare.medianPerSecond),
    ceilingToBare: ratio(ceiling.medianPerSecond, bare.medianPerSecond),
  };
  const goals = {
    corePerSecond: {
      target: TARGETS.corePerSecond,
      byScenario: core.scenarios.map((s) => ({
        scenario: s.name,
        median: s.medianPerSecond,
        ok: s.medianPerSecond >= TARGETS.corePerSecond,
      })),
    },
    e2eShareOfCeiling: {
      target: TARGETS.e2eShareOfCeiling,
      limit: ratios.e2eLimitToCeiling,
      market: ratios.e2eMarketToCeiling,
      ok: ratios.e2eLimitToCeiling >= TARGETS.e2eShareOfCeiling,
    },
    p99AtHalfMaxMs: {
      target: TARGETS.p99AtHalfMaxMs,
      p99Ms: e2eOpen?.latency.p99Ms ?? NaN,
      ok: (e2eOpen?.latency.p99Ms ?? Infinity) <= TARGETS.p99AtHalfMaxMs && (e2eOpen?.errors ?? 1) === 0,
    },
  };
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpuModel,
    cpus: os.cpus().length,
    platform: `${os.platform()} ${os.release()}`,
    loadAverage: { start: loadStart, end: loadEnd },
    settings: {
      core: CORE,
      coreThread: { kind: core.thread, resourceLimits: core.resourceLimits },
      http: {
        connections: CONNECTIONS,
        rounds: ROUNDS,
        roundMs: ROUND_MS,
        warmupMs: WARMUP_MS,
        openLoopMs: OPEN_LOOP_MS,
        interleaved: "rounds of the four targets interleaved, order reversed every other round",
        loadGenerator: "keep-alive HTTP/1.1 over raw net sockets, one request in flight per connection",
        checkEvery: CHECK_EVERY,
      },
      e2e: {
        users: E2E_USERS,
        accounts: e2e.accounts.length,
        planId: PLAN_ID,
        symbol: SYMBOL,
        mark: MARK,
        quantity: QUANTITY,
        limits: { buy: BUY_LIMIT, sell: SELL_LIMIT },
        feedIntervalMs: FEED_INTERVAL_MS,
        feedPushes: feed.pushes,
        feedFailures: feed.failures,
        env: { PRICE_FEED: "push", LOG_LEVEL: "info", ENGINE_SHARDS: "default (2)" },
        gatewayEnv: { RATE_LIMIT_MAX: "100000000" },
        setupSeconds: e2e.setupSeconds,
      },
    },
    core: core.scenarios,
    http: { bare, ceiling, e2eLimit, e2eMarket },
    openLoop: open,
    ratios,
    targets: goals,
    durationSeconds: round((performance.now() - started) / 1000, 1),
  };
  mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, JSON.stringify(results, null, 2) + "\n");

  const met = (ok: boolean): string => (ok ? "met" : "MISSED");
  say("");
  say(
    `Pure core, one ${core.thread} (${JSON.stringify(core.resourceLimits)}), ${fmt(CORE.commandsPerRound)} ` +
      `commands per round, ${CORE.rounds} rounds after ${CORE.warmupRounds} warm-up, fresh accounts each round ` +
      "(per thread-CPU s = commands per second of the thread's own CPU time; on CPU = that time / wall time):",
  );
  say(
    table([
      [
        "scenario",
        "median/s",
        "min/s",
        "max/s",
        "µs/cmd",
        "per thread-CPU s",
        "on CPU %",
        "GC %",
        "updates %",
        "events/cmd",
        "unexpected",
      ],
      ...core.scenarios.map((s) => [
        s.name,
        fmt(s.medianPerSecond),
        fmt(s.minPerSecond),
        fmt(s.maxPerSecond),
        s.usPerCommand,
        s.medianPerCpuSecond === null ? "-" : fmt(s.medianPerCpuSecond),
        s.onCpuShareMedian === null ? "-" : round(s.onCpuShareMedian * 100, 0),
        round(s.gcShareMedian * 100, 1),
        round(s.updateShareMedian * 100, 1),
        s.eventsPerCommand,
        s.unexpected,
      ]),
    ]),
  );
  say("");
  say(
    `HTTP, ${CONNECTIONS} keep-alive connections, closed loop, ${ROUNDS} interleaved rounds of ${ROUND_MS / 1000} s ` +
      `(latencies are medians over rounds; CPU µs per request by process tree):`,
  );
  say(
    table([
      [
        "target",
        "median req/s",
        "min",
        "max",
        "p50 ms",
        "p99 ms",
        "errors",
        "client µs",
        "server CPU µs/req",
        "Σ µs/req",
        `${os.cpus().length}-core bound/s`,
      ],
      ...[bare, ceiling, e2eLimit, e2eMarket].map((s) => [
        s.target,
        fmt(s.medianPerSecond),
        fmt(s.minPerSecond),
        fmt(s.maxPerSecond),
        s.p50Ms,
        s.p99Ms,
        s.errors,
        s.clientCpuUsPerRequest,
        cpuText(s.serverCpuUsPerRequest),
        s.bound.cpuUsPerRequest,
        fmt(s.bound.coresBoundPerSecond),
      ]),
    ]),
  );
  say(
    `Σ µs/req = load generator + serving processes' CPU per request; ${os.cpus().length}-core bound = cores × 1e6 / Σ ` +
      "(the rate with the machine to this run alone). Busiest serving process (one thread in the Node ones):",
  );
  for (const s of [bare, ceiling, e2eLimit, e2eMarket]) {
    say(
      `  ${s.target}: ${s.bound.busiest} ${s.serverCpuUsPerRequest[s.bound.busiest] ?? "-"} µs/req → ` +
        `≤ ${fmt(s.bound.busiestBoundPerSecond)}/s; idle others ${s.serverCpuPercent[IDLE] ?? 0}% of a core`,
    );
  }
  say("");
  say(`Open loop, ${OPEN_LOOP_MS / 1000} s, latency from when each request was due:`);
  say(
    table([
      ["target", "rate/s", "achieved/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors", "max backlog"],
      ...open.map((o) => [
        o.target,
        fmt(o.rate),
        fmt(o.achievedPerSecond),
        o.latency.p50Ms,
        o.latency.p90Ms,
        o.latency.p99Ms,
        o.latency.maxMs,
        o.errors,
        o.maxBacklog,
      ]),
    ]),
  );
  say("");
  say("Summary (ratio = to the architecture ceiling, Express → grpc-js → constant, measured in this run):");
  say(
    table([
      ["figure", "value", "ratio to ceiling", "target"],
      ...core.scenarios.map((s) => [
        `pure core ${s.name}, ${s.name === "mix" ? "commands" : "orders"}/s (1 thread)`,
        `${fmt(s.medianPerSecond)} (${s.medianPerCpuSecond === null ? "-" : fmt(s.medianPerCpuSecond)} per CPU s)`,
        "-",
        `≥ ${fmt(TARGETS.corePerSecond)}: ${met(s.medianPerSecond >= TARGETS.corePerSecond)}`,
      ]),
      ["bare node:http, req/s", fmt(bare.medianPerSecond), round(1 / ratios.ceilingToBare, 2), ""],
      ["architecture ceiling, req/s", fmt(ceiling.medianPerSecond), 1, ""],
      [
        "e2e place order LIMIT, req/s",
        fmt(e2eLimit.medianPerSecond),
        `${ratios.e2eLimitToCeiling} (paired rounds ${ratios.e2eLimitToCeilingPairedRounds})`,
        `≥ ${TARGETS.e2eShareOfCeiling}: ${met(goals.e2eShareOfCeiling.ok)}`,
      ],
      [
        "e2e place order MARKET, req/s",
        fmt(e2eMarket.medianPerSecond),
        `${ratios.e2eMarketToCeiling} (paired rounds ${ratios.e2eMarketToCeilingPairedRounds})`,
        "",
      ],
      ["e2e LIMIT / bare node:http", ratios.e2eLimitToBare, "", ""],
      [
        `e2e LIMIT p50 / p99 at ${fmt(e2eOpen?.rate ?? NaN)}/s (half max)`,
        `${e2eOpen?.latency.p50Ms ?? "-"} / ${e2eOpen?.latency.p99Ms ?? "-"} ms`,
        "",
        `p99 ≤ ${TARGETS.p99AtHalfMaxMs} ms: ${met(goals.p99AtHalfMaxMs.ok)}`,
      ],
    ]),
  );
  const errors = [bare, ceiling, e2eLimit, e2eMarket].filter((s) => s.errors > 0);
  for (const s of errors) say(`WARNING ${s.target}: ${s.errors} errors, first: ${s.firstError ?? ""}`);
  for (const o of open)
    if (o.errors > 0) say(`WARNING open loop ${o.target}: ${o.errors} errors: ${o.firstError ?? ""}`);
  for (const s of core.scenarios)
    if (s.unexpected > 0) say(`WARNING core ${s.name}: ${s.unexpected} unexpected outcomes`);
  say(`Load average at start / end: ${loadStart} / ${loadEnd} (other work on this machine shows up in every figure).`);
  say(`Wrote ${path.relative(ROOT, RESULTS_FILE)} (${results.durationSeconds} s)`);
}

main()
  .catch((error: unknown) => {
    if (signalled) return; // stopped on purpose: what failed after that is the stopping itself
    process.stderr.write(`bench:engine failed: ${errorText(error)}\n`);
    const output = activeStack?.output() ?? "";
    if (output !== "") process.stderr.write(`last output of the stack:\n${output.slice(-4_000)}\n`);
    process.exitCode = 1;
  })
  .finally(() => cleanupAll().then(killLeftChildren));
