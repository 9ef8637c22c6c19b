// `npm run bench:ops`: what observability costs on the hot path, measured in one run. Three copies of the real
// stack (wallet, engine, gateway; test/harness/stack.ts) share one throwaway PostgreSQL (a database each) and
// one Redis, and differ only in their settings:
//   off              METRICS_ENABLED=false, no OTEL_* settings
//   metrics          METRICS_ENABLED=true
//   metrics+tracing  METRICS_ENABLED=true, OTLP traces to a local sink that reads and discards every export,
//                    OTEL_TRACES_SAMPLER=parentbased_traceidratio, OTEL_TRACES_SAMPLER_ARG=0.1
// Closed-loop POST /v1/order (resting LIMIT orders) at 64 connections with the load generator of
// `bench:engine` (scripts/bench-engine-load.ts); the rounds of the three configurations are interleaved in a
// rotating order, so load from elsewhere on the machine lands on all of them alike, and the medians are
// compared (the stack's settings, the request and the clean-up are scripts/bench-session.ts's, as `npm run bench`
// uses them). While one stack is measured the other two are idle. Throughput on a shared 2-core machine is
// noisy, so each round also reads the CPU time of the measured stack's own processes (gateway, wallet,
// engine with its threads; from /proc) per answered request: the cost of the settings in CPU. Prints a markdown table with the ratios and
// writes bench/ops-results.json. Targets (reported, not asserted): metrics < 5%, tracing at 10% < 15%.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { Market } from "../test/harness/market.js";
import { startOtlpReceiver, type OtlpReceiver } from "../test/harness/otlp.js";
import { startPostgres } from "../test/harness/postgres.js";
import { startRedis } from "../test/harness/redis.js";
import { startStack, type Stack } from "../test/harness/stack.js";
import {
  benchStackOptions,
  createAccounts,
  fmt,
  MARK,
  onCleanup,
  orderTarget,
  pricedGateway,
  runMain,
  say,
  stoppedAtCleanup,
  SYMBOL,
  type BenchAccount,
} from "./bench-session.js";
import {
  childProcesses,
  closedLoop,
  median,
  round,
  sampleCpu,
  type HttpTarget,
  type RunResult,
} from "./bench-engine-load.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS_FILE = path.join(ROOT, "bench", "ops-results.json");

const CONNECTIONS = 64;
const ROUNDS = 6;
const ROUND_MS = 4_000;
/** Long enough for the JIT to settle on each stack (the first rounds of a shorter warm-up ran slower). */
const WARMUP_MS = 8_000;
const USERS = 8;
const ACCOUNTS_PER_USER = 16;
const FEED_INTERVAL_MS = 1_000;
const TARGETS = { metricsCost: 0.05, tracingCost: 0.15 };

interface Config {
  id: "off" | "metrics" | "metrics+tracing";
  description: string;
  env: (sink: OtlpReceiver) => Record<string, string>;
}

const CONFIGS: readonly Config[] = [
  { id: "off", description: "metrics off, tracing off", env: () => ({ METRICS_ENABLED: "false" }) },
  { id: "metrics", description: "metrics on", env: () => ({ METRICS_ENABLED: "true" }) },
  {
    id: "metrics+tracing",
    description: "metrics on + traces, 10% parent-based sampling, OTLP to a discarding sink",
    env: (sink) => ({
      METRICS_ENABLED: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.1",
    }),
  },
];

type Account = BenchAccount;

interface Running {
  config: Config;
  stack: Stack;
  market: Market;
  accounts: Account[];
  target: HttpTarget;
}

