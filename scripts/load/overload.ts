// The overload benchmark (docs/performance.md, "Overload"): starts the stack, measures its capacity with a
// closed loop of the load mix, then offers open-loop load at multiples of it (0.5×, 1×, 2×, 4×) from many keys,
// one well-behaved key at its documented limit beside the flood, prints the figures of every step and the
// targets met or missed, and writes bench/overload-<backend>.json. Run by `npm run load -- --scenario overload`
// and by `npm run bench`.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { stackOn } from "../../test/harness/backends.js";
import { marketClient } from "../../test/harness/market.js";
import type { FigureRow } from "../bench-report.js";
import { referencePrices, startFeed } from "./feed.js";
import {
  evaluateTargets,
  floodKeysNeeded,
  GOALS,
  planSteps,
  type OverloadArgs,
  type StepPlan,
  type Verdict,
} from "./overload-plan.js";
import { formatOverload, summarizeStep, type StepSummary } from "./overload-report.js";
import { BURST, runBurst, type BurstResult } from "./overload-burst.js";
import { courses, measureCapacity, runStep, type CapacityResult, type KeyCourse, type Target } from "./overload-run.js";
import { provision, type Provisioned } from "./provision.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Keys the closed loop spreads its requests over: enough that none passes its limit below 1,900 requests/s. */
const CAPACITY_KEYS = 128;

export interface OverloadResult {
  backend: string;
  redis: boolean;
  settings: OverloadArgs;
  capacity: CapacityResult | { perSecond: number; given: true };
  steps: StepSummary[];
  verdicts: Verdict[];
  /** Not run when the flood comes from a few keys (their raised rate limit would not be the documented one). */
  burst: BurstResult | undefined;
  file: string;
}

const backendName = (args: OverloadArgs): string =>
  `${args.backend === "pglite" ? "embedded" : "postgres"}${args.redis ? " + Redis" : ""}` +
  (args.floodKeys === undefined ? "" : `, flood from ${args.floodKeys} keys`);

/**
 * A rate limit no flood key reaches in a step (a key at 4× a capacity of 2,000/s sends under 500,000 a minute):
 * with `--flood-keys`, the flood keys are held back only by admission (docs/overload.md).
 */
const RAISED_RATE_LIMIT = "100000000";

const resultFile = (args: OverloadArgs): string =>
  args.out ??
  path.join(
    ROOT,
    "bench",
    `overload-${args.backend === "pglite" ? "embedded" : "postgres"}${args.floodKeys === undefined ? "" : "-few-keys"}.json`,
  );

async function provisionKeys(v1: string, api: string, count: number, symbols: readonly string[]): Promise<Provisioned> {
  return provision({ v1, api, keys: count, symbols, concurrency: 4 });
}

async function runSteps(
  target: Target,
  args: OverloadArgs,
  plans: readonly StepPlan[],
  flood: readonly KeyCourse[],
  wellBehaved: KeyCourse,
  capacity: number,
  say: (line: string) => void,
): Promise<StepSummary[]> {
  const steps: StepSummary[] = [];
  for (const plan of plans) {
    say(
      `step ${plan.multiplier}×: ${Math.round(plan.offeredPerSecond)} requests/s offered for ${args.stepMs / 1000} s ` +
        `(${plan.floodKeys} flood keys × ${Math.round(plan.floodPerKeyPerMinute)}/min + the well-behaved key at ` +
        `${args.wellBehavedRate}/s) …`,
    );
    const { rows, generator } = await runStep(target, {
      flood: flood.slice(0, plan.floodKeys),
      floodPerKeyPerMinute: plan.floodPerKeyPerMinute,
      wellBehaved,
      wellBehavedPerSecond: args.wellBehavedRate,
      durationMs: args.stepMs,
      maxOutstanding: args.maxOutstanding,
      drainMs: args.drainMs,
    });
    const step = summarizeStep(plan, args.stepMs, capacity, rows, generator);
    say(
      `  2xx/s ${step.goodputPerSecond} (${Math.round(step.goodputShare * 100)}% of capacity), shed ${step.shed}, ` +
        `other 503 ${step.unavailable}, 500 ${step.internal}, 429 ${step.rateLimited}, overflow ${step.overflow}`,
    );
    steps.push(step);
    await new Promise((r) => setTimeout(r, args.settleMs));
  }
  return steps;
}

