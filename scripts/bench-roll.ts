// `npm run bench:roll` (and a part of `npm run bench`): a rolling restart under the 60-key scenario
// (docs/performance.md, "Rolling restart"). The stack of test/e2e/roll.test.ts (test/harness/roll.ts: PostgreSQL
// and Redis, two engine indexes with the topology there, two gateways behind a balancer that polls /readyz),
// production lease and hold settings, and 60 keys, one account each, trading at a steady pace
// (test/harness/steady-load.ts). Every engine is SIGTERMed in turn, then every gateway; recorded: requests that
// failed, and the latency (p50, p99, max) of the requests sent during the roll. Then the process serving engine
// 0 is killed (SIGKILL) with another process of its index waiting: recorded, the take-over time from the kill
// to the first 200 on an engine-0 account (polled every 50 ms), and the requests that failed meanwhile.
// Writes bench/roll-results.json. Targets (reported, never asserted): 0 failed requests, p99 ≤ 2 s.
// Usage: npm run bench:roll -- [--keys 60] [--pace-ms 1000] [--hold-ms 5000] [--log FILE]
// (--log: every process's output, written to FILE at the end, for tracing a step's time from the services' logs)
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { isEntryPoint } from "../kernel/process.js";
import {
  ROLL_ENGINE_ENV,
  ROLL_GATEWAY_ENV,
  rollAll,
  startRollStack,
  ownersAndStandby,
  unavailableReasons,
  type RollStack,
} from "../test/harness/roll.js";
import { startLoad, type Sent } from "../test/harness/steady-load.js";
import type { FigureRow } from "./bench-report.js";
import { loadAverage, machine, ROOT, runMain } from "./bench-session.js";
import { round, summarize, type LatencySummary } from "./load/stats.js";

const RESULTS = path.join(ROOT, "bench", "roll-results.json");
const TARGET_P99_MS = 2_000;
/** Production defaults (README, "Settings"): the gateways' hold and deadline (the lease is ROLL_ENGINE_ENV's). */
const GATEWAY_ENV = { HANDOVER_HOLD_MS: "5000", GRPC_DEADLINE_MS: "1500" };
/** Steps every account runs before the roll, between the roll and the kill, and after the take-over. */
const STEPS_AROUND = 3;

export interface RollResult {
  keys: number;
  paceMs: number;
  topology: string;
  settings: Record<string, string>;
  roll: {
    seconds: number;
    /** Each step: from its start (a new engine process launched) and from the SIGTERM to the new one serving. */
    steps: { what: string; exitCode: number | null; seconds: number; fromSignalSeconds: number }[];
    /** The gateways' 503 warnings of the whole run by reason (docs/runbook.md, "Backend unavailable"). */
    unavailableReasons: Record<string, number>;
    sent: number;
    failed: number;
    latencyMs: LatencySummary;
    failures: string[];
  };
  kill: { takeOverMs: number; sent: number; failed: number; exitCode: number | null };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const between = (sent: Sent[], from: number, to: number): Sent[] => sent.filter((s) => s.at >= from && s.at < to);

/**
 * Polls an account of `engine` every 50 ms until it answers 200; resolves with performance.now() then (NaN when
 * none came within 120 s).
 */
async function firstServed(roll: RollStack, engine: number): Promise<number> {
  const deadline = performance.now() + 120_000;
  const trader = roll.traders.find((t) => t.engine === engine);
  if (trader === undefined) throw new Error(`no account on engine ${engine}`);
  const headers = { "x-api-key": trader.key.key, "x-api-secret": trader.key.secret };
  while (performance.now() < deadline) {
    try {
      const { response } = await roll.balancer.fetch(`/v1/account/${trader.account}/summary`, { headers });
      await response.arrayBuffer();
      if (response.status === 200) return performance.now();
    } catch {
      // no gateway answered: try again
    }
    await sleep(50);
  }
  return NaN;
}

/** The gateways' "… unavailable" warnings, counted by their reason. */
function reasons(roll: RollStack): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of unavailableReasons(roll.stack)) {
    const reason = String((JSON.parse(line) as Record<string, unknown>).reason);
    counts[reason] = (counts[reason] ?? 0) + 1;
  }
  return counts;
}

