// `npm run bench`: every figure of the performance targets in one session, each against the ceilings measured
// in the same run (docs/performance.md).
//   1. The pure engine core on a shard-like worker thread (scripts/bench-engine-core.ts).
//   2. Price-update scaling, 1,000 → 10,000 accounts with open positions (scripts/bench-engine-scaling.ts).
//   3. Key validation: in process, and ValidateApiKey over gRPC against an empty call (scripts/bench-validate.ts).
//   4. HTTP on the real stack (PostgreSQL, Redis, wallet, engine, gateway; scripts/bench-session.ts), one load
//      generator, closed loop, interleaved rounds: bare node:http, the architecture ceiling (Express → one
//      grpc-js unary call → constant), place order LIMIT (rests) and MARKET (fills), the authenticated GET
//      (GET /v1/account/:id/summary with the owner's key) and cancel (DELETE /v1/order/:id of resting orders
//      placed between rounds), and order entry over the stream (scripts/bench-stream-orders.ts: `order.place`
//      pipelined on 64 sockets, LIMIT and MARKET; `--stream-sockets=N`, `--stream-window=N`); then open-loop
//      rounds at half each one's maximum for LIMIT, GET and the ceiling.
//   5. The live stream on a stack of its own (scripts/bench-stream.ts): events per second delivered to 1,000
//      sockets of one gateway, and fill → socket beside the same fills' webhook delivery (p50, p99).
//   6. Overload (scripts/load/overload.ts), on the embedded default and on PostgreSQL + Redis: capacity of the
//      load mix, then open loop at 0.5×, 1×, 2× and 4× of it, one well-behaved key beside the flood
//      (bench/overload-<backend>.json); then the same with the flood from 4 keys whose rate limit is raised out
//      of the way (bench/overload-<backend>-few-keys.json); `--no-overload` leaves it out.
//   7. A rolling restart under the 60-key scenario (scripts/bench-roll.ts, bench/roll-results.json): failed
//      requests, latency during the roll, take-over after kill -9 of an engine; `--no-roll` leaves it out.
// Writes bench/results.json and bench/results.md (the summary table: median, spread, ratio to the ceilings,
// target, met) and prints the table and the total time. Targets are reported, never asserted.
// `--profile`: the stack's processes run with --cpu-prof (profiles in bench/profiles/<date>/), and the top
// self-time functions of each process and thread are printed and kept in results.json. Profiling costs CPU:
// figures of a profiled run are for finding bottlenecks, not for the table.
// `--baseline=REV`: the pure core's rounds alternate with the engine of commit REV (a temporary checkout),
// loaded in the same thread; the core table then shows both and the change (docs/performance.md).
// `--core-rounds=N` measures N rounds per core scenario (and engine) instead of 5; `--core-scenarios=a,b`
// runs only those core scenarios.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { round } from "./bench-engine-load.js";
import { benchScaling, type ScalingResult } from "./bench-engine-scaling.js";
import { figureTable, formatValue, spread, type FigureRow } from "./bench-report.js";
import {
  announce,
  benchCore,
  coreRunOf,
  coreSettingsOf,
  CancelPool,
  cancelTarget,
  cleanupAll,
  CLOSED_LOOP,
  closedLoopRounds,
  CONNECTIONS,
  openRun,
  printCoreTable,
  printHttpTables,
  ROOT,
  loadAverage,
  machine,
  runMain,
  say,
  startHttpSession,
  summaryOf,
  summaryTarget,
  TARGETS,
  warnOfErrors,
  type Label,
  type OpenSummary,
  type RoundTarget,
  type TargetSummary,
} from "./bench-session.js";
import { benchStream } from "./bench-stream.js";
import {
  streamOrderRows,
  streamOrdersArgs,
  streamOrdersGatewayEnv,
  streamOrderTargets,
} from "./bench-stream-orders.js";
import { overloadRows, runOverload, type OverloadResult } from "./load/overload.js";
import { benchRoll, rollRows, writeRollResults, type RollResult } from "./bench-roll.js";
import { parseOverloadArgs } from "./load/overload-plan.js";
import { benchGrpc, benchInProcess, TARGET_IN_PROCESS_PER_SECOND, TARGET_P99_RATIO } from "./bench-validate.js";
import { profileFileName, summarizeProfile, type CpuProfile, type ProfileSummary } from "./cpuprofile.js";

