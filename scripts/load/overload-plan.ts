// The overload benchmark's pure parts (docs/performance.md, "Overload"): its command line, the plan of its
// steps (how many keys at what rate offer each multiple of the measured capacity), how an answer is classified,
// and the targets each run is judged against.
import { parseDuration } from "./args.js";

/** The documented limit of one key: 1,200 requests a minute (RATE_LIMIT_MAX over RATE_LIMIT_WINDOW_MS). */
export const KEY_LIMIT_PER_SECOND = 20;

export interface OverloadArgs {
  backend: "postgres" | "pglite";
  redis: boolean;
  /** Multiples of the measured capacity offered, one step each, in this order. */
  multipliers: number[];
  stepMs: number;
  /** Closed loop that measures the capacity: warm-up, then the measured part. */
  capacityWarmupMs: number;
  capacityMs: number;
  /** Requests in flight in the closed loop. */
  concurrency: number;
  /** A capacity given instead of measured (requests/s). */
  capacity: number | undefined;
  /** Most requests/s one flood key sends (below the key's limit, so the limiter never refuses it). */
  floodKeyRate: number;
  /**
   * The flood from exactly this many keys instead (each far above the documented limit): the stack runs with the
   * rate limit raised out of the way, so only admission holds the flood keys back.
   */
  floodKeys: number | undefined;
  /** Rate of the well-behaved key, requests/s (its documented limit). */
  wellBehavedRate: number;
  /** Most flood requests in flight; a request due beyond it is not sent and counts as generator overflow. */
  maxOutstanding: number;
  /** After each step: wait this long at most for its last answers (they count as unanswered after it). */
  drainMs: number;
  /** Pause between steps, after the drain, so one step's queues do not reach into the next. */
  settleMs: number;
  symbols: string[];
  out: string | undefined;
}

export const OVERLOAD_USAGE = `npm run load -- --scenario overload [options]
  --backend B           embedded (default; alias pglite) or postgres
  --redis / --no-redis  a throwaway Redis for the limits (default: on with postgres, off with embedded)
  --multipliers L       multiples of the measured capacity, one step each (0.5,1,2,4)
  --step D              each step's length (15s)
  --capacity-warmup D   closed-loop warm-up before the capacity is measured (3s)
  --capacity-duration D closed-loop run that measures the capacity (10s)
  --concurrency N       requests in flight in that closed loop (64)
  --capacity N          skip the measurement: use N requests/s as the capacity
  --flood-key-rate N    most requests/s per flood key (15; the limit is 20)
  --flood-keys N        the flood from exactly N keys instead, the rate limit raised out of their way (no burst)
  --well-behaved-rate N the well-behaved key's rate, requests/s (20: its limit)
  --max-outstanding N   most flood requests in flight; beyond, due requests are not sent (2048)
  --drain D             wait for a step's last answers at most this long (5s)
  --settle D            pause between steps (2s)
  --symbols A,B         symbols traded (BTC-USD,ETH-USD)
  --out F               JSON results (bench/overload-<backend>.json)`;

const BOOLEAN_FLAGS = new Set(["redis", "no-redis", "help"]);

function readArgv(argv: readonly string[]): { values: Map<string, string>; flags: Set<string> } {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (!arg.startsWith("--")) throw new Error(`unexpected argument "${arg}"\n${OVERLOAD_USAGE}`);
    const eq = arg.indexOf("=");
    if (eq > 0) {
      values.set(arg.slice(2, eq), arg.slice(eq + 1));
      continue;
    }
    const name = arg.slice(2);
    if (BOOLEAN_FLAGS.has(name)) {
      flags.add(name);
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined || value.startsWith("--")) throw new Error(`--${name} needs a value\n${OVERLOAD_USAGE}`);
    values.set(name, value);
    i++;
  }
  return { values, flags };
}

const KNOWN = new Set([
  "scenario",
  "backend",
  "multipliers",
  "step",
  "capacity-warmup",
  "capacity-duration",
  "concurrency",
  "capacity",
  "flood-key-rate",
  "flood-keys",
  "well-behaved-rate",
  "max-outstanding",
  "drain",
  "settle",
  "symbols",
  "out",
]);

/** Whether a `npm run load` command line asks for the overload scenario. */
export function isOverloadScenario(argv: readonly string[]): boolean {
  return argv.some((a, i) => a === "--scenario=overload" || (a === "--scenario" && argv[i + 1] === "overload"));
}