/** The burst part: fresh keys at the documented limit, each request answered 503 sent again after its Retry-After. */
async function burstOn(
  gateway: { v1: string; api: string },
  symbols: readonly string[],
  say: (line: string) => void,
): Promise<BurstResult> {
  say(
    `burst: ${BURST.keys} fresh keys × ${BURST.perKey} concurrent GET /v1/tickers, 503 retried ≤ ${BURST.retries}× …`,
  );
  const burstKeys = (await provisionKeys(gateway.v1, gateway.api, BURST.keys, symbols)).keys;
  return runBurst(gateway.v1, burstKeys);
}

/**
 * Starts a stack on `args.backend`, runs the benchmark on it, stops it; prints as it goes. `onStop` is given the
 * stack's stop, for a caller that stops everything on a signal.
 */
export async function runOverload(
  args: OverloadArgs,
  say: (line: string) => void,
  onStop?: (name: string, stop: () => Promise<void>) => void,
): Promise<OverloadResult> {
  const name = backendName(args);
  say(`overload: starting the stack (${name}, PRICE_FEED=push) …`);
  const stack = await stackOn(args.backend, {
    redis: args.redis,
    env: {
      PRICE_FEED: "push",
      LOG_LEVEL: "info",
      ...(args.floodKeys === undefined ? {} : { RATE_LIMIT_MAX: RAISED_RATE_LIMIT }),
    },
    // A long run rests more LIMIT orders per account than the default cap (docs/engine.md, "Limits").
    engineEnv: { ENGINE_MAX_WORKING_ORDERS: "100000" },
  });
  onStop?.("overload stack", () => stack.stop());
  const market = marketClient(stack.engineGrpc, process.env.INTERNAL_TOKEN);
  let stopFeed: (() => void) | undefined;
  try {
    stopFeed = await startFeed(market, referencePrices(args.symbols), say);
    const gateway = stack.gateways[0];
    if (gateway === undefined) throw new Error("no gateway");
    const url = new URL(gateway.v1);
    const target: Target = { host: url.hostname, port: Number(url.port) };

    say(`provisioning ${CAPACITY_KEYS} keys and accounts for the capacity run …`);
    const first = await provisionKeys(gateway.v1, gateway.api, CAPACITY_KEYS, args.symbols);
    const symbols = first.symbols;
    const keys = courses(first.keys, symbols);
    let capacity: OverloadResult["capacity"];
    if (args.capacity === undefined) {
      say(
        `measuring capacity: closed loop, ${args.concurrency} in flight over ${CAPACITY_KEYS} keys, ` +
          `${args.capacityWarmupMs / 1000} s warm-up + ${args.capacityMs / 1000} s …`,
      );
      capacity = await measureCapacity(target, keys, {
        concurrency: args.concurrency,
        warmupMs: args.capacityWarmupMs,
        durationMs: args.capacityMs,
        drainMs: args.drainMs,
      });
      say(`  capacity ${capacity.perSecond} 2xx/s (p99 ${capacity.p99Ms} ms; ${JSON.stringify(capacity.counts)})`);
    } else {
      capacity = { perSecond: args.capacity, given: true };
    }
    const plans = planSteps({
      capacityPerSecond: capacity.perSecond,
      multipliers: args.multipliers,
      floodKeyRate: args.floodKeyRate,
      wellBehavedRate: args.wellBehavedRate,
      floodKeys: args.floodKeys,
    });
    const needed = floodKeysNeeded(plans);
    if (needed > keys.length) {
      say(`provisioning ${needed - keys.length} more keys and accounts …`);
      const more = await provisionKeys(gateway.v1, gateway.api, needed - keys.length, args.symbols);
      keys.push(...courses(more.keys, symbols));
    }
    // The well-behaved key is one of its own, which the capacity run did not use.
    const [wellBehaved] = courses((await provisionKeys(gateway.v1, gateway.api, 1, args.symbols)).keys, symbols);
    if (wellBehaved === undefined) throw new Error("no well-behaved key");
    const steps = await runSteps(target, args, plans, keys, wellBehaved, capacity.perSecond, say);
    const verdicts = evaluateTargets(steps.map((s) => ({ ...s, wellBehavedP99Ms: s.wellBehaved.p99Ms })));
    const burst = args.floodKeys === undefined ? await burstOn(gateway, args.symbols, say) : undefined;
    say("");
    say(formatOverload(`overload on ${name}: capacity ${capacity.perSecond} 2xx/s`, steps, verdicts));
    if (burst !== undefined) {
      say(
        `${burst.met ? "met   " : "MISSED"}  burst: every key exactly ${BURST.limit} × 200 and ` +
          `${BURST.perKey - BURST.limit} × 429 within ${BURST.withinMs / 1000} s: ${burst.ms} ms, ` +
          `${JSON.stringify(burst.perKey)}, ${burst.retried} retried after 503`,
      );
    }
    const file = resultFile(args);
    const result: OverloadResult = {
      backend: name,
      redis: args.redis,
      settings: args,
      capacity,
      steps,
      verdicts,
      burst,
      file,
    };
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(
      file,
      `${JSON.stringify(
        {
          ...result,
          file: undefined,
          finishedAt: new Date().toISOString(),
          machine: { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg() },
        },
        null,
        2,
      )}\n`,
    );
    say(`wrote ${path.relative(process.cwd(), file)}`);
    return result;
  } finally {
    stopFeed?.();
    market.close();
    await stack.stop();
  }
}