const RESULTS_JSON = path.join(ROOT, "bench", "results.json");
const RESULTS_MD = path.join(ROOT, "bench", "results.md");
const PROFILES = path.join(ROOT, "bench", "profiles");

/** Open-loop rounds at half the maximum rate, per target (interleaved). */
const OPEN_ROUNDS = 3;
const OPEN_ROUND_MS = 5_000;
/** Issue 7's targets; the core's is the engine issue's. */
const GOALS = {
  placeOrderToCeiling: 0.75,
  placeOrderStretch: 1,
  getToCeiling: 1,
  p99AtHalfMaxMs: TARGETS.p99AtHalfMaxMs,
  scalingRatio: 1.3,
};
const PROFILE_TOP = 12;
/** 15 interleaved rounds of 1,000,000 account-updates per size (bench:scaling: 7 of 200,000). */
const SCALING = { rounds: 15, workPerRound: 1_000_000 };

/** Seconds since `from`, one decimal. */
const since = (from: number): number => round((performance.now() - from) / 1000, 1);

/** The cancel target, with the pool refilled before each round to what the last rounds' rate needs. */
function cancelRoundTarget(port: number, accounts: Parameters<typeof cancelTarget>[2]): RoundTarget {
  const pool = new CancelPool(accounts);
  const { target, refill } = cancelTarget("e2e-cancel", port, accounts, pool);
  let rate = 3_000;
  let last: { used: number; ms: number } | undefined;
  return {
    id: "e2e-cancel",
    description: "gateway DELETE /v1/order/:id of a resting LIMIT (engine, PostgreSQL)",
    target,
    e2e: true,
    async prepare(ms) {
      if (last !== undefined) rate = Math.max(500, ((pool.used - last.used) * 1000) / last.ms);
      await refill(Math.ceil((rate * ms * 1.5) / 1000) + 2 * CONNECTIONS);
      last = { used: pool.used, ms };
    },
  };
}

/** Top self-time functions per process (and per thread of the engine) from the profiles in `dir`. */
function readProfiles(dir: string, labels: ReadonlyMap<number, Label>): Record<string, ProfileSummary> {
  const summaries: Record<string, ProfileSummary> = {};
  for (const file of readdirSync(dir).sort()) {
    const id = profileFileName(file);
    if (id === undefined) continue;
    const label = `${labels.get(id.pid) ?? `pid ${id.pid}`}${id.tid === 0 ? "" : ` thread ${id.tid}`}`;
    const profile = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as CpuProfile;
    summaries[label] = summarizeProfile(profile, PROFILE_TOP, ROOT);
  }
  return summaries;
}

