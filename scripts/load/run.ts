// Runs one scenario: sends every key's requests at their due times (scripts/load/schedule.ts), whatever the
// answers do, and records when each was due, sent and answered, and its status.
import { performance } from "node:perf_hooks";
import { joinHostPort } from "../../kernel/address.js";
import { Pool, requestText } from "./http.js";
import { KeyMix, OPERATIONS, expectedStatus, type Operation, type SymbolPlan } from "./mix.js";
import type { LoadKey } from "./provision.js";
import { dueTimes, type KeyPlan } from "./schedule.js";

/** Status recorded for a request without an HTTP answer. */
export const NO_ANSWER = { socket: 0, timeout: -1 } as const;

/** One row per request, in columns (a 30-minute soak makes millions). Times are ms from the run's start. */
export class Recording {
  size = 0;
  due = new Float64Array(1024);
  sent = new Float64Array(1024);
  end = new Float64Array(1024);
  status = new Int16Array(1024);
  key = new Uint32Array(1024);
  op = new Uint8Array(1024);
  /** The first answer body of each unexpected `op status`, cut to 300 characters. */
  readonly samples = new Map<string, string>();

  add(due: number, sent: number, key: number, op: Operation): number {
    if (this.size === this.due.length) this.grow();
    const i = this.size++;
    this.due[i] = due;
    this.sent[i] = sent;
    this.end[i] = NaN;
    this.status[i] = NO_ANSWER.timeout;
    this.key[i] = key;
    this.op[i] = OPERATIONS.indexOf(op);
    return i;
  }

  operation(i: number): Operation {
    return OPERATIONS[this.op[i] ?? 0] ?? "account";
  }

  private grow(): void {
    const n = this.due.length * 2;
    const f = (a: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> => {
      const b = new Float64Array(n);
      b.set(a);
      return b;
    };
    this.due = f(this.due);
    this.sent = f(this.sent);
    this.end = f(this.end);
    const s = new Int16Array(n);
    s.set(this.status);
    this.status = s;
    const k = new Uint32Array(n);
    k.set(this.key);
    this.key = k;
    const o = new Uint8Array(n);
    o.set(this.op);
    this.op = o;
  }
}

/** The answer body as JSON; undefined when there is none or it is not JSON (it then teaches the key nothing). */
function parsedBody(body: Buffer | undefined): unknown {
  if (body === undefined) return undefined;
  try {
    return JSON.parse(body.toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}

export interface RunOptions {
  host: string;
  port: number;
  keys: readonly LoadKey[];
  symbols: readonly SymbolPlan[];
  plans: readonly KeyPlan[];
  /** How long to wait for answers after the last send. */
  drainMs?: number;
  /** Sockets opened before the run. */
  warmConnections?: number;
  /** Most sockets open at once; beyond, requests wait for a free one (their latency still counts from due). */
  maxConnections?: number;
  /** Called about once a second with the run time (ms) and the requests answered so far. */
  progress?: (atMs: number, answered: number) => void;
}

export interface RunOutcome {
  recording: Recording;
  /** Run time of the last due send, ms. */
  lastDueMs: number;
  /** Wall time from the first due send to the last answer (or the end of the drain). */
  elapsedMs: number;
  clientCpuMs: number;
  pool: Pool["stats"];
  unanswered: number;
}

export async function runLoad(options: RunOptions): Promise<RunOutcome> {
  const pool = new Pool(options.host, options.port, options.maxConnections ?? 2048);
  await pool.warm(options.warmConnections ?? Math.min(256, Math.max(4, options.keys.length * 2)));
  const hostHeader = joinHostPort(options.host, options.port);
  const runTag = Date.now().toString(36);
  const symbolPlan = new Map(options.symbols.map((s) => [s.symbol, s]));
  const perKey = options.keys.map((k) => {
    const plan = symbolPlan.get(k.symbol);
    if (plan === undefined) throw new Error(`no plan for ${k.symbol}`);
    return {
      mix: new KeyMix(k.accountId, plan),
      headers: `x-api-key: ${k.key}\r\nx-api-secret: ${k.secret}\r\n`,
    };
  });
  const recording = new Recording();
  const events = dueTimes(options.plans);
  let next = events.next();
  let lastDueMs = 0;
  let outstanding = 0;
  let answered = 0;
  const cpuStart = process.cpuUsage();
  const t0 = performance.now() + 20;

  const send = (atMs: number, keyIndex: number, seq: number): void => {
    const k = perKey[keyIndex];
    if (k === undefined) throw new Error(`no key ${keyIndex}`);
    const { op, request: req } = k.mix.next(seq, `${runTag}-${keyIndex}-${seq}`);
    const text = requestText(req.method, req.path, hostHeader, k.headers, req.body);
    const row = recording.add(atMs, performance.now() - t0, keyIndex, op);
    outstanding++;
    pool.request(text, (status, body, error) => {
      recording.end[row] = performance.now() - t0;
      recording.status[row] = error === undefined ? status : NO_ANSWER.socket;
      outstanding--;
      answered++;
      if (error !== undefined) {
        if (!recording.samples.has(`${op} socket`)) recording.samples.set(`${op} socket`, error);
        return;
      }
      if (status === expectedStatus(op)) {
        k.mix.answered(op, status, () => parsedBody(body));
      } else if (!recording.samples.has(`${op} ${status}`)) {
        recording.samples.set(`${op} ${status}`, (body?.toString("utf8") ?? "").slice(0, 300));
      }
    });
  };

  let lastProgress = 0;
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now() - t0;
      while (next.done !== true && next.value.atMs <= now) {
        send(next.value.atMs, next.value.key, next.value.seq);
        lastDueMs = next.value.atMs;
        next = events.next();
      }
      if (options.progress !== undefined && now - lastProgress >= 1000) {
        lastProgress = now;
        options.progress(now, answered);
      }
      if (next.done === true) {
        resolve();
        return;
      }
      const wait = next.value.atMs - (performance.now() - t0);
      setTimeout(tick, Math.max(0, Math.min(wait, 1000)));
    };
    setTimeout(tick, Math.max(0, t0 - performance.now()));
  });

  // Drain: wait for the last answers, at most drainMs.
  const drainUntil = performance.now() + (options.drainMs ?? 10_000);
  while (outstanding > 0 && performance.now() < drainUntil) await new Promise((r) => setTimeout(r, 5));
  const elapsedMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpuStart);
  // Requests still outstanding stay unanswered (timeout): the closed pool never answers them.
  pool.close();
  return {
    recording,
    lastDueMs,
    elapsedMs,
    clientCpuMs: (cpu.user + cpu.system) / 1000,
    pool: pool.stats,
    unanswered: outstanding,
  };
}