/** A fresh database on the server of `adminUrl`, one per stack (each engine owns every partition of its own). */
async function createDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function startConfig(config: Config, index: number, pgUrl: string, redisUrl: string, sink: OtlpReceiver) {
  const databaseUrl = await createDatabase(pgUrl, `ops_${index}`);
  const stack = await stoppedAtCleanup(
    `the ${config.id} stack`,
    startStack(benchStackOptions(databaseUrl, redisUrl, config.env(sink))),
  );
  const { market, gateway } = await pricedGateway(stack, (close) => {
    onCleanup(`the ${config.id} market client`, close);
  });
  const accounts = await createAccounts(gateway, {
    prefix: `ops-${index}`,
    users: USERS,
    accountsPerUser: ACCOUNTS_PER_USER,
    concurrency: 8,
    permissions: ["READ_ONLY", "TRADE"],
  });
  const port = Number(new URL(gateway.v1).port);
  return {
    config,
    stack,
    market,
    accounts,
    target: orderTarget(config.id, port, accounts, "LIMIT", true),
  } satisfies Running;
}

/** The stacks' service processes (pid → configuration id), told apart by their DATA_DIR. */
function stackRoots(running: readonly Running[]): Map<number, string> {
  const roots = new Map<number, string>();
  for (const { pid, cmdline } of childProcesses()) {
    if (!/(gateway|engine|wallet)\/main\.ts/.test(cmdline)) continue;
    let dataDir: string | undefined;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
      dataDir = environ.find((entry) => entry.startsWith("DATA_DIR="))?.slice("DATA_DIR=".length);
    } catch {
      continue;
    }
    const owner = running.find((r) => r.stack.dataDir === dataDir);
    if (owner !== undefined) roots.set(pid, owner.config.id);
  }
  return roots;
}

interface Measured {
  run: RunResult;
  /** CPU µs of the stack's gateway, wallet and engine per answered request. */
  cpuUsPerRequest: number;
}

/** Runs `run` with a price pushed every second to the measured stack, as a live feed would. */
async function withFeed<T>(market: Market, run: () => Promise<T>): Promise<T> {
  let tick = 0;
  const timer = setInterval(() => {
    tick ^= 1;
    market.push({ [SYMBOL]: MARK + tick / 10 }).catch(() => undefined);
  }, FEED_INTERVAL_MS);
  try {
    return await run();
  } finally {
    clearInterval(timer);
  }
}

interface Summary {
  id: string;
  description: string;
  rounds: number[];
  medianPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** 1 − this configuration's median over the "off" median: the share of throughput it costs. */
  cost: number | null;
  /** Median CPU µs per request of the stack's own processes, and its excess over "off". */
  cpuUsPerRequest: number;
  cpuCost: number | null;
}