export function parseOverloadArgs(argv: readonly string[]): OverloadArgs {
  const { values, flags } = readArgv(argv);
  if (flags.has("help")) throw new Error(OVERLOAD_USAGE);
  for (const name of values.keys())
    if (!KNOWN.has(name)) throw new Error(`unknown option --${name}\n${OVERLOAD_USAGE}`);
  const positive = (name: string, fallback: number, integer = false): number => {
    const raw = values.get(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!(value > 0) || (integer && !Number.isInteger(value))) throw new Error(`--${name} must be a positive number`);
    return value;
  };
  const duration = (name: string, fallback: number): number => {
    const raw = values.get(name);
    return raw === undefined ? fallback : raw === "0" ? 0 : parseDuration(raw);
  };
  const backendName = values.get("backend") ?? "embedded";
  const backend = backendName === "embedded" ? "pglite" : backendName;
  if (backend !== "postgres" && backend !== "pglite") throw new Error("--backend is embedded or postgres");
  if (flags.has("redis") && flags.has("no-redis")) throw new Error("--redis or --no-redis, not both");
  const multipliers = (values.get("multipliers") ?? "0.5,1,2,4").split(",").map((m) => Number(m.trim()));
  if (multipliers.length === 0 || multipliers.some((m) => !(m > 0))) {
    throw new Error("--multipliers must be positive numbers, e.g. 0.5,1,2,4");
  }
  const capacity = values.get("capacity");
  const floodKeys = values.get("flood-keys");
  return {
    backend,
    redis: flags.has("redis") || (backend === "postgres" && !flags.has("no-redis")),
    multipliers,
    stepMs: duration("step", 15_000),
    capacityWarmupMs: duration("capacity-warmup", 3_000),
    capacityMs: duration("capacity-duration", 10_000),
    concurrency: positive("concurrency", 64, true),
    capacity: capacity === undefined ? undefined : positive("capacity", 0),
    floodKeyRate: positive("flood-key-rate", 15),
    floodKeys: floodKeys === undefined ? undefined : positive("flood-keys", 0, true),
    wellBehavedRate: positive("well-behaved-rate", KEY_LIMIT_PER_SECOND),
    maxOutstanding: positive("max-outstanding", 2048, true),
    drainMs: duration("drain", 5_000),
    settleMs: duration("settle", 2_000),
    symbols: (values.get("symbols") ?? "BTC-USD,ETH-USD")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
    out: values.get("out"),
  };
}

export interface StepPlan {
  multiplier: number;
  /** Everything offered, flood and well-behaved key together, requests/s. */
  offeredPerSecond: number;
  /** Flood keys sending in this step (the first ones of the provisioned list). */
  floodKeys: number;
  /** Rate of each flood key, requests/minute (the same for all of them). */
  floodPerKeyPerMinute: number;
}

export interface PlanInput {
  capacityPerSecond: number;
  multipliers: readonly number[];
  floodKeyRate: number;
  wellBehavedRate: number;
  /** The flood spread over exactly this many keys, whatever their rate (`--flood-keys`). */
  floodKeys?: number | undefined;
}

/**
 * One step per multiplier: multiplier × capacity offered in all, the well-behaved key's share included, the rest
 * spread evenly over as few flood keys as keep each at or below `floodKeyRate`, or over exactly `floodKeys`.
 */
export function planSteps(input: PlanInput): StepPlan[] {
  if (!(input.capacityPerSecond > 0)) throw new Error(`capacity must be positive, got ${input.capacityPerSecond}`);
  return input.multipliers.map((multiplier) => {
    const offered = multiplier * input.capacityPerSecond;
    const flood = Math.max(0, offered - input.wellBehavedRate);
    const floodKeys = flood === 0 ? 0 : (input.floodKeys ?? Math.ceil(flood / input.floodKeyRate - 1e-9));
    return {
      multiplier,
      offeredPerSecond: offered,
      floodKeys,
      floodPerKeyPerMinute: floodKeys === 0 ? 0 : (60 * flood) / floodKeys,
    };
  });
}

/** Flood keys the largest step needs. */
export function floodKeysNeeded(steps: readonly StepPlan[]): number {
  return Math.max(0, ...steps.map((s) => s.floodKeys));
}

/** What became of one request. */
export type Outcome =
  "ok" | "shed" | "rate_limited" | "internal" | "unavailable" | "refused" | "other" | "socket" | "timeout" | "overflow";

export interface Classified {
  outcome: Outcome;
  /** The label it is counted under: the outcome, with the status or error code where they tell more. */
  label: string;
}

