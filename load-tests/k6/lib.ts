// What every k6 scenario shares: the keys file, one constant-arrival-rate scenario per key (so each key sends
// at exactly its rate, evenly spaced, whatever the answers do), the request mix of scripts/load/mix.ts, and the
// custom metrics. k6 runs this file itself (k6 ≥ 1.0 reads TypeScript); `npm run check` type-checks it
// against @types/k6. See load-tests/README.md.
import { check } from "k6";
import { SharedArray } from "k6/data";
import exec from "k6/execution";
import http from "k6/http";
import { Counter, Trend } from "k6/metrics";
import type { Options, Scenario } from "k6/options";
import { KeyMix, expectedStatus, type SymbolPlan } from "../../scripts/load/mix.ts";

/** One entry of the provisioning file (npm run load:provision). */
interface LoadKey {
  index: number;
  key: string;
  secret: string;
  accountId: string;
  symbol: string;
}

interface KeysFile {
  baseUrl: string;
  symbols: SymbolPlan[];
  keys: LoadKey[];
}

const KEYS_FILE = __ENV.KEYS_FILE ?? "../keys.json";
const file = JSON.parse(open(KEYS_FILE)) as KeysFile;
const keys = new SharedArray<LoadKey>("keys", () => file.keys);
const symbols = new Map(file.symbols.map((s) => [s.symbol, s]));

export const BASE_URL = (__ENV.BASE_URL ?? file.baseUrl).replace(/\/+$/, "");

