// The overload benchmark's two loops on the raw-socket client (scripts/load/http.ts): a closed loop that
// measures the capacity, and an open-loop step that sends every request at its due time whatever the answers
// do, flood keys and one well-behaved key side by side (docs/performance.md, "Overload").
import { performance } from "node:perf_hooks";
import { joinHostPort } from "../../kernel/address.js";
import { Pool, requestText } from "./http.js";
import { KeyMix, type SymbolPlan } from "./mix.js";
import { classifyAnswer, errorCode, type Classified } from "./overload-plan.js";
import type { GeneratorFigures, StepRow } from "./overload-report.js";
import type { LoadKey } from "./provision.js";
import { dueTimes, planKeys, type KeyPlan } from "./schedule.js";
import { percentile, round } from "./stats.js";

/** One key's course through the mix, kept across the capacity run and every step. */
export interface KeyCourse {
  mix: KeyMix;
  headers: string;
  /** Its next request's number in the mix. */
  seq: number;
}

export function courses(keys: readonly LoadKey[], symbols: readonly SymbolPlan[]): KeyCourse[] {
  const plans = new Map(symbols.map((s) => [s.symbol, s]));
  return keys
    .map((k) => {
      const plan = plans.get(k.symbol);
      if (plan === undefined) throw new Error(`no plan for ${k.symbol}`);
      return { mix: new KeyMix(k.accountId, plan), headers: `x-api-key: ${k.key}\r\nx-api-secret: ${k.secret}\r\n` };
    })
    .map((c) => ({ ...c, seq: 0 }));
}

export interface Target {
  host: string;
  port: number;
}

const runTag = Date.now().toString(36);

/** The answer body as JSON; undefined when it is not JSON (it then teaches the key nothing). */
function parsed(body: Buffer | undefined): unknown {
  try {
    return JSON.parse(body?.toString("utf8") ?? "") as unknown;
  } catch {
    return undefined;
  }
}

/** Sends the course's next request; `done` gets its classification when the answer (or a socket error) comes. */
function sendNext(pool: Pool, target: Target, course: KeyCourse, tag: string, done: (c: Classified) => void): void {
  const seq = course.seq++;
  const { op, request } = course.mix.next(seq, `${runTag}-${tag}-${seq}`);
  const text = requestText(
    request.method,
    request.path,
    joinHostPort(target.host, target.port),
    course.headers,
    request.body,
  );
  pool.request(text, (status, body, error) => {
    if (error !== undefined) {
      done({ outcome: "socket", label: "socket" });
      return;
    }
    const classified = classifyAnswer(status, status >= 300 ? errorCode(body?.toString("utf8")) : undefined);
    if (classified.outcome === "ok") course.mix.answered(op, status, () => parsed(body));
    done(classified);
  });
}

export interface CapacityResult {
  perSecond: number;
  concurrency: number;
  durationMs: number;
  /** Answers in the measured part, by label. */
  counts: Record<string, number>;
  p99Ms: number;
  generatorCpuUsPerRequest: number;
}

/**
 * Closed loop: `concurrency` requests in flight, each answer followed at once by the next key's next request
 * (keys round-robin). The capacity is the 2xx answered per second in the measured part, after the warm-up.
 */
export async function measureCapacity(
  target: Target,
  keys: readonly KeyCourse[],
  options: { concurrency: number; warmupMs: number; durationMs: number; drainMs: number },
): Promise<CapacityResult> {
  const pool = new Pool(target.host, target.port, options.concurrency);
  await pool.warm(options.concurrency);
  const t0 = performance.now();
  const from = t0 + options.warmupMs;
  const until = from + options.durationMs;
  const counts: Record<string, number> = {};
  const latencies: number[] = [];
  let ok = 0;
  let sent = 0;
  let next = 0;
  const cpuStart = process.cpuUsage();
  const worker = (): Promise<void> =>
    new Promise((resolve) => {
      const loop = (): void => {
        if (performance.now() >= until) {
          resolve();
          return;
        }
        const course = keys[next++ % keys.length];
        if (course === undefined) throw new Error("no keys");
        const start = performance.now();
        sent++;
        sendNext(pool, target, course, "c", (c) => {
          const end = performance.now();
          if (start >= from && end < until) {
            counts[c.label] = (counts[c.label] ?? 0) + 1;
            latencies.push(end - start);
            if (c.outcome === "ok") ok++;
          }
          loop();
        });
      };
      loop();
    });
  // A request never answered would hold its worker: the loop ends at most `drainMs` after the measured part.
  await Promise.race([
    Promise.all(Array.from({ length: options.concurrency }, worker)),
    new Promise((r) => setTimeout(r, until - performance.now() + options.drainMs)),
  ]);
  const cpu = process.cpuUsage(cpuStart);
  pool.close();
  return {
    perSecond: round(ok / (options.durationMs / 1000), 1),
    concurrency: options.concurrency,
    durationMs: options.durationMs,
    counts,
    p99Ms: round(percentile(Float64Array.from(latencies).sort(), 99)),
    generatorCpuUsPerRequest: round((cpu.user + cpu.system) / Math.max(1, sent), 1),
  };
}

