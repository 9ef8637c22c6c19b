// The load generator of `npm run bench:engine`: keep-alive HTTP/1.1 over raw `net` sockets, one request in
// flight per connection, N connections. It is used for every HTTP figure of the run (bare node:http, the
// Express → grpc-js ceiling, the real gateway), so they all pay the same client cost, and that cost is small
// (a few µs per request, reported with each run): on two cores the client competes with the servers, and
// http.Agent or fetch would spend several times more CPU per request than a hand-made parser. The connections
// are the load driver's (scripts/load/http.ts).
//
// Closed loop: every connection sends its next request as soon as the previous answer arrived; throughput is
// the answers completed inside the window. Open loop: requests are due at a fixed rate whatever the server
// does, and latency counts from the moment a request was due (so a stalled server cannot hide its backlog).
//
// Also here: percentiles, and the CPU time of process trees from /proc (to split a request's cost by process).
import { readdirSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Connection } from "./load/http.js";

/** What one target is asked: `request(seq)` returns the whole request (head and body), ASCII. */
export interface HttpTarget {
  name: string;
  host: string;
  port: number;
  request(seq: number): string;
  /** The status every answer must have. */
  expectStatus: number;
  /** A check of the body of every `checkEvery`-th answer (the rest are only counted). */
  check?(body: string): string | undefined;
  checkEvery?: number;
}

export interface LatencyStats {
  count: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

export interface RunResult {
  target: string;
  mode: "closed" | "open";
  connections: number;
  durationMs: number;
  /** Answers completed inside the window (closed loop) or for the requests due in it (open loop). */
  completed: number;
  requestsPerSecond: number;
  /** Answers with another status than expected, failed body checks, socket errors. */
  errors: number;
  /** Status → count of the unexpected answers. */
  statuses: Record<string, number>;
  /** First failed body check or socket error, for the report. */
  firstError: string | undefined;
  latency: LatencyStats;
  /** CPU time of this process (the load generator) per answer, µs. */
  clientCpuUsPerRequest: number;
  /** Open loop only: the rate asked for, and the most requests that waited for a free connection. */
  targetRate?: number;
  maxBacklog?: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? NaN;
}

export const round = (value: number, digits = 3): number => Number(value.toFixed(digits));

export function latencyStats(values: readonly number[]): LatencyStats {
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    p50Ms: round(percentile(sorted, 50)),
    p90Ms: round(percentile(sorted, 90)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted.length === 0 ? NaN : (sorted[sorted.length - 1] ?? NaN)),
    meanMs: round(sorted.length === 0 ? NaN : sum / sorted.length),
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return NaN;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

// ---------------------------------------------------------------- runs

class Tally {
  readonly latencies: number[] = [];
  completed = 0;
  errors = 0;
  readonly statuses: Record<string, number> = {};
  firstError: string | undefined;
  private answers = 0;

  constructor(private readonly target: HttpTarget) {}

  /** Whether this answer's body is checked (decided before sending, so only those bodies are kept). */
  wantsBody(): boolean {
    const every = this.target.checkEvery ?? 0;
    return this.target.check !== undefined && every > 0 && this.answers % every === 0;
  }

  record(status: number, body: Buffer | undefined, error: string | undefined, latencyMs: number, count: boolean): void {
    this.answers++;
    if (!count) return;
    if (error !== undefined) {
      this.errors++;
      this.statuses.socket = (this.statuses.socket ?? 0) + 1;
      this.firstError ??= error;
      return;
    }
    if (status !== this.target.expectStatus) {
      this.errors++;
      this.statuses[String(status)] = (this.statuses[String(status)] ?? 0) + 1;
      this.firstError ??= `status ${status}${body === undefined ? "" : `: ${body.toString("utf8").slice(0, 300)}`}`;
      return;
    }
    if (body !== undefined && this.target.check !== undefined) {
      const problem = this.target.check(body.toString("utf8"));
      if (problem !== undefined) {
        this.errors++;
        this.statuses.check = (this.statuses.check ?? 0) + 1;
        this.firstError ??= problem;
        return;
      }
    }
    this.completed++;
    this.latencies.push(latencyMs);
  }
}

async function openConnections(target: HttpTarget, count: number): Promise<Connection[]> {
  const connections = Array.from({ length: count }, () => new Connection(target.host, target.port));
  await Promise.all(connections.map((c) => c.open()));
  return connections;
}

function clientCpuMs(): number {
  const cpu = process.cpuUsage();
  return (cpu.user + cpu.system) / 1000;
}

/** The figures of a finished run from its tally and the client's CPU time over it (ms). */
function runResult(
  target: HttpTarget,
  mode: RunResult["mode"],
  connections: number,
  durationMs: number,
  tally: Tally,
  cpuMs: number,
): RunResult {
  return {
    target: target.name,
    mode,
    connections,
    durationMs,
    completed: tally.completed,
    requestsPerSecond: Math.round(tally.completed / (durationMs / 1000)),
    errors: tally.errors,
    statuses: tally.statuses,
    firstError: tally.firstError,
    latency: latencyStats(tally.latencies),
    clientCpuUsPerRequest: round((cpuMs * 1000) / Math.max(1, tally.completed), 1),
  };
}

/** Sequence numbers shared by every run of a target, so no request (client_id) repeats. */
const sequences = new Map<string, number>();
function nextSeq(target: HttpTarget): number {
  const seq = sequences.get(target.name) ?? 0;
  sequences.set(target.name, seq + 1);
  return seq;
}

/** Closed loop: `connections` connections, each one request in flight, for `durationMs`. */
export async function closedLoop(target: HttpTarget, connections: number, durationMs: number): Promise<RunResult> {
  const conns = await openConnections(target, connections);
  const tally = new Tally(target);
  const cpuStart = clientCpuMs();
  const started = performance.now();
  const end = started + durationMs;
  let inFlight = 0;
  let finished: (() => void) | undefined;
  const loop = (conn: Connection): void => {
    const sent = performance.now();
    inFlight++;
    conn.send(
      target.request(nextSeq(target)),
      (status, body, error) => {
        inFlight--;
        const now = performance.now();
        tally.record(status, body, error, now - sent, now <= end);
        if (now < end) loop(conn);
        else if (inFlight === 0) finished?.();
      },
      tally.wantsBody(),
    );
  };
  await new Promise<void>((resolve) => {
    finished = resolve;
    for (const conn of conns) loop(conn);
  });
  const cpuMs = clientCpuMs() - cpuStart;
  for (const conn of conns) conn.close();
  return runResult(target, "closed", connections, durationMs, tally, cpuMs);
}

/**
 * Open loop: requests due every 1/rate s for `durationMs`, each sent on a free connection or queued until one
 * frees up; latency counts from when it was due. Waits at most `drainMs` for the last answers.
 */
export async function openLoop(
  target: HttpTarget,
  connections: number,
  rate: number,
  durationMs: number,
  drainMs = 30_000,
): Promise<RunResult> {
  const conns = await openConnections(target, connections);
  const free = [...conns];
  const backlog: number[] = [];
  const tally = new Tally(target);
  const interval = 1000 / rate;
  const total = Math.floor((durationMs / 1000) * rate);
  let issued = 0;
  let answered = 0;
  let maxBacklog = 0;
  const cpuStart = clientCpuMs();
  const started = performance.now() + 5;
  let finished: (() => void) | undefined;

  const dispatch = (conn: Connection, due: number): void => {
    conn.send(
      target.request(nextSeq(target)),
      (status, body, error) => {
        answered++;
        tally.record(status, body, error, performance.now() - due, true);
        const next = backlog.shift();
        if (next !== undefined) dispatch(conn, next);
        else free.push(conn);
        if (answered === total) finished?.();
      },
      tally.wantsBody(),
    );
  };
  const tick = (): void => {
    const now = performance.now();
    while (issued < total && started + issued * interval <= now) {
      const due = started + issued * interval;
      issued++;
      const conn = free.pop();
      if (conn !== undefined) dispatch(conn, due);
      else {
        backlog.push(due);
        if (backlog.length > maxBacklog) maxBacklog = backlog.length;
      }
    }
    if (issued < total) setTimeout(tick, 1);
  };
  const done = new Promise<void>((resolve) => {
    finished = resolve;
  });
  setTimeout(tick, 5);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    done.then(() => false),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => {
        resolve(true);
      }, durationMs + drainMs);
    }),
  ]);
  clearTimeout(timer);
  const cpuMs = clientCpuMs() - cpuStart;
  for (const conn of conns) conn.close();
  if (timedOut) {
    const missing = total - answered;
    tally.errors += missing;
    tally.statuses.timeout = missing;
    tally.firstError ??= `${missing} requests unanswered ${drainMs} ms after the run`;
  }
  return { ...runResult(target, "open", connections, durationMs, tally, cpuMs), targetRate: rate, maxBacklog };
}

