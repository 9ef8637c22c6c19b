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
// Prints a table and writes bench/engine-results.json. The targets are reported, not asserted. The servers,
// the stack, the requests and the rounds are scripts/bench-session.ts, shared with `npm run bench`, which
// runs all of this plus the GET, cancel, validation and scaling figures in one session.
// `--only=core --core-scenarios=market --baseline=REV --core-rounds=N`: only the pure core, these scenarios,
// each round alternating with the engine of commit REV in the same thread, N measured rounds each
// (docs/performance.md, "Against a baseline").
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { defaultShards } from "../engine/config.js";
import { median, round } from "./bench-engine-load.js";
import { table } from "./bench-report.js";
import {
  announce,
  benchCore,
  coreRunOf,
  coreSettingsOf,
  CLOSED_LOOP,
  closedLoopRounds,
  CORE,
  CHECK_EVERY,
  E2E_USERS,
  fmt,
  FEED_INTERVAL_MS,
  BUY_LIMIT,
  MARK,
  OPEN_LOOP_MS,
  openRun,
  PLAN_ID,
  printCoreTable,
  printHttpTables,
  QUANTITY,
  ROOT,
  loadAverage,
  machine,
  runMain,
  say,
  SELL_LIMIT,
  SHARD_RESOURCE_LIMITS,
  startHttpSession,
  summaryOf,
  SYMBOL,
  TARGETS,
  warnOfErrors,
  WARMUP_MS,
  type OpenSummary,
  type TargetSummary,
} from "./bench-session.js";

const RESULTS_FILE = path.join(ROOT, "bench", "engine-results.json");

async function main(): Promise<void> {
  const started = performance.now();
  const { loadStart } = announce("bench:engine");

  // 1. The pure core, alone on the machine as far as this run goes.
  say(
    `core: worker thread with resourceLimits ${JSON.stringify(SHARD_RESOURCE_LIMITS)} (as the shards), ` +
      `${fmt(CORE.commandsPerRound)} commands per round over ${fmt(CORE.accounts)} accounts`,
  );
  const coreRun = coreRunOf(process.argv);
  const core = await benchCore(coreRun);
  // `--only=core`: the core figures as JSON and their table, no servers, no report file (for profiling; with
  // `--core-scenarios=limit,...` only those scenarios).
  if (process.argv.includes("--only=core")) {
    say(JSON.stringify(core, null, 2));
    printCoreTable(core);
    return;
  }

  // 2 + 3. Every server up before the first measured request.
  const session = await startHttpSession();
  const { e2e, labels, feed, orderTargets: targets } = session;
  const summaries = await closedLoopRounds(targets, session);
  const get = (id: string): TargetSummary => summaryOf(summaries, id);
  const bare = get("bare");
  const ceiling = get("ceiling");
  const e2eLimit = get("e2e-limit");
  const e2eMarket = get("e2e-market");

  // Open loop at half the measured maximum: the latency a client sees when the service is not saturated.
  const openTargets = [
    { t: targets[2], max: e2eLimit.medianPerSecond, description: "gateway, resting LIMIT, at half its max" },
    { t: targets[1], max: ceiling.medianPerSecond, description: "architecture ceiling at half its max (reference)" },
  ];
  const open: OpenSummary[] = [];
  for (const { t, max, description } of openTargets) {
    if (t === undefined) continue;
    open.push(await openRun(t, labels, feed, Math.max(1, Math.round(max / 2)), OPEN_LOOP_MS, description));
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
    ...machine(loadStart, loadEnd),
    settings: {
      core: coreSettingsOf(coreRun),
      coreThread: { kind: core.thread, resourceLimits: core.resourceLimits },
      http: {
        ...CLOSED_LOOP,
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
        env: { PRICE_FEED: "push", LOG_LEVEL: "info", ENGINE_SHARDS: `default (${defaultShards()})` },
        gatewayEnv: { RATE_LIMIT_MAX: "100000000" },
        setupSeconds: e2e.setupSeconds,
      },
    },
    core: core.scenarios,
    ...(core.baseline === undefined ? {} : { coreBaseline: core.baseline }),
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
  printCoreTable(core);
  say("");
  printHttpTables([bare, ceiling, e2eLimit, e2eMarket], open, OPEN_LOOP_MS / 1000);
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
      [
        "pure core floor: state touches only (reference), orders/s",
        `${fmt(core.floor.medianPerSecond)} (${core.floor.usPerOrder} µs per order)`,
        "-",
        "",
      ],
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
  warnOfErrors([bare, ceiling, e2eLimit, e2eMarket], open);
  for (const s of core.scenarios)
    if (s.unexpected > 0) say(`WARNING core ${s.name}: ${s.unexpected} unexpected outcomes`);
  say(`Load average at start / end: ${loadStart} / ${loadEnd} (other work on this machine shows up in every figure).`);
  say(`Wrote ${path.relative(ROOT, RESULTS_FILE)} (${results.durationSeconds} s)`);
}

runMain("bench:engine", main);