export interface StepOptions {
  flood: readonly KeyCourse[];
  floodPerKeyPerMinute: number;
  wellBehaved: KeyCourse;
  wellBehavedPerSecond: number;
  durationMs: number;
  maxOutstanding: number;
  drainMs: number;
}

/** The flood keys' grids (scripts/load/schedule.ts) and the well-behaved key's, as the last plan. */
export function stepPlans(
  floodKeys: number,
  floodPerKeyPerMinute: number,
  wbPerSecond: number,
  durationMs: number,
): KeyPlan[] {
  const flood =
    floodKeys === 0
      ? []
      : planKeys({ scenario: "per-key", keys: floodKeys, ratePerMinute: floodPerKeyPerMinute, durationMs });
  const interval = 1000 / wbPerSecond;
  return [
    ...flood,
    { key: floodKeys, offsetMs: interval / 2, intervalMs: interval, active: [{ fromMs: 0, untilMs: durationMs }] },
  ];
}

/**
 * One open-loop step: every request at its due time. Flood requests beyond `maxOutstanding` in flight are not
 * sent (overflow); the well-behaved key has a pool of its own and no cap, so the flood's sockets never delay it.
 */
export async function runStep(
  target: Target,
  options: StepOptions,
): Promise<{ rows: StepRow[]; generator: GeneratorFigures }> {
  const floodPool = new Pool(target.host, target.port, options.maxOutstanding);
  const wbPool = new Pool(target.host, target.port, 64);
  const floodRate = (options.flood.length * options.floodPerKeyPerMinute) / 60;
  await floodPool.warm(Math.min(256, Math.max(4, Math.ceil(floodRate / 20))));
  await wbPool.warm(4);
  const wbIndex = options.flood.length;
  const events = dueTimes(
    stepPlans(options.flood.length, options.floodPerKeyPerMinute, options.wellBehavedPerSecond, options.durationMs),
  );
  const rows: StepRow[] = [];
  let outstanding = 0;
  let wbOutstanding = 0;
  let peak = 0;
  let sent = 0;
  const cpuStart = process.cpuUsage();
  const t0 = performance.now() + 20;
  const send = (due: number, key: number): void => {
    const wellBehaved = key === wbIndex;
    const course = wellBehaved ? options.wellBehaved : options.flood[key];
    if (course === undefined) throw new Error(`no key ${key}`);
    if (!wellBehaved && outstanding >= options.maxOutstanding) {
      rows.push({ due, sent: NaN, end: NaN, outcome: "overflow", label: "generator overflow", wellBehaved });
      return;
    }
    const row: StepRow = {
      due,
      sent: performance.now() - t0,
      end: NaN,
      outcome: "timeout",
      label: "timeout",
      wellBehaved,
    };
    rows.push(row);
    sent++;
    if (wellBehaved) wbOutstanding++;
    else peak = Math.max(peak, ++outstanding);
    sendNext(wellBehaved ? wbPool : floodPool, target, course, wellBehaved ? "w" : `f${key}`, (c) => {
      row.end = c.outcome === "socket" ? NaN : performance.now() - t0;
      row.outcome = c.outcome;
      row.label = c.label;
      if (wellBehaved) wbOutstanding--;
      else outstanding--;
    });
  };
  let next = events.next();
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now() - t0;
      while (next.done !== true && next.value.atMs <= now) {
        send(next.value.atMs, next.value.key);
        next = events.next();
      }
      if (next.done === true) {
        resolve();
        return;
      }
      setTimeout(tick, Math.max(0, Math.min(next.value.atMs - (performance.now() - t0), 1000)));
    };
    setTimeout(tick, Math.max(0, t0 - performance.now()));
  });
  const drainUntil = performance.now() + options.drainMs;
  while (outstanding + wbOutstanding > 0 && performance.now() < drainUntil) await new Promise((r) => setTimeout(r, 5));
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpuStart);
  floodPool.close();
  wbPool.close();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return {
    rows,
    generator: {
      cpuUsPerRequest: round((cpuMs * 1000) / Math.max(1, sent), 1),
      cpuShareOfCore: round(cpuMs / wallMs, 3),
      peakOutstanding: peak,
    },
  };
}