// ---------------------------------------------------------------- CPU time of process trees (Linux /proc)

/** CPU seconds of every process tree started by this process, keyed by a label of the tree's root. */
export type CpuSample = Map<string, number>;

interface ProcEntry {
  ppid: number;
  cpuTicks: number;
  zombie: boolean;
}

const CLOCK_TICKS = 100;

function readProc(): Map<number, ProcEntry> | undefined {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const table = new Map<number, ProcEntry>();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      table.set(Number(pid), {
        ppid: Number(fields[1]),
        cpuTicks: Number(fields[11]) + Number(fields[12]),
        zombie: fields[0] === "Z",
      });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/**
 * CPU seconds so far of each tree rooted at a process in `roots` (pid → label): the root and every
 * descendant (threads included, as /proc counts them with their process). Trees with the same label add up.
 */
export function sampleCpu(roots: ReadonlyMap<number, string>): CpuSample {
  const sample: CpuSample = new Map();
  const table = readProc();
  if (table === undefined) return sample;
  const labelOf = (pid: number): string | undefined => {
    let at: number | undefined = pid;
    for (let depth = 0; at !== undefined && at > 1 && depth < 64; depth++) {
      const label = roots.get(at);
      if (label !== undefined) return label;
      at = table.get(at)?.ppid;
    }
    return undefined;
  };
  for (const [pid, entry] of table) {
    const label = labelOf(pid);
    if (label !== undefined) sample.set(label, (sample.get(label) ?? 0) + entry.cpuTicks / CLOCK_TICKS);
  }
  return sample;
}

/** The running direct children of this process (zombies left out) with their command lines. */
export function childProcesses(): { pid: number; cmdline: string }[] {
  const table = readProc();
  if (table === undefined) return [];
  const children: { pid: number; cmdline: string }[] = [];
  for (const [pid, entry] of table) {
    if (entry.ppid !== process.pid || entry.zombie) continue;
    try {
      children.push({ pid, cmdline: readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ") });
    } catch {
      // gone meanwhile
    }
  }
  return children;
}
