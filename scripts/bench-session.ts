// What the HTTP benchmarks share (`npm run bench`, `npm run bench:engine`): clean-up of everything a run
// starts (whatever happens, signals included), the pure core in a shard-like worker thread, the ceiling servers
// in child processes, the real stack on a throwaway PostgreSQL and Redis with bench accounts, the requests
// (place order, authenticated GET, cancel), the interleaved closed-loop rounds and open-loop runs with the CPU
// time of every process tree, and their summaries.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { newKey, v1, type CreatedKey } from "../test/harness/client.js";
import { marketClient, type Market } from "../test/harness/market.js";
import { startPostgres } from "../test/harness/postgres.js";
import { startRedis } from "../test/harness/redis.js";
import { startStack, type GatewayEndpoints, type Stack, type StackOptions } from "../test/harness/stack.js";
import type { Scope } from "../kernel/scopes.js";
import {
  coreScenariosArg,
  SCENARIOS,
  type CoreBenchOptions,
  type CoreBenchResult,
  type CoreMessage,
  type ScenarioName,
  type ScenarioResult,
} from "./bench-engine-core.js";
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
import { table } from "./bench-report.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const SERVER_SCRIPT = path.join(ROOT, "scripts", "bench-engine-server.ts");
export const CORE_SCRIPT = path.join(ROOT, "scripts", "bench-engine-core.ts");

/** Challenge 200K: margin enough for every order below (the pure core and end to end use the same). */
export const PLAN_ID = "15ef9280-770d-4664-9de7-93fcd7677a98";
export const SYMBOL = "BTC-USD";
export const MARK = 50_000;
/** 10 steps of 0.0001: 50 USD at the mark, fills at level 0–2 of a book of ~26,000 steps per level. */
export const QUANTITY = "0.001";
/** Resting limits far from the mark: they never fill while the mark moves by a tick. */
export const BUY_LIMIT = "25000";
export const SELL_LIMIT = "100000";

export const CORE: CoreBenchOptions = {
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
export const SHARD_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 64 };

export const CONNECTIONS = 64;
export const ROUNDS = 5;
export const ROUND_MS = 3_000;
/** The closed-loop rounds' settings, as the results of `npm run bench` and `npm run bench:engine` record them. */
export const CLOSED_LOOP = { connections: CONNECTIONS, rounds: ROUNDS, roundMs: ROUND_MS };
export const WARMUP_MS = { ceiling: 2_000, e2e: 3_000 };
export const OPEN_LOOP_MS = 10_000;
/** Accounts spread the load: each gets a few orders per second at the rates expected here. */
export const E2E_USERS = 16;
export const ACCOUNTS_PER_USER = 32;
/** One in this many answers has its body parsed and checked. */
export const CHECK_EVERY = 25;
/** A price feed during the end-to-end runs, as PRICE_FEED=simulator would send (SIMULATOR_INTERVAL_MS). */
export const FEED_INTERVAL_MS = 1_000;
/** Longest wait for a server, PostgreSQL, Redis or the stack to start. */
export const START_TIMEOUT_MS = 180_000;

export const TARGETS = {
  corePerSecond: 300_000,
  e2eShareOfCeiling: 0.75,
  p99AtHalfMaxMs: 20,
};

// ---------------------------------------------------------------- clean-up, whatever happens

const cleanups: { name: string; run: () => Promise<void> }[] = [];
/** For the report of a failure: what the stack's processes printed. */
let activeStack: Stack | undefined;
let cleaning: Promise<void> | undefined;

export function onCleanup(name: string, run: () => Promise<void>): void {
  cleanups.push({ name, run });
}