export async function benchRoll(
  say: (line: string) => void,
  keys = 60,
  paceMs = 1_000,
  holdMs = Number(GATEWAY_ENV.HANDOVER_HOLD_MS),
  logFile?: string,
): Promise<RollResult> {
  const topology = ownersAndStandby();
  say(`roll: starting the stack (${topology.name}), ${keys} keys`);
  const gatewayEnv = { ...GATEWAY_ENV, HANDOVER_HOLD_MS: String(holdMs) };
  const roll = await startRollStack(topology, keys, { gatewayEnv });
  try {
    let phase: "roll" | "kill" | "end" = "roll";
    const marks = new Map<string, number>();
    const load = startLoad(roll.balancer, roll.traders, {
      paceMs,
      more: (who, step) => {
        if (phase !== "end") return true;
        if (!marks.has(who.account)) marks.set(who.account, step);
        return step < (marks.get(who.account) ?? 0) + STEPS_AROUND;
      },
    });
    const runs = [...load.result.runs.values()];
    const everyAccount = async (steps: number): Promise<void> => {
      while (runs.some((run) => run.steps < steps)) await sleep(50);
    };
    await everyAccount(STEPS_AROUND);
    say("roll: every engine, then every gateway (SIGTERM)");
    const rollFrom = performance.now();
    const steps = await rollAll(roll);
    const rollTo = performance.now();
    const atRollEnd = Math.max(...runs.map((run) => run.steps));
    await everyAccount(atRollEnd + STEPS_AROUND);
    phase = "kill";
    say("roll: kill -9 of engine 0's serving process, another of its index waiting");
    const killed = await topology.replace(roll.stack, 0, "SIGKILL");
    const servedAt = await firstServed(roll, 0);
    if (Number.isFinite(servedAt)) await killed.serving;
    const killTo = performance.now();
    phase = "end";
    const result = await load.done;
    const during = between(result.sent, rollFrom, rollTo);
    const gap = between(result.sent, killed.signalledAt, killTo);
    return {
      keys,
      paceMs,
      topology: topology.name,
      settings: { ...ROLL_ENGINE_ENV, ...ROLL_GATEWAY_ENV, ...gatewayEnv, balancerPollMs: "100" },
      roll: {
        seconds: round((rollTo - rollFrom) / 1000, 1),
        steps: steps.map((s) => ({
          what: s.what,
          exitCode: s.exitCode,
          seconds: round((s.to - s.from) / 1000, 2),
          fromSignalSeconds: round((s.to - s.signalledAt) / 1000, 2),
        })),
        unavailableReasons: reasons(roll),
        sent: during.length,
        failed: during.filter((s) => !s.ok).length,
        latencyMs: summarize(during.map((s) => s.ms)),
        failures: during
          .flatMap((s) => (s.failure === undefined ? [] : [`${round((s.at - rollFrom) / 1000, 1)} s: ${s.failure}`]))
          .slice(0, 20),
      },
      kill: {
        takeOverMs: round(servedAt - killed.signalledAt, 0),
        sent: gap.length,
        failed: gap.filter((s) => !s.ok).length,
        exitCode: killed.exitCode,
      },
    };
  } finally {
    if (logFile !== undefined) writeFileSync(logFile, roll.stack.output());
    await roll.stop();
  }
}

/** The rows of `npm run bench`'s summary table. */
export function rollRows(result: RollResult): FigureRow[] {
  return [
    {
      figure: `rolling restart (${result.keys} keys): failed requests`,
      unit: "requests",
      values: [result.roll.failed],
      target: { text: "0", ok: result.roll.failed === 0 },
    },
    {
      figure: "rolling restart: p99 latency during the roll",
      unit: "ms",
      values: [result.roll.latencyMs.p99],
      target: { text: `≤ ${TARGET_P99_MS}`, ok: result.roll.latencyMs.p99 <= TARGET_P99_MS },
    },
    { figure: "rolling restart: max latency during the roll", unit: "ms", values: [result.roll.latencyMs.max] },
    { figure: "kill -9 of an engine: take-over (kill → first 200)", unit: "ms", values: [result.kill.takeOverMs] },
  ];
}

/** Writes bench/roll-results.json with the machine's figures. */
export function writeRollResults(result: RollResult, loadStart: string): void {
  mkdirSync(path.dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, JSON.stringify({ ...machine(loadStart, loadAverage()), ...result }, null, 2) + "\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      keys: { type: "string" },
      "pace-ms": { type: "string" },
      "hold-ms": { type: "string" },
      log: { type: "string" },
    },
  });
  const loadStart = loadAverage();
  const say = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  const result = await benchRoll(
    say,
    Number(values.keys ?? 60),
    Number(values["pace-ms"] ?? 1_000),
    Number(values["hold-ms"] ?? GATEWAY_ENV.HANDOVER_HOLD_MS),
    values.log,
  );
  writeRollResults(result, loadStart);
  say(JSON.stringify({ roll: { ...result.roll, failures: undefined }, kill: result.kill }, null, 2));
  say(`Wrote ${path.relative(ROOT, RESULTS)}`);
}

if (isEntryPoint(import.meta.url)) runMain("bench:roll", main);