function summarize(
  config: Config,
  measured: readonly Measured[],
  off: { perSecond: number; cpuUs: number } | undefined,
): Summary {
  const runs = measured.map((m) => m.run);
  const rates = runs.map((r) => r.requestsPerSecond);
  const medianPerSecond = median(rates);
  const cpuUs = median(measured.map((m) => m.cpuUsPerRequest));
  return {
    id: config.id,
    description: config.description,
    rounds: rates.map((r) => round(r, 0)),
    medianPerSecond: round(medianPerSecond, 0),
    p50Ms: round(median(runs.map((r) => r.latency.p50Ms)), 1),
    p99Ms: round(median(runs.map((r) => r.latency.p99Ms)), 1),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    cost: off === undefined || off.perSecond === 0 ? null : round(1 - medianPerSecond / off.perSecond, 3),
    cpuUsPerRequest: round(cpuUs, 0),
    cpuCost: off === undefined || off.cpuUs === 0 ? null : round(cpuUs / off.cpuUs - 1, 3),
  };
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadStart = os.loadavg();
  const sink = await startOtlpReceiver({ discard: true });
  onCleanup("the OTLP sink", () => sink.stop());
  const postgres = await startPostgres();
  onCleanup("postgres", () => postgres.stop());
  const redis = await startRedis();
  onCleanup("redis", () => redis.stop());

  const running: Running[] = [];
  for (const [index, config] of CONFIGS.entries()) {
    say(`starting the ${config.id} stack`);
    running.push(await startConfig(config, index, postgres.url, redis.url, sink));
  }
  for (const r of running) {
    const warm = await withFeed(r.market, () => closedLoop(r.target, CONNECTIONS, WARMUP_MS));
    say(`warm-up ${r.config.id}: ${fmt(warm.requestsPerSecond)} req/s, ${warm.errors} errors`);
    if (warm.completed === 0) throw new Error(`${r.config.id}: nothing succeeded: ${warm.firstError ?? ""}`);
  }

  const roots = stackRoots(running);
  const runs = new Map<string, Measured[]>(running.map((r) => [r.config.id, []]));
  for (let n = 0; n < ROUNDS; n++) {
    // Rotating order (ABC, BCA, CAB, …): each configuration is first, second and third equally often.
    const order = running.map((_, i) => running[(i + n) % running.length]).filter((r) => r !== undefined);
    for (const r of order) {
      const before = sampleCpu(roots).get(r.config.id) ?? 0;
      const result = await withFeed(r.market, () => closedLoop(r.target, CONNECTIONS, ROUND_MS));
      const cpuSeconds = (sampleCpu(roots).get(r.config.id) ?? 0) - before;
      const cpuUsPerRequest = result.completed === 0 ? Number.NaN : (cpuSeconds * 1e6) / result.completed;
      runs.get(r.config.id)?.push({ run: result, cpuUsPerRequest });
      say(
        `round ${n + 1}/${ROUNDS} ${r.config.id}: ${fmt(result.requestsPerSecond)} req/s, ` +
          `p50 ${result.latency.p50Ms} ms, p99 ${result.latency.p99Ms} ms, ${fmt(cpuUsPerRequest)} CPU µs/request, ` +
          `${result.errors} errors`,
      );
    }
  }

  const offRuns = runs.get("off") ?? [];
  const off =
    offRuns.length === 0
      ? undefined
      : {
          perSecond: median(offRuns.map((m) => m.run.requestsPerSecond)),
          cpuUs: median(offRuns.map((m) => m.cpuUsPerRequest)),
        };
  const offMedian = off?.perSecond;
  const summaries = CONFIGS.map((config) => summarize(config, runs.get(config.id) ?? [], off));
  const results = {
    when: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    loadAverage: { start: loadStart.map((l) => round(l, 2)), end: os.loadavg().map((l) => round(l, 2)) },
    seconds: round((Date.now() - started) / 1000, 0),
    method: {
      request: "POST /v1/order, resting LIMIT, fresh client_id",
      connections: CONNECTIONS,
      rounds: ROUNDS,
      roundMs: ROUND_MS,
      accounts: USERS * ACCOUNTS_PER_USER,
      metricsSetting: "METRICS_ENABLED (ignored by builds before the metrics branch: off and metrics then match)",
    },
    traceExportsReceived: sink.requests(),
    targets: TARGETS,
    configurations: summaries,
  };
  mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, JSON.stringify(results, null, 2) + "\n");

  say("");
  const percent = (share: number | null): string => (share === null ? "-" : `${(share * 100).toFixed(1)}%`);
  say(
    "| configuration | req/s (median) | ratio to off | throughput cost | CPU µs/request | CPU cost | p50 ms | p99 ms " +
      "| errors | req/s per round |",
  );
  say("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const s of summaries) {
    const ratio = offMedian === undefined || offMedian === 0 ? "-" : (s.medianPerSecond / offMedian).toFixed(3);
    say(
      `| ${s.id} | ${fmt(s.medianPerSecond)} | ${ratio} | ${percent(s.cost)} | ${fmt(s.cpuUsPerRequest)} | ` +
        `${percent(s.cpuCost)} | ${s.p50Ms} | ${s.p99Ms} | ${s.errors} | ${s.rounds.map(fmt).join(", ")} |`,
    );
  }
  say("");
  say(
    `targets: metrics < ${TARGETS.metricsCost * 100}%, tracing at 10% < ${TARGETS.tracingCost * 100}%; ` +
      `trace exports received by the sink: ${sink.requests()}; load average ${results.loadAverage.start.join(" ")} → ` +
      `${results.loadAverage.end.join(" ")} on ${results.cpus} cores`,
  );
  say(`wrote ${path.relative(ROOT, RESULTS_FILE)}`);
}

runMain("bench:ops", main);