export function cleanupAll(): Promise<void> {
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
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
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
export function stoppedAtCleanup<T extends { stop(): Promise<void> }>(name: string, starting: Promise<T>): Promise<T> {
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
export function killLeftChildren(): void {
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

export function errorText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/**
 * Runs a benchmark's `main`: SIGINT/SIGTERM stop everything the run started; a failure prints the stack's
 * last output and sets exit code 1; whatever happens, every clean-up runs and left-over children are killed.
 */
export function runMain(name: string, main: () => Promise<void>): void {
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
  main()
    .catch((error: unknown) => {
      if (signalled) return; // stopped on purpose: what failed after that is the stopping itself
      process.stderr.write(`${name} failed: ${errorText(error)}\n`);
      const output = activeStack?.output() ?? "";
      if (output !== "") process.stderr.write(`last output of the stack:\n${output.slice(-4_000)}\n`);
      process.exitCode = 1;
    })
    .finally(() => cleanupAll().then(killLeftChildren));
}

/** The machine a run is on, and its load average (1, 5, 15 min) at the start and the end. */
export function machine(loadStart: string, loadEnd: string) {
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpu: os.cpus()[0]?.model ?? "unknown",
    cpus: os.cpus().length,
    platform: `${os.platform()} ${os.release()}`,
    loadAverage: { start: loadStart, end: loadEnd },
  };
}

export const loadAverage = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

export const say = (line: string): void => {
  process.stdout.write(line + "\n");
};
export const fmt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "-");

/** Says which benchmark runs on which machine, and returns the load average at the start and the CPU model. */
export function announce(name: string): { loadStart: string; cpuModel: string } {
  const loadStart = loadAverage();
  const cpuModel = os.cpus()[0]?.model ?? "unknown";
  say(`${name} on Node ${process.version}, ${os.cpus().length} × ${cpuModel}, load average ${loadStart}`);
  return { loadStart, cpuModel };
}

// ---------------------------------------------------------------- 1. the pure core in a shard-like thread

/** `--baseline=REV`: the commit whose engine the pure core's rounds alternate with (docs/performance.md). */
export function baselineArg(argv: readonly string[]): string | undefined {
  const arg = argv.find((a) => a.startsWith("--baseline="));
  if (arg === undefined) return undefined;
  const rev = arg.slice("--baseline=".length);
  if (!/^[\w./~^-]+$/.test(rev))
    throw new Error(`--baseline wants a commit, branch or tag, not ${JSON.stringify(rev)}`);
  return rev;
}

/**
 * A detached checkout of `rev` of the repository at `repo` (this one by default) in a temporary folder, with the
 * repository's node_modules linked in, for the core's baseline engine. Clean-up removes the folder and prunes
 * the worktree entry, whether or not the checkout got that far.
 */
export function checkoutBaseline(rev: string, repo: string = ROOT): NonNullable<CoreBenchOptions["baseline"]> {
  const git = (...args: string[]): string =>
    execFileSync("git", ["-C", repo, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  let label: string;
  try {
    label = git("rev-parse", "--short", "--verify", "--quiet", `${rev}^{commit}`).trim();
  } catch {
    const shallow = git("rev-parse", "--is-shallow-repository").trim() === "true";
    throw new Error(
      `--baseline=${rev}: no such commit in ${repo}` +
        (shallow ? " (a shallow clone: `git fetch --unshallow` brings the history)" : ""),
    );
  }
  const parent = mkdtempSync(path.join(os.tmpdir(), "fts-baseline-"));
  const dir = path.join(parent, label);
  onCleanup("baseline checkout", () => {
    try {
      if (existsSync(dir)) git("worktree", "remove", "--force", dir);
    } finally {
      rmSync(parent, { recursive: true, force: true });
      git("worktree", "prune");
    }
    return Promise.resolve();
  });
  git("worktree", "add", "--detach", dir, label);
  symlinkSync(path.join(repo, "node_modules"), path.join(dir, "node_modules"));
  return { dir, label };
}

/** What the core ran with, as the results files record it: CORE, with the command line's rounds and scenarios. */
export function coreSettingsOf(run: CoreRun): Record<string, unknown> {
  const settings: Record<string, unknown> = { ...CORE };
  delete settings.role;
  return {
    ...settings,
    rounds: run.rounds ?? CORE.rounds,
    scenarios: run.scenarios ?? SCENARIOS,
    baseline: run.baseline?.label ?? null,
  };
}

/** `--core-rounds=N`: measured rounds per scenario (and per engine, with a baseline) instead of CORE's. */
export function coreRoundsArg(argv: readonly string[]): number | undefined {
  const arg = argv.find((a) => a.startsWith("--core-rounds="));
  if (arg === undefined) return undefined;
  const rounds = Number(arg.slice("--core-rounds=".length));
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 100) throw new Error("--core-rounds wants 1 to 100");
  return rounds;
}

/** The pure core's run as the command line asks: scenarios, baseline (checked out here) and rounds. */
export function coreRunOf(argv: readonly string[]): CoreRun {
  const baseline = baselineArg(argv);
  const rounds = coreRoundsArg(argv);
  const scenarios = coreScenariosArg(argv);
  return {
    ...(scenarios === undefined ? {} : { scenarios }),
    ...(baseline === undefined ? {} : { baseline: checkoutBaseline(baseline) }),
    ...(rounds === undefined ? {} : { rounds }),
  };
}

export interface CoreRun {
  scenarios?: readonly ScenarioName[];
  baseline?: CoreBenchOptions["baseline"];
  rounds?: number;
}

export async function benchCore(run: CoreRun = {}): Promise<CoreBenchResult> {
  // tsx cannot start a .ts worker file on Node 20: the thread registers tsx, then imports the module.
  const code = [
    `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})`,
    `.then((tsx) => { tsx.register(); return import(${JSON.stringify(pathToFileURL(CORE_SCRIPT).href)}); })`,
  ].join("");
  const options: CoreBenchOptions = { ...CORE, ...run };
  const worker = new Worker(code, {
    eval: true,
    workerData: options,
    resourceLimits: SHARD_RESOURCE_LIMITS,
  });
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

export interface ServerChild {
  role: ServerRole;
  pid: number;
  port: number;
}

export async function startServer(role: ServerRole, env: Record<string, string> = {}): Promise<ServerChild> {
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

export interface BenchAccount {
  accountId: string;
  key: CreatedKey;
}

export interface E2eSetup {
  stack: Stack;
  market: Market;
  accounts: BenchAccount[];
  setupSeconds: number;
}

export async function inParallel(count: number, limit: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}

/** `users` keys (one user each) and `accountsPerUser` accounts per key on PLAN_ID, through the gateway. */
export async function createAccounts(
  gateway: GatewayEndpoints,
  options: { prefix: string; users: number; accountsPerUser: number; concurrency: number; permissions: Scope[] },
): Promise<BenchAccount[]> {
  const { prefix, users } = options;
  const keys: CreatedKey[] = [];
  await inParallel(users, 4, async (u) => {
    keys[u] = await newKey(gateway.api, `${prefix}-user-${u}`, { label: prefix, permissions: options.permissions });
  });
  const accounts: BenchAccount[] = [];
  await inParallel(users * options.accountsPerUser, options.concurrency, async (i) => {
    const key = keys[i % users];
    if (key === undefined) throw new Error("missing key");
    const created = await v1(gateway.v1, "/v1/account", key, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ plan_id: PLAN_ID, label: `${prefix} ${i}` }),
    });
    if (created.status !== 201) throw new Error(`account creation: ${created.status} ${JSON.stringify(created.body)}`);
    accounts[i] = { accountId: String(created.body.account_id), key };
  });
  return accounts;
}

/** The settings of every HTTP bench's stack; `env` adds settings for every process. */
export function benchStackOptions(
  databaseUrl: string,
  redisUrl: string,
  env: Record<string, string> = {},
): StackOptions {
  return {
    databaseUrl,
    redisUrl,
    // info, not warn: the harness reads the ports from the "listening" lines; per-request logs are debug.
    env: { PRICE_FEED: "push", LOG_LEVEL: "info", ...env },
    gatewayEnv: { RATE_LIMIT_MAX: "100000000" },
    // The rounds rest thousands of LIMIT orders per account: no cap on working orders (docs/engine.md, "Limits").
    engineEnv: { ENGINE_MAX_WORKING_ORDERS: "100000" },
  };
}

/** The stack's market client (`cleanup` is given its close) with the mark pushed, and the stack's first gateway. */
export async function pricedGateway(
  stack: Stack,
  cleanup: (close: () => Promise<void>) => void,
): Promise<{ market: Market; gateway: GatewayEndpoints }> {
  const market = marketClient(stack.engineGrpc);
  cleanup(() => {
    market.close();
    return Promise.resolve();
  });
  const gateway = stack.gateways[0];
  if (gateway === undefined) throw new Error("no gateway");
  await market.push({ [SYMBOL]: MARK });
  return { market, gateway };
}

/** The real stack with the bench accounts; `gatewayEnv` adds settings to the gateway's. */
export async function startE2e(gatewayEnv: Record<string, string> = {}): Promise<E2eSetup> {
  const started = performance.now();
  const postgres = await stoppedAtCleanup("postgres", startPostgres());
  const redis = await stoppedAtCleanup("redis", startRedis());
  const options = benchStackOptions(postgres.url, redis.url);
  const stack = await stoppedAtCleanup(
    'the stack (startStack waits for the "listening" log line of every process)',
    startStack({ ...options, gatewayEnv: { ...options.gatewayEnv, ...gatewayEnv } }),
  );
  activeStack = stack;
  const { market, gateway } = await pricedGateway(stack, (close) => {
    onCleanup("market client", close);
  });

  const accounts = await createAccounts(gateway, {
    prefix: "bench",
    users: E2E_USERS,
    accountsPerUser: ACCOUNTS_PER_USER,
    concurrency: 16,
    permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
  });
  return { stack, market, accounts, setupSeconds: round((performance.now() - started) / 1000, 1) };
}

/** Pushes a price every FEED_INTERVAL_MS (the mark moves by one tick) while end-to-end runs are on. */
export class Feed {
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

  /** Runs `run` with the feed on when `on` (the end-to-end targets), off otherwise. */
  async around<T>(on: boolean, run: () => Promise<T>): Promise<T> {
    if (on) this.start();
    try {
      return await run();
    } finally {
      this.stop();
    }
  }
}

// ---------------------------------------------------------------- the requests

export type OrderKind = "LIMIT" | "MARKET";

/** POST /v1/order requests over the accounts round-robin, a fresh client_id each, sides alternating per account. */
export function orderTarget(
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

/** The account's head lines (request line and key) for `method path`, one per account. */
function heads(method: string, port: number, accounts: readonly BenchAccount[], path: (a: BenchAccount) => string) {
  return accounts.map(
    (a) =>
      `${method} ${path(a)} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      `x-api-key: ${a.key.key}\r\nx-api-secret: ${a.key.secret}\r\n\r\n`,
  );
}

/**
 * The authenticated GET: GET /v1/account/:account_id/summary over the accounts round-robin with the owner's
 * key (authentication, rate limit in Redis, one engine read of the account's state on its shard).
 */
export function summaryTarget(name: string, port: number, accounts: readonly BenchAccount[]): HttpTarget {
  const requests = heads("GET", port, accounts, (a) => `/v1/account/${a.accountId}/summary`);
  return {
    name,
    host: "127.0.0.1",
    port,
    expectStatus: 200,
    checkEvery: CHECK_EVERY,
    request: (seq) => requests[seq % requests.length] ?? "",
    check(body) {
      const parsed = JSON.parse(body) as { account_id?: unknown; equity?: unknown };
      return typeof parsed.account_id === "string" && parsed.equity !== undefined
        ? undefined
        : `expected an account summary: ${body.slice(0, 300)}`;
    },
  };
}

/** Resting orders waiting to be cancelled: order ids with the index of the account (and key) that owns them. */
export class CancelPool {
  private readonly orders: { orderId: string; account: number }[] = [];
  private readonly accountIndex: Map<string, number>;
  private taken = 0;

  constructor(accounts: readonly BenchAccount[]) {
    this.accountIndex = new Map(accounts.map((a, i) => [a.accountId, i]));
  }

  get size(): number {
    return this.orders.length - this.taken;
  }

  /** Orders handed out to cancel so far. */
  get used(): number {
    return this.taken;
  }

  /** Adds the order of a place-order answer; returns a problem when the answer is not a resting order. */
  add(body: string): string | undefined {
    const parsed = JSON.parse(body) as { order?: { order_id?: unknown; account_id?: unknown; status?: unknown } };
    const order = parsed.order;
    const account = typeof order?.account_id === "string" ? this.accountIndex.get(order.account_id) : undefined;
    if (typeof order?.order_id !== "string" || account === undefined || order.status !== "NEW") {
      return `expected a resting order of a bench account: ${body.slice(0, 300)}`;
    }
    this.orders.push({ orderId: order.order_id, account });
    return undefined;
  }

  take(): { orderId: string; account: number } | undefined {
    const next = this.orders[this.taken];
    if (next !== undefined) this.taken++;
    return next;
  }
}

/** Resting LIMIT orders whose every answer adds the order to `pool` (placed outside the measured rounds). */
export function poolFillTarget(port: number, accounts: readonly BenchAccount[], pool: CancelPool): HttpTarget {
  return {
    ...orderTarget("cancel-pool", port, accounts, "LIMIT", false),
    checkEvery: 1,
    check: (body) => pool.add(body),
  };
}

/** DELETE /v1/order/:order_id of the pool's resting orders, each with its owner's key. */
export function cancelTarget(name: string, port: number, accounts: readonly BenchAccount[], pool: CancelPool) {
  const keys = accounts.map((a) => `x-api-key: ${a.key.key}\r\nx-api-secret: ${a.key.secret}\r\n`);
  const target: HttpTarget = {
    name,
    host: "127.0.0.1",
    port,
    expectStatus: 200,
    checkEvery: CHECK_EVERY,
    request() {
      // An empty pool asks for an order that does not exist: a 404, counted as an error of the round.
      const next = pool.take() ?? { orderId: "00000000-0000-4000-8000-000000000000", account: 0 };
      return `DELETE /v1/order/${next.orderId} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${keys[next.account] ?? ""}\r\n`;
    },
    check(body) {
      const parsed = JSON.parse(body) as { order?: { status?: string } };
      return parsed.order?.status === "CANCELED" ? undefined : `expected CANCELED: ${body.slice(0, 300)}`;
    },
  };
  const fill = poolFillTarget(port, accounts, pool);
  /** Places resting orders (1 s closed-loop runs) until the pool holds `count`. */
  const refill = async (count: number): Promise<void> => {
    for (let runs = 0; pool.size < count; runs++) {
      const run = await closedLoop(fill, CONNECTIONS, 1_000);
      if (run.errors > 0 || runs > 600) throw new Error(`filling the cancel pool: ${run.firstError ?? "too slow"}`);
    }
  };
  return { target, refill };
}

// ---------------------------------------------------------------- rounds

export interface RoundTarget {
  id: string;
  description: string;
  /** The HTTP requests of its closed-loop rounds (and open-loop runs), unless `run` measures it another way. */
  target?: HttpTarget;
  /** A closed-loop round of `ms` by the target's own load generator (the stream's order entry). */
  run?(ms: number): Promise<RunResult>;
  /** Served by the real stack: the price feed runs during its rounds. */
  e2e: boolean;
  /** Runs before each warm-up and measured round of `ms`, outside the measured window. */
  prepare?(ms: number): Promise<void>;
}

/** The HTTP requests of `t`, thrown when it has none. */
function httpOf(t: RoundTarget): HttpTarget {
  if (t.target === undefined) throw new Error(`${t.id} has no HTTP requests`);
  return t.target;
}

/** A closed-loop round of `t` for `ms`: its own `run`, or its HTTP requests over CONNECTIONS connections. */
const closedRound = (t: RoundTarget, ms: number): Promise<RunResult> =>
  t.run !== undefined ? t.run(ms) : closedLoop(httpOf(t), CONNECTIONS, ms);

/** How many closed-loop rounds of how long, and the warm-ups' length (WARMUP_MS by default). */
export interface RoundPlan {
  rounds: number;
  roundMs: number;
  warmupMs?: number;
}

/** One closed-loop warm-up per target; fails when nothing of a target succeeded. */
async function warmUp(targets: readonly RoundTarget[], feed: Feed, warmupMs: number | undefined): Promise<void> {
  for (const t of targets) {
    const ms = warmupMs ?? (t.e2e ? WARMUP_MS.e2e : WARMUP_MS.ceiling);
    await t.prepare?.(ms);
    const warm = await feed.around(t.e2e, () => closedRound(t, ms));
    say(`warm-up ${t.id}: ${fmt(warm.requestsPerSecond)} req/s, ${warm.errors} errors`);
    if (warm.errors > 0 && warm.completed === 0) throw new Error(`${t.id}: nothing succeeded: ${warm.firstError}`);
  }
}

/** `rounds` closed-loop rounds of every target, interleaved (order reversed every other round), summarised. */
async function interleavedRounds(
  targets: readonly RoundTarget[],
  labels: Map<number, Label>,
  feed: Feed,
  { rounds, roundMs }: RoundPlan,
): Promise<Map<string, TargetSummary>> {
  const measured = new Map<string, Measured[]>(targets.map((t) => [t.id, []]));
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? targets : [...targets].reverse();
    for (const t of order) {
      await t.prepare?.(roundMs);
      const m = await feed.around(t.e2e, () => measure(labels, () => closedRound(t, roundMs)));
      measured.get(t.id)?.push(m);
      say(
        `round ${r + 1}/${rounds} ${t.id}: ${fmt(m.run.requestsPerSecond)} req/s, p50 ${m.run.latency.p50Ms} ms, ` +
          `p99 ${m.run.latency.p99Ms} ms, ${m.run.errors} errors`,
      );
    }
  }
  return new Map(targets.map((t) => [t.id, summarize(t.id, t.description, measured.get(t.id) ?? [])]));
}

/**
 * The closed-loop part of a session: a warm-up of every target, then interleaved rounds (ROUNDS of ROUND_MS
 * unless `plan` says otherwise), summarised.
 */
export async function closedLoopRounds(
  targets: readonly RoundTarget[],
  session: HttpSession,
  plan: RoundPlan = { rounds: ROUNDS, roundMs: ROUND_MS },
): Promise<Map<string, TargetSummary>> {
  await warmUp(targets, session.feed, plan.warmupMs);
  return interleavedRounds(targets, session.labels, session.feed, plan);
}

/** The summary of target `id` (thrown when the rounds did not measure it). */
export function summaryOf(summaries: ReadonlyMap<string, TargetSummary>, id: string): TargetSummary {
  const summary = summaries.get(id);
  if (summary === undefined) throw new Error(`no summary for ${id}`);
  return summary;
}

/** An open-loop run of `t` at `rate` for `ms`, with the CPU split. */
export async function openRun(
  t: RoundTarget,
  labels: Map<number, Label>,
  feed: Feed,
  rate: number,
  ms: number,
  description: string,
): Promise<OpenSummary> {
  const m = await feed.around(t.e2e, () => measure(labels, () => openLoop(httpOf(t), CONNECTIONS, rate, ms)));
  say(
    `open loop ${t.id} at ${fmt(rate)} req/s: p50 ${m.run.latency.p50Ms} ms, p99 ${m.run.latency.p99Ms} ms, ` +
      `max ${m.run.latency.maxMs} ms, ${m.run.errors} errors`,
  );
  return openSummary(t.id, m, description);
}

/** A first order of each kind by hand, then the position closed again: a broken stack fails here, with its answer. */
export async function probeOrders(e2e: E2eSetup): Promise<void> {
  const base = e2e.stack.gateways[0]?.v1 ?? "";
  const probe = e2e.accounts[0];
  if (probe === undefined) throw new Error("no accounts");
  for (const kind of ["LIMIT", "MARKET"] as const) {
    const answer = await v1(base, "/v1/order", probe.key, {
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
  await v1(base, "/v1/position/close", probe.key, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ account_id: probe.accountId, symbol: SYMBOL }),
  });
}

// ---------------------------------------------------------------- CPU split by process

export type Label = string;

export function labelProcesses(): Map<number, Label> {
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

export function cpuDelta(before: CpuSample, after: CpuSample): Record<Label, number> {
  const delta: Record<Label, number> = {};
  for (const [label, seconds] of after) delta[label] = seconds - (before.get(label) ?? 0);
  return delta;
}

export interface Measured {
  run: RunResult;
  /** CPU seconds per process tree during the run. */
  cpu: Record<Label, number>;
}

export async function measure(labels: Map<number, Label>, run: () => Promise<RunResult>): Promise<Measured> {
  const before = sampleCpu(labels);
  const result = await run();
  return { run: result, cpu: cpuDelta(before, sampleCpu(labels)) };
}

/** The processes that serve each target; every other process of this run is summed as "idle others". */
export const SERVING: Record<string, readonly Label[]> = {
  bare: ["http server"],
  ceiling: ["express server", "grpc server"],
  "e2e-limit": ["gateway", "engine", "wallet", "postgres", "redis"],
  "e2e-market": ["gateway", "engine", "wallet", "postgres", "redis"],
  "e2e-get": ["gateway", "engine", "wallet", "postgres", "redis"],
  "e2e-cancel": ["gateway", "engine", "wallet", "postgres", "redis"],
  "stream-limit": ["gateway", "engine", "wallet", "postgres", "redis"],
  "stream-market": ["gateway", "engine", "wallet", "postgres", "redis"],
};
export const IDLE = "idle others";

/**
 * CPU µs per request and % of one core by process (serving ones by name, the rest summed): medians over the
 * runs, and the µs per request of each run.
 */
export function cpuSplit(
  target: string,
  runs: readonly { cpu: Record<Label, number>; completed: number; seconds: number }[],
): {
  usPerRequest: Record<Label, number>;
  percent: Record<Label, number>;
  usPerRequestRounds: Record<Label, number>[];
} {
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
  const usPerRequestRounds: Record<Label, number>[] = grouped.map(() => ({}));
  for (const label of [...serving, IDLE]) {
    const us = grouped.map((r) => ((r.cpu[label] ?? 0) * 1e6) / Math.max(1, r.completed));
    us.forEach((value, i) => {
      const row = usPerRequestRounds[i];
      if (row !== undefined) row[label] = round(value, 1);
    });
    usPerRequest[label] = round(median(us), 1);
    percent[label] = round(median(grouped.map((r) => ((r.cpu[label] ?? 0) / r.seconds) * 100)), 1);
  }
  return { usPerRequest, percent, usPerRequestRounds };
}

/**
 * What the machine's cores could serve if this run had them to itself: cores / (client + serving CPU per
 * request); and the busiest serving process with its own bound (one thread for the Node processes).
 */
export function cpuBound(usPerRequest: Record<Label, number>, clientUs: number) {
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

export interface TargetSummary {
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
  /** CPU µs per request by process in each round. */
  serverCpuUsPerRequestRounds: Record<Label, number>[];
  bound: ReturnType<typeof cpuBound>;
  runs: RunResult[];
}

export function summarize(target: string, description: string, measured: readonly Measured[]): TargetSummary {
  const rates = measured.map((m) => m.run.requestsPerSecond);
  const { usPerRequest, percent, usPerRequestRounds } = cpuSplit(
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
    serverCpuUsPerRequestRounds: usPerRequestRounds,
    bound: cpuBound(usPerRequest, clientUs),
    runs: measured.map((m) => m.run),
  };
}

export type OpenSummary = ReturnType<typeof openSummary>;

export function openSummary(id: string, measured: Measured, description: string) {
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

export const cpuText = (cpu: Record<Label, number>): string =>
  Object.entries(cpu)
    .filter(([label]) => label !== IDLE)
    .sort((a, b) => b[1] - a[1])
    .map(([label, us]) => `${label} ${us}`)
    .join(", ");

// ---------------------------------------------------------------- the session's servers

export interface HttpSession {
  e2e: E2eSetup;
  /** Ports of the bare node:http server, the architecture ceiling (Express → grpc-js) and the gateway's /v1. */
  ports: { bare: number; ceiling: number; gateway: number };
  labels: Map<number, Label>;
  feed: Feed;
  /** bare, ceiling, place order LIMIT (rests) and MARKET (fills). */
  orderTargets: RoundTarget[];
}

/**
 * Every server up before the first measured request: the ceilings and the real stack, probed; `gatewayEnv`
 * adds settings to the gateway's.
 */
export async function startHttpSession(gatewayEnv: Record<string, string> = {}): Promise<HttpSession> {
  say("starting the ceiling servers and the stack (PostgreSQL, Redis, wallet, engine, gateway)...");
  const grpcServer = await startServer("grpc");
  const [httpServer, expressServer, e2e] = await Promise.all([
    startServer("http"),
    startServer("express", { GRPC_TARGET: `127.0.0.1:${grpcServer.port}` }),
    startE2e(gatewayEnv),
  ]);
  say(`stack ready with ${e2e.accounts.length} accounts of ${E2E_USERS} users in ${e2e.setupSeconds} s`);
  await probeOrders(e2e);
  const ports = {
    bare: httpServer.port,
    ceiling: expressServer.port,
    gateway: Number(new URL(e2e.stack.gateways[0]?.v1 ?? "").port),
  };
  const orderTargets: RoundTarget[] = [
    {
      id: "bare",
      description: "bare node:http, constant JSON (reads the same POST)",
      target: orderTarget("bare", ports.bare, e2e.accounts, "LIMIT", false),
      e2e: false,
    },
    {
      id: "ceiling",
      description: "Express 5 route → one grpc-js unary call → constant (separate process)",
      target: orderTarget("ceiling", ports.ceiling, e2e.accounts, "LIMIT", false),
      e2e: false,
    },
    {
      id: "e2e-limit",
      description: "gateway POST /v1/order, resting LIMIT (wallet, Redis, engine, PostgreSQL)",
      target: orderTarget("e2e-limit", ports.gateway, e2e.accounts, "LIMIT", true),
      e2e: true,
    },
    {
      id: "e2e-market",
      description: "gateway POST /v1/order, MARKET that fills",
      target: orderTarget("e2e-market", ports.gateway, e2e.accounts, "MARKET", true),
      e2e: true,
    },
  ];
  return { e2e, ports, labels: labelProcesses(), feed: new Feed(e2e.market), orderTargets };
}

// ---------------------------------------------------------------- detail tables

/** This tree's core against the baseline's, from the same alternating rounds. */
function printBaselineTable(own: readonly ScenarioResult[], baseline: NonNullable<CoreBenchResult["baseline"]>): void {
  const change = (ratio: number | null | undefined): string =>
    ratio === null || ratio === undefined ? "-" : `${ratio >= 1 ? "+" : ""}${round((ratio - 1) * 100, 1)} %`;
  say(
    `Against ${baseline.label} (its engine in the same thread, rounds alternating ABBA with this tree's; ` +
      "change = median over the round pairs of this tree's rate / the baseline's):",
  );
  say(
    table([
      ["scenario", "median/s", `${baseline.label} median/s`, "change", "per thread-CPU s", baseline.label, "change"],
      ...own.map((s) => {
        const other = baseline.scenarios.find((b) => b.name === s.name);
        const paired = baseline.pairedRatios.find((p) => p.name === s.name);
        return [
          s.name,
          fmt(s.medianPerSecond),
          other === undefined ? "-" : fmt(other.medianPerSecond),
          change(paired?.wall),
          s.medianPerCpuSecond === null ? "-" : fmt(s.medianPerCpuSecond),
          other?.medianPerCpuSecond == null ? "-" : fmt(other.medianPerCpuSecond),
          change(paired?.perCpu),
        ];
      }),
    ]),
  );
}

export function printCoreTable(core: CoreBenchResult): void {
  const rounds = core.scenarios[0]?.rounds.length ?? CORE.rounds;
  say(
    `Pure core, one ${core.thread} (${JSON.stringify(core.resourceLimits)}), ${fmt(CORE.commandsPerRound)} ` +
      `commands per round, ${rounds} rounds after ${CORE.warmupRounds} warm-up, fresh accounts each round ` +
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
  if (core.baseline !== undefined) printBaselineTable(core.scenarios, core.baseline);
  say(
    `Floor (${core.floor.description}): median ${fmt(core.floor.medianPerSecond)} orders/s ` +
      `(${core.floor.usPerOrder} µs per order, GC ${round(core.floor.gcShareMedian * 100, 1)}%), rounds ` +
      core.floor.rounds.map((r) => fmt(r)).join(", "),
  );
}

export function printHttpTables(
  summaries: readonly TargetSummary[],
  open: readonly OpenSummary[],
  openSeconds: number,
  roundMs: number = ROUND_MS,
): void {
  say(
    `HTTP, ${CONNECTIONS} keep-alive connections, closed loop, ${summaries[0]?.rounds.length ?? 0} interleaved rounds of ${roundMs / 1000} s ` +
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
      ...summaries.map((s) => [
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
  for (const s of summaries) {
    say(
      `  ${s.target}: ${s.bound.busiest} ${s.serverCpuUsPerRequest[s.bound.busiest] ?? "-"} µs/req → ` +
        `≤ ${fmt(s.bound.busiestBoundPerSecond)}/s; idle others ${s.serverCpuPercent[IDLE] ?? 0}% of a core`,
    );
  }
  if (open.length === 0) return;
  say("");
  say(`Open loop, ${openSeconds} s, latency from when each request was due:`);
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
}

/** A warning for every closed-loop target and every open-loop run that had errors. */
export function warnOfErrors(closed: Iterable<TargetSummary>, open: Iterable<OpenSummary>): void {
  for (const s of closed)
    if (s.errors > 0) say(`WARNING ${s.target}: ${s.errors} errors, first: ${s.firstError ?? ""}`);
  for (const o of open)
    if (o.errors > 0) say(`WARNING open loop ${o.target}: ${o.errors} errors: ${o.firstError ?? ""}`);
}