/** A number from the environment, or `fallback`. */
export function envNumber(name: string, fallback: number): number {
  const raw = __ENV[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

/** "90s", "3m", "1h", "500ms" → ms. */
export function durationMs(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text);
  if (match === null) throw new Error(`bad duration "${text}"`);
  const scale: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  return Math.round(Number(match[1]) * (scale[match[2] ?? "s"] ?? 1000));
}

export const ms = (value: number): string => `${Math.round(value * 1000) / 1000}ms`;

/** How many keys the file has; KEYS may ask for fewer. */
export function keyCount(fallback: number): number {
  const wanted = envNumber("KEYS", Math.min(fallback, keys.length));
  if (wanted > keys.length) throw new Error(`KEYS=${wanted} but ${KEYS_FILE} has ${keys.length} keys`);
  return Math.floor(wanted);
}

export interface KeyScenarioOptions {
  /** Keys first … first + count - 1. */
  first: number;
  count: number;
  /** All keys of the test, for the stagger: key i starts i / total of an interval late. */
  total: number;
  ratePerMinute: number;
  duration: string;
  startMs?: number;
  /** Most VUs one key may use when answers are slow (an iteration without a free VU is dropped and counted). */
  maxVUs?: number;
}

/** One constant-arrival-rate scenario per key, running `step`. */
export function keyScenarios(o: KeyScenarioOptions): Record<string, Scenario> {
  const intervalMs = 60_000 / o.ratePerMinute;
  const scenarios: Record<string, Scenario> = {};
  for (let i = o.first; i < o.first + o.count; i++) {
    // @types/k6 declares BaseScenario as an abstract class, but k6 takes plain objects (its own examples do).
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
    scenarios[`key_${i}`] = {
      executor: "constant-arrival-rate",
      rate: o.ratePerMinute,
      timeUnit: "1m",
      duration: o.duration,
      startTime: ms((o.startMs ?? 0) + (i * intervalMs) / o.total),
      preAllocatedVUs: 1,
      maxVUs: o.maxVUs ?? 4,
      exec: "step",
      env: { KEY_INDEX: String(i) },
      tags: { key: String(i) },
    };
  }
  return scenarios;
}

/**
 * The thresholds of a run where every key stays at its limit: nothing fails, no 429, every answer has the status
 * its operation expects, p99 within P99_MS (default `p99Ms`); `dropped: true` also refuses dropped iterations.
 */
export function atLimitThresholds(p99Ms: number, options: { dropped?: true } = {}): Options["thresholds"] {
  return {
    http_req_failed: ["rate==0"],
    http_req_duration: [`p(99)<${envNumber("P99_MS", p99Ms)}`],
    rate_limited: ["count==0"],
    unexpected_status: ["count==0"],
    ...(options.dropped === true ? { dropped_iterations: ["count==0"] } : {}),
  };
}

/** The trend statistics every scenario's summary shows. */
export const SUMMARY_TREND_STATS = ["med", "p(95)", "p(99)", "max"];

/**
 * The options of a run where every key sends at RATE (default 1,200 a minute) from start to end: KEYS keys
 * (default `keys`) for DURATION (default `duration`), with the at-limit thresholds and no dropped iterations.
 */
export function steadyOptions(defaults: { keys: number; duration: string }): Options {
  const keys = keyCount(defaults.keys);
  return {
    scenarios: keyScenarios({
      first: 0,
      count: keys,
      total: keys,
      ratePerMinute: envNumber("RATE", 1200),
      duration: __ENV.DURATION ?? defaults.duration,
    }),
    thresholds: atLimitThresholds(50, { dropped: true }),
    summaryTrendStats: SUMMARY_TREND_STATS,
  };
}

/** 429 answers. */
export const rateLimited = new Counter("rate_limited");
/** Answers with the status the operation expects. */
export const accepted = new Counter("accepted");
/** Answers that are neither the expected status nor 429. */
export const unexpected = new Counter("unexpected_status");
/**
 * After each accepted answer: how many of this VU's accepted requests were certainly inside the rolling window
 * that ends now (sent after now − window, answered by now; a held request is counted at its slot, between the
 * two). It is a lower bound of what the server counted for the key, so max > the limit proves the limit broken.
 */
export const acceptedInWindow = new Trend("accepted_in_window");

export interface SetupData {
  run: string;
}

/** Runs once before the scenarios: a tag that keeps this run's client_ids apart from every other run's. */
export function setup(): SetupData {
  return { run: `k6-${Date.now().toString(36)}` };
}

const WINDOW_MS = envNumber("WINDOW_MS", 60_000);
const mixes = new Map<number, KeyMix>();
const acceptedLog = new Map<number, { sent: number; received: number }[]>();

/** One request of key KEY_INDEX: its scenario iteration number picks the operation from the mix. */
export function step(data: SetupData): void {
  const index = Number(__ENV.KEY_INDEX);
  const key = keys[index];
  if (key === undefined) throw new Error(`no key ${index}`);
  const plan = symbols.get(key.symbol);
  if (plan === undefined) throw new Error(`no symbol plan for ${key.symbol}`);
  let mix = mixes.get(index);
  if (mix === undefined) mixes.set(index, (mix = new KeyMix(key.accountId, plan)));
  const seq = exec.scenario.iterationInTest;
  const { op, request } = mix.next(seq, `${data.run}-${index}-${seq}`);
  const sent = Date.now();
  const res = http.request(request.method, `${BASE_URL}${request.path}`, request.body ?? null, {
    headers: { "Content-Type": "application/json", "X-API-Key": key.key, "X-API-Secret": key.secret },
    tags: { op, name: op },
  });
  const received = Date.now();
  const expected = expectedStatus(op);
  if (res.status === 429) {
    rateLimited.add(1, { op });
  } else if (res.status === expected) {
    accepted.add(1, { op });
    mix.answered(op, res.status, () => res.json());
  } else {
    unexpected.add(1, { op, status: String(res.status) });
  }
  if (res.status >= 200 && res.status < 300) {
    let log = acceptedLog.get(index);
    if (log === undefined) acceptedLog.set(index, (log = []));
    log.push({ sent, received });
    while (log.length > 0 && (log[0]?.sent ?? 0) <= received - WINDOW_MS) log.shift();
    acceptedInWindow.add(log.length, { key: String(index) });
  }
  check(res, { "expected status or 429": (r) => r.status === expected || r.status === 429 });
}