/** The summary rows of `npm run bench` for one backend's run (bench-report.ts). */
export function overloadRows(result: OverloadResult): FigureRow[] {
  const at = (m: number): StepSummary | undefined => result.steps.find((s) => s.multiplier === m);
  const verdict = (prefix: string): { text: string; ok: boolean } | undefined => {
    const v = result.verdicts.find((x) => x.target.startsWith(prefix));
    return v === undefined ? undefined : { text: v.target, ok: v.met };
  };
  const rows: FigureRow[] = [
    {
      figure: `overload ${result.backend}: capacity (closed loop of the mix)`,
      unit: "2xx/s",
      values: [result.capacity.perSecond],
    },
  ];
  for (const m of GOALS.goodputAtMultipliers) {
    const step = at(m);
    const target = verdict(`goodput at ${m}×`);
    rows.push({
      figure: `overload ${result.backend}: goodput at ${m}× capacity`,
      unit: "share",
      values: step === undefined ? [] : [step.goodputShare],
      ...(target === undefined ? {} : { target }),
    });
  }
  const shed = verdict("p99 of shed");
  rows.push({
    figure: `overload ${result.backend}: worst p99 of shed answers`,
    unit: "ms",
    values: result.steps.filter((s) => s.shed > 0).map((s) => s.shedP99Ms),
    ...(shed === undefined ? {} : { target: shed }),
  });
  const wb = verdict("well-behaved");
  rows.push({
    figure: `overload ${result.backend}: well-behaved key p99 per step`,
    unit: "ms",
    values: result.steps.map((s) => s.wellBehaved.p99Ms),
    ...(wb === undefined ? {} : { target: wb }),
  });
  const internal = verdict("no 500");
  rows.push({
    figure: `overload ${result.backend}: 500 answers, all steps`,
    unit: "count",
    values: [result.steps.reduce((n, s) => n + s.internal, 0)],
    ...(internal === undefined ? {} : { target: internal }),
  });
  if (result.burst === undefined) return rows;
  rows.push({
    figure: `overload ${result.backend}: burst of ${BURST.keys} keys × ${BURST.perKey} tickers, first request to last answer`,
    unit: "ms",
    values: [result.burst.ms],
    target: {
      text: `every key ${BURST.limit} × 200 and ${BURST.perKey - BURST.limit} × 429 within 15 s`,
      ok: result.burst.met,
    },
  });
  return rows;
}