/** The `error` field of a JSON answer body, if it has one. */
export function errorCode(body: string | undefined): string | undefined {
  if (body === undefined || body === "") return undefined;
  try {
    const parsed = JSON.parse(body) as unknown;
    if (typeof parsed !== "object" || parsed === null) return undefined;
    const code = (parsed as { error?: unknown }).error;
    return typeof code === "string" ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An HTTP answer by status and error code: 2xx served; 503 `overloaded` shed; any other 503 unavailable (by its
 * code); 500 internal; 429 rate limited; other 4xx refused (e.g. an order the risk checks refuse); the rest other.
 */
export function classifyAnswer(status: number, code: string | undefined): Classified {
  if (status >= 200 && status < 300) return { outcome: "ok", label: "ok" };
  if (status === 503 && code === "overloaded") return { outcome: "shed", label: "503 overloaded" };
  if (status === 503) return { outcome: "unavailable", label: `503 ${code ?? "(no code)"}` };
  if (status === 500) return { outcome: "internal", label: `500 ${code ?? "(no code)"}` };
  if (status === 429) return { outcome: "rate_limited", label: "429" };
  if (status >= 400 && status < 500) return { outcome: "refused", label: `${status} ${code ?? "(no code)"}` };
  return { outcome: "other", label: `${status} ${code ?? "(no code)"}` };
}

/** Whether a request with this outcome got an HTTP answer that was not a 503 ("answered" in the report). */
export function answeredNot503(outcome: Outcome): boolean {
  return (
    outcome === "ok" ||
    outcome === "rate_limited" ||
    outcome === "internal" ||
    outcome === "refused" ||
    outcome === "other"
  );
}

export const GOALS = {
  /** Goodput at 2× and 4× the capacity, as a share of it. */
  goodputShare: 0.9,
  goodputAtMultipliers: [2, 4],
  shedP99Ms: 50,
  /** The well-behaved key's p99 at the largest multiplier over its p99 at the smallest. */
  wellBehavedRatio: 2,
} as const;

/** What the targets read of one step. */
export interface StepVerdictInput {
  multiplier: number;
  goodputShare: number;
  /** NaN when nothing was shed. */
  shedP99Ms: number;
  shed: number;
  wellBehavedP99Ms: number;
  internal: number;
}

export interface Verdict {
  target: string;
  value: string;
  met: boolean;
}

const ms = (value: number): string => (Number.isFinite(value) ? `${Math.round(value * 10) / 10} ms` : String(value));

/** The targets, each met or missed, for one backend's steps. */
export function evaluateTargets(steps: readonly StepVerdictInput[]): Verdict[] {
  const verdicts: Verdict[] = [];
  for (const m of GOALS.goodputAtMultipliers) {
    const step = steps.find((s) => s.multiplier === m);
    verdicts.push({
      target: `goodput at ${m}× ≥ ${GOALS.goodputShare * 100}% of capacity`,
      value: step === undefined ? "step not run" : `${Math.round(step.goodputShare * 1000) / 10}%`,
      met: step !== undefined && step.goodputShare >= GOALS.goodputShare,
    });
  }
  const shedding = steps.filter((s) => s.shed > 0);
  const worstShed = Math.max(-Infinity, ...shedding.map((s) => s.shedP99Ms));
  verdicts.push({
    target: `p99 of shed answers ≤ ${GOALS.shedP99Ms} ms at every step`,
    value: shedding.length === 0 ? "nothing shed" : `worst ${ms(worstShed)}`,
    met: shedding.length === 0 || worstShed <= GOALS.shedP99Ms,
  });
  const byMultiplier = [...steps].sort((a, b) => a.multiplier - b.multiplier);
  const low = byMultiplier[0];
  const high = byMultiplier[byMultiplier.length - 1];
  const ratio = low === undefined || high === undefined ? NaN : high.wellBehavedP99Ms / low.wellBehavedP99Ms;
  verdicts.push({
    target: `well-behaved key's p99 at ${high?.multiplier ?? "?"}× ≤ ${GOALS.wellBehavedRatio} × its p99 at ${low?.multiplier ?? "?"}×`,
    value:
      low === undefined || high === undefined
        ? "no steps"
        : `${ms(high.wellBehavedP99Ms)} / ${ms(low.wellBehavedP99Ms)} = ${Math.round(ratio * 100) / 100}×`,
    met: steps.length >= 2 && ratio <= GOALS.wellBehavedRatio,
  });
  const internal = steps.reduce((n, s) => n + s.internal, 0);
  verdicts.push({ target: "no 500 at any step", value: `${internal} × 500`, met: internal === 0 });
  return verdicts;
}