function printProfiles(profiles: Record<string, ProfileSummary>): void {
  for (const [label, p] of Object.entries(profiles)) {
    say(
      `\n${label}: busy ${formatValue(p.busyMs)} ms of ${formatValue(p.totalMs)} ms ` +
        `(GC ${formatValue(p.gcMs)} ms, program ${formatValue(p.programMs)} ms); top self time:`,
    );
    for (const f of p.top) say(`  ${(f.share * 100).toFixed(1).padStart(5)}%  ${formatValue(f.selfMs)} ms  ${f.name}`);
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  const profile = process.argv.includes("--profile");
  const { loadStart, cpuModel } = announce("bench");
  const phases: Record<string, number> = {};

  // 1. The pure core.
  let at = performance.now();
  const coreRun = coreRunOf(process.argv);
  const core = await benchCore(coreRun);
  phases.core = since(at);

  // 2. Price-update scaling (synchronous, in this thread).
  at = performance.now();
  const scaling: ScalingResult = benchScaling(say, SCALING);
  phases.scaling = since(at);

  // 3. Key validation.
  at = performance.now();
  const validateInProcess = await benchInProcess();
  say(`key validation in process: median ${formatValue(validateInProcess.medianPerSecond)}/s`);
  const validateGrpc = await benchGrpc();
  phases.validation = since(at);

  // 4. HTTP on the real stack.
  at = performance.now();
  const profileDir = path.join(PROFILES, new Date().toISOString().replace(/[:.]/g, "-"));
  if (profile) {
    mkdirSync(profileDir, { recursive: true });
    process.env.STACK_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${profileDir}`;
  }
  const streamOrders = streamOrdersArgs(process.argv);
  const session = await startHttpSession(streamOrdersGatewayEnv(streamOrders));
  const { e2e, labels, feed, ports } = session;
  const [bareT, ceilingT, limitT, marketT] = session.orderTargets;
  if (bareT === undefined || ceilingT === undefined || limitT === undefined || marketT === undefined) {
    throw new Error("missing order targets");
  }
  const getT: RoundTarget = {
    id: "e2e-get",
    description: "gateway GET /v1/account/:id/summary with the owner's key (Redis, engine read)",
    target: summaryTarget("e2e-get", ports.gateway, e2e.accounts),
    e2e: true,
  };
  const cancelT = cancelRoundTarget(ports.gateway, e2e.accounts);
  const streamTargets = await streamOrderTargets(session, streamOrders);
  const targets = [bareT, ceilingT, limitT, marketT, getT, cancelT, ...streamTargets];
  const summaries = await closedLoopRounds(targets, session);
  const get = (id: string): TargetSummary => summaryOf(summaries, id);
  const [bare, ceiling, limit, market, read, cancel, ...streamed] = targets.map((t) => get(t.id)) as [
    TargetSummary,
    TargetSummary,
    TargetSummary,
    TargetSummary,
    TargetSummary,
    TargetSummary,
    ...TargetSummary[],
  ];

  // Open loop at half each maximum, rounds interleaved.
  const openTargets = [
    { t: limitT, max: limit.medianPerSecond, description: "place order LIMIT at half its max" },
    { t: getT, max: read.medianPerSecond, description: "authenticated GET at half its max" },
    { t: ceilingT, max: ceiling.medianPerSecond, description: "architecture ceiling at half its max (reference)" },
  ];
  const open = new Map<string, OpenSummary[]>(openTargets.map(({ t }) => [t.id, []]));
  for (let r = 0; r < OPEN_ROUNDS; r++) {
    for (const { t, max, description } of r % 2 === 0 ? openTargets : [...openTargets].reverse()) {
      const rate = Math.max(1, Math.round(max / 2));
      open.get(t.id)?.push(await openRun(t, labels, feed, rate, OPEN_ROUND_MS, description));
    }
  }
  phases.http = since(at);
  const loadEnd = loadAverage();

  // The stack stops here (profiles are written as its processes exit).
  await cleanupAll();

  // 5. The live stream (its own stack, after the HTTP part's stopped).
  at = performance.now();
  const stream = await benchStream(say);
  phases.stream = since(at);
  let profiles: Record<string, ProfileSummary> | undefined;
  if (profile) profiles = readProfiles(profileDir, labels);

  // 6. Overload, each backend on a stack of its own.
  at = performance.now();
  const overload: OverloadResult[] = [];
  if (!process.argv.includes("--no-overload")) {
    for (const backend of ["embedded", "postgres"]) {
      overload.push(await runOverload(parseOverloadArgs(["--backend", backend]), say));
      overload.push(await runOverload(parseOverloadArgs(["--backend", backend, "--flood-keys", "4"]), say));
    }
  }
  phases.overload = since(at);

  // 7. A rolling restart, on a stack of its own.
  at = performance.now();
  let roll: RollResult | undefined;
  if (!process.argv.includes("--no-roll")) {
    const rollLoad = loadAverage();
    roll = await benchRoll(say);
    writeRollResults(roll, rollLoad);
  }
  phases.roll = since(at);

  // ---------------------------------------------------------------- the summary
  const rates = (s: TargetSummary): number[] => s.rounds;
  const toCeiling = (s: TargetSummary): number => round(s.medianPerSecond / ceiling.medianPerSecond, 3);
  const toBare = (s: TargetSummary): number => round(s.medianPerSecond / bare.medianPerSecond, 3);
  const perRound = (s: TargetSummary): number[] =>
    s.rounds.map((rate, i) => round(rate / (ceiling.rounds[i] ?? NaN), 3));
  /** Ratio, bare ratio and per-round ratios of a throughput figure. */
  const ratios = (s: TargetSummary) => ({
    toCeiling: toCeiling(s),
    toBare: toBare(s),
    toCeilingPerRound: perRound(s),
  });
  const p99s = (id: string): number[] => (open.get(id) ?? []).map((o) => o.latency.p99Ms);
  const medianOf = (values: number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? NaN;
  };
  const openErrors = (id: string): number => (open.get(id) ?? []).reduce((n, o) => n + o.errors, 0);
  const p99Row = (id: string, figure: string, withTarget: boolean): FigureRow => ({
    figure,
    unit: "ms",
    values: p99s(id),
    ...(withTarget
      ? {
          target: {
            text: `≤ ${GOALS.p99AtHalfMaxMs}`,
            ok: medianOf(p99s(id)) <= GOALS.p99AtHalfMaxMs && openErrors(id) === 0,
          },
        }
      : {}),
  });
  const placeTarget = (s: TargetSummary) => ({
    text: `≥ ${GOALS.placeOrderToCeiling} × ceiling (stretch ${GOALS.placeOrderStretch})`,
    ok: toCeiling(s) >= GOALS.placeOrderToCeiling,
  });
  const scaleSamples = scaling.nsPerAccountPerUpdate.samples;
  const perRoundRatios = (scaleSamples[10_000] ?? []).map((ns, i) => ns / (scaleSamples[1_000]?.[i] ?? NaN));
  const rows: FigureRow[] = [
    {
      figure: "bare node:http, constant JSON",
      unit: "req/s",
      values: rates(bare),
      toCeiling: toCeiling(bare),
      toBare: 1,
    },
    {
      figure: "architecture ceiling: Express → grpc-js → constant",
      unit: "req/s",
      values: rates(ceiling),
      toCeiling: 1,
      toBare: toBare(ceiling),
    },
    {
      figure: "authenticated GET /v1/account/:id/summary",
      unit: "req/s",
      values: rates(read),
      ...ratios(read),
      target: { text: `≥ ${GOALS.getToCeiling} × ceiling`, ok: toCeiling(read) >= GOALS.getToCeiling },
    },
    {
      figure: "place order LIMIT (rests)",
      unit: "req/s",
      values: rates(limit),
      ...ratios(limit),
      target: placeTarget(limit),
    },
    {
      figure: "place order MARKET (fills)",
      unit: "req/s",
      values: rates(market),
      ...ratios(market),
      target: placeTarget(market),
    },
    {
      figure: "cancel DELETE /v1/order/:id (resting LIMIT)",
      unit: "req/s",
      values: rates(cancel),
      ...ratios(cancel),
    },
    ...streamOrderRows(summaries, streamOrders),
    p99Row("e2e-limit", "place order LIMIT p99 at half its max", true),
    p99Row("e2e-get", "authenticated GET p99 at half its max", true),
    p99Row("ceiling", "architecture ceiling p99 at half its max", false),
    ...core.scenarios.map((s) => ({
      figure: `pure core ${s.name}, 1 thread`,
      unit: s.name === "mix" ? "commands/s" : "orders/s",
      values: s.rounds,
      target: { text: `≥ ${formatValue(TARGETS.corePerSecond)}`, ok: s.medianPerSecond >= TARGETS.corePerSecond },
    })),
    {
      figure: "floor: state touches only, 1 thread (reference)",
      unit: "orders/s",
      values: core.floor.rounds,
    },
    {
      figure: "key validation in process",
      unit: "validations/s",
      values: validateInProcess.rounds,
      target: {
        text: `≥ ${formatValue(TARGET_IN_PROCESS_PER_SECOND)}`,
        ok: validateInProcess.medianPerSecond >= TARGET_IN_PROCESS_PER_SECOND,
      },
    },
    ...validateGrpc.modes.map((m) => ({
      figure: `ValidateApiKey p99 / empty call p99, ${m.name}`,
      unit: "×",
      // Per adjacent pair of rounds; the target is on the pooled ratio (every call of every round).
      values: m.p99RatioPerPair,
      target: {
        text: `≤ ${TARGET_P99_RATIO} (pooled: ${m.pooledP99Ratio})`,
        ok: m.pooledP99Ratio <= TARGET_P99_RATIO,
      },
    })),
    {
      figure: "price update per account, 1,000 accounts",
      unit: "µs",
      values: (scaleSamples[1_000] ?? []).map((ns) => ns / 1000),
    },
    {
      figure: "price update per account, 10,000 accounts",
      unit: "µs",
      values: (scaleSamples[10_000] ?? []).map((ns) => ns / 1000),
    },
    {
      figure: "price update per account, 10k / 1k",
      unit: "×",
      values: perRoundRatios,
      target: {
        text: `≤ ${GOALS.scalingRatio} (of medians: ${scaling.ratio10kTo1k})`,
        ok: spread(perRoundRatios).median <= GOALS.scalingRatio,
      },
    },
    {
      figure: `stream: events delivered to ${stream.subscribers} sockets of one gateway`,
      unit: "events/s",
      values: [stream.deliveredPerSecond],
    },
    { figure: "stream: fill → socket p99", unit: "ms", values: [stream.socketMs.p99] },
    { figure: "stream: same fills → webhook delivered p99", unit: "ms", values: [stream.webhookMs.p99] },
    ...overload.flatMap(overloadRows),
    ...(roll === undefined ? [] : rollRows(roll)),
  ];
  const summaryText = figureTable(rows);
  const durationSeconds = since(started);
  const results = {
    ...machine(loadStart, loadEnd),
    profiled: profile,
    durationSeconds,
    phaseSeconds: phases,
    settings: {
      core: coreSettingsOf(coreRun),
      ...CLOSED_LOOP,
      openRounds: OPEN_ROUNDS,
      openRoundMs: OPEN_ROUND_MS,
      accounts: e2e.accounts.length,
      setupSeconds: e2e.setupSeconds,
      feedPushes: feed.pushes,
      feedFailures: feed.failures,
      streamOrders,
    },
    summary: rows,
    core: core.scenarios,
    ...(core.baseline === undefined ? {} : { coreBaseline: core.baseline }),
    scaling,
    validation: { inProcess: validateInProcess, grpc: validateGrpc },
    http: Object.fromEntries(summaries),
    openLoop: Object.fromEntries(open),
    stream,
    overload: overload.map(({ file, ...rest }) => ({ ...rest, file: path.relative(ROOT, file) })),
    ...(roll === undefined ? {} : { roll }),
    ...(profiles === undefined ? {} : { profiles, profileDir: path.relative(ROOT, profileDir) }),
  };
  mkdirSync(path.dirname(RESULTS_JSON), { recursive: true });
  writeFileSync(RESULTS_JSON, JSON.stringify(results, null, 2) + "\n");
  const markdown = [
    `# npm run bench, ${results.date}`,
    "",
    `Node ${process.version}, ${os.cpus().length} × ${cpuModel}; load average (1, 5, 15 min) at start ${loadStart}, ` +
      `at the end of the HTTP part ${loadEnd}; ${durationSeconds} s in all` +
      (profile ? "; PROFILED (--cpu-prof on the stack: throughput figures are lower than usual)" : "") +
      ".",
    "",
    `HTTP: ${CLOSED_LOOP.connections} connections, closed loop, ${CLOSED_LOOP.rounds} interleaved rounds of ` +
      `${CLOSED_LOOP.roundMs / 1000} s per target; ` +
      `p99 at half the maximum: ${OPEN_ROUNDS} open-loop rounds of ${OPEN_ROUND_MS / 1000} s each. Ratios are of ` +
      "medians, to figures measured in this run.",
    "",
    summaryText,
    "",
  ].join("\n");
  writeFileSync(RESULTS_MD, markdown);

  say("");
  printCoreTable(core);
  say("");
  printHttpTables(
    [bare, ceiling, limit, market, read, cancel, ...streamed],
    [...open.values()].flat(),
    OPEN_ROUND_MS / 1000,
  );
  if (profiles !== undefined) {
    say(`\nProfiles in ${path.relative(ROOT, profileDir)}:`);
    printProfiles(profiles);
  }
  say("");
  say(summaryText);
  warnOfErrors(summaries.values(), [...open.values()].flat());
  say(`Load average at start / end: ${loadStart} / ${loadEnd}. Phases (s): ${JSON.stringify(phases)}`);
  say(`Wrote ${path.relative(ROOT, RESULTS_JSON)} and ${path.relative(ROOT, RESULTS_MD)}; total ${durationSeconds} s`);
}

runMain("bench", main);
