// `npm run bench:supervisor`: how fast `npm start` heals a crashed child under load (docs/performance.md,
// "Supervisor restart (npm start)"; docs/runbook.md, "npm start: supervision"). It launches `npm start` as the
// e2e test does (test/harness/npm-start.ts: fresh ports and DATA_DIR, its own process group, RATE_LIMIT_MAX
// raised), creates a key and some accounts, starts a steady order load (scripts/bench-supervisor-load.ts), then
// for each round kills the child (SIGKILL, its pid from the supervisor's latest "<child> started" line) and
// measures, from the kill: the supervisor's "<child> started" line of the restart, `/readyz` 200 on each
// listener (/v1 and /api, polled every 25 ms once that line came), and the first 201 to an order sent after the
// kill. Rounds are spaced so the child has been up a whole SUPERVISOR_RESTARTS_WINDOW_MS since its last start at
// each kill: the supervisor then restarts it after its first delay (the delay it used is read from its
// "restarting in" line and reported). Requests are counted by outcome per round, by when their answer came
// (from its kill to the next one); afterwards every order answered 201 is read back by id. Prints a table and
// writes bench/supervisor-results.json. The npm start process group is killed on the way out, whatever happened.
// Usage: npm run bench:supervisor -- [--rounds 5] [--child engine|wallet|gateway] [--workers 8] [--rate 40]
//          [--accounts 4] [--window-ms 60000]
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { isEntryPoint } from "../kernel/process.js";
import { newKey, v1, type CreatedKey } from "../test/harness/client.js";
import {
  launchNpmStart,
  readyOrKill,
  startedChild,
  supervisorLines,
  until,
  type NpmStart,
} from "../test/harness/npm-start.js";
import { OrderLoad, lostAcknowledged, type Sent } from "./bench-supervisor-load.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PLAN_200K = "15ef9280-770d-4664-9de7-93fcd7677a98";
const CHILDREN = ["engine", "wallet", "gateway"] as const;
type Child = (typeof CHILDREN)[number];
/** The supervisor's SUPERVISOR_RESTARTS_WINDOW_MS when unset (scripts/supervisor.ts). */
const DEFAULT_WINDOW_MS = 60_000;
/** Orders acknowledged before the first kill. */
const WARM_ACKS = 40;

interface Options {
  rounds: number;
  child: Child;
  workers: number;
  rate: number;
  accounts: number;
  windowMs: number | undefined;
}

interface Round {
  round: number;
  /** The supervisor's delay before the restart ("restarting in <delay_ms> ms"). */
  restartDelayMs: number;
  startedMs: number;
  v1ReadyMs: number;
  apiReadyMs: number;
  readyMs: number;
  first201Ms: number;
  sent: number;
  acknowledged: number;
  unavailable: number;
  /** The 503 answers by their body's `error`. */
  unavailableBy: Record<string, number>;
  /** Answers other than 201 and 503, by status and error. */
  other: Record<string, number>;
  /** Requests that got no answer (refused, reset), by reason. */
  noAnswer: Record<string, number>;
}

/** A round's requests by outcome. */
type Counts = Pick<Round, "sent" | "acknowledged" | "unavailable" | "unavailableBy" | "other" | "noAnswer">;

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      rounds: { type: "string", default: "5" },
      child: { type: "string", default: "engine" },
      workers: { type: "string", default: "8" },
      rate: { type: "string", default: "40" },
      accounts: { type: "string", default: "4" },
      "window-ms": { type: "string" },
    },
  });
  const child = values.child as Child;
  if (!CHILDREN.includes(child)) throw new Error(`--child must be one of ${CHILDREN.join(", ")}`);
  const positive = (name: string, value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`--${name} must be a positive integer`);
    return parsed;
  };
  const windowMs = values["window-ms"];
  return {
    rounds: positive("rounds", values.rounds),
    child,
    workers: positive("workers", values.workers),
    rate: positive("rate", values.rate),
    accounts: positive("accounts", values.accounts),
    windowMs: windowMs === undefined ? undefined : positive("window-ms", windowMs),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const ready = async (base: string): Promise<boolean> => (await fetch(`${base}/readyz`)).status === 200;
const exitedReason = (stack: NpmStart) => (): string | undefined =>
  stack.exitCode === undefined ? undefined : `npm start exited with ${String(stack.exitCode)}`;

/** ms from `from` (performance.now()) until `base`'s /readyz answers 200, polled every 25 ms. */
async function readyAfter(stack: NpmStart, base: string, from: number): Promise<number> {
  const deadline = performance.now() + 120_000;
  while (!(await ready(base).catch(() => false))) {
    const reason = exitedReason(stack)() ?? (performance.now() > deadline ? `${base} not ready in 120 s` : undefined);
    if (reason !== undefined) throw new Error(`${reason}; its output:\n${stack.output.slice(-4_000)}`);
    await sleep(25);
  }
  return performance.now() - from;
}

/** The supervisor's latest line that `match` accepts (its `time` is the wall clock when it was printed). */
function supervisorLine(stack: NpmStart, match: (line: Record<string, unknown>) => boolean): Record<string, unknown> {
  const line = supervisorLines(stack).filter(match).at(-1);
  if (line === undefined) throw new Error("supervisor line not found");
  return line;
}

/** One kill of `child` and what followed; `load` keeps running throughout. */
async function killRound(
  stack: NpmStart,
  load: OrderLoad,
  child: Child,
  round: number,
): Promise<Omit<Round, keyof Counts> & { killedAt: number }> {
  const before = await startedChild(stack, child);
  let first201At: number | undefined;
  const killedAt = performance.now();
  const killedWall = Date.now();
  load.onAnswer = (entry: Sent) => {
    if (first201At === undefined && entry.status === 201 && entry.sentAt > killedAt) first201At = entry.answeredAt;
  };
  process.kill(before.pid, "SIGKILL");
  await startedChild(stack, child, before.restarts);
  const started = supervisorLine(
    stack,
    (l) => l.msg === `${child} started` && Number(l.restarts) === before.restarts + 1,
  );
  const restarting = supervisorLine(stack, (l) =>
    String(l.msg).startsWith(`${child} exited (SIGKILL); restarting in `),
  );
  const [v1ReadyMs, apiReadyMs] = await Promise.all([
    readyAfter(stack, stack.v1Base, killedAt),
    readyAfter(stack, stack.api, killedAt),
  ]);
  await until(
    () => Promise.resolve(first201At !== undefined),
    120_000,
    exitedReason(stack),
    () => stack.output,
  );
  return {
    round,
    killedAt,
    restartDelayMs: Number(restarting.delay_ms),
    startedMs: Date.parse(String(started.time)) - killedWall,
    v1ReadyMs,
    apiReadyMs,
    readyMs: Math.max(v1ReadyMs, apiReadyMs),
    first201Ms: (first201At ?? killedAt) - killedAt,
  };
}

/** The requests answered (or failed) in [from, to), counted by outcome. */
function tally(sent: readonly Sent[], from: number, to: number): Counts {
  const these = sent.filter((entry) => entry.answeredAt >= from && entry.answeredAt < to);
  const other: Record<string, number> = {};
  const noAnswer: Record<string, number> = {};
  const unavailableBy: Record<string, number> = {};
  for (const entry of these) {
    if (entry.status === undefined) noAnswer[entry.reason ?? ""] = (noAnswer[entry.reason ?? ""] ?? 0) + 1;
    else if (entry.status === 503) unavailableBy[entry.reason ?? ""] = (unavailableBy[entry.reason ?? ""] ?? 0) + 1;
    else if (entry.status !== 201) {
      const name = `${entry.status} ${entry.reason ?? ""}`;
      other[name] = (other[name] ?? 0) + 1;
    }
  }
  return {
    sent: these.length,
    acknowledged: these.filter((entry) => entry.status === 201).length,
    unavailable: these.filter((entry) => entry.status === 503).length,
    unavailableBy,
    other,
    noAnswer,
  };
}

/** Waits until `child` has been up a whole window since its latest start (its first restart delay applies). */
async function spaceOut(stack: NpmStart, child: Child, windowMs: number): Promise<void> {
  await startedChild(stack, child);
  const started = supervisorLine(stack, (l) => l.msg === `${child} started`);
  const waitMs = Date.parse(String(started.time)) + windowMs + 1_000 - Date.now();
  if (waitMs > 0) {
    process.stderr.write(`waiting ${Math.round(waitMs / 1_000)} s: ${child} up a whole restart window\n`);
    await sleep(waitMs);
  }
}

async function setUp(stack: NpmStart, options: Options): Promise<{ key: CreatedKey; accountIds: string[] }> {
  await readyOrKill(stack);
  const key = await newKey(stack.api, "bench-supervisor", { label: "load", permissions: ["READ_ONLY", "TRADE"] });
  const accountIds: string[] = [];
  for (let i = 0; i < options.accounts; i++) {
    const created = await v1(stack.v1Base, "/v1/account", key, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ plan_id: PLAN_200K, label: `bench-supervisor-${i}` }),
    });
    if (created.status !== 201) throw new Error(`account: ${created.status} ${JSON.stringify(created.body)}`);
    accountIds.push(String(created.body.account_id));
  }
  return { key, accountIds };
}

/** The rounds against a serving stack, then the read-back of every acknowledged order. */
async function measure(stack: NpmStart, options: Options) {
  const { key, accountIds } = await setUp(stack, options);
  const load = new OrderLoad({ v1Base: stack.v1Base, key, accountIds, workers: options.workers, rate: options.rate });
  const loadFrom = performance.now();
  load.start();
  const kills: Awaited<ReturnType<typeof killRound>>[] = [];
  try {
    const acked = (): number => load.sent.filter((entry) => entry.status === 201).length;
    await until(
      () => Promise.resolve(acked() >= WARM_ACKS),
      120_000,
      exitedReason(stack),
      () => stack.output,
    );
    for (let round = 1; round <= options.rounds; round++) {
      await spaceOut(stack, options.child, options.windowMs ?? DEFAULT_WINDOW_MS);
      const result = await killRound(stack, load, options.child, round);
      kills.push(result);
      process.stderr.write(`round ${round}/${options.rounds}: ${JSON.stringify(result)}\n`);
    }
    await sleep(2_000);
  } finally {
    await load.stop();
  }
  const loadTo = performance.now();
  const rounds: Round[] = kills.map(({ killedAt, ...result }, i) => ({
    ...result,
    ...tally(load.sent, killedAt, kills[i + 1]?.killedAt ?? loadTo),
  }));
  const lost = await lostAcknowledged(stack.v1Base, key, load.sent);
  const warmUp = tally(load.sent, loadFrom, kills[0]?.killedAt ?? loadTo);
  return { rounds, warmUp, lost, total: tally(load.sent, loadFrom, loadTo + 1) };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};
const count = (tallies: Record<string, number>): number => Object.values(tallies).reduce((a, b) => a + b, 0);
const MEASURES = ["restartDelayMs", "startedMs", "v1ReadyMs", "apiReadyMs", "readyMs", "first201Ms"] as const;

function table(rounds: readonly Round[]): string {
  const header = ["round", "delay", "started", "/v1 ready", "/api ready", "ready (both)", "first 201", "sent", "201"];
  const row = (name: string, values: (number | string)[]): string => `| ${[name, ...values].join(" | ")} |`;
  const lines = [
    row(header[0] ?? "", [...header.slice(1), "503", "other", "no answer"]),
    `|${"---|".repeat(header.length + 3)}`,
    ...rounds.map((r) =>
      row(String(r.round), [
        ...MEASURES.map((m) => Math.round(r[m])),
        r.sent,
        r.acknowledged,
        r.unavailable,
        count(r.other),
        count(r.noAnswer),
      ]),
    ),
  ];
  for (const [name, pick] of [
    ["median", median],
    ["max", (values: number[]) => Math.max(...values)],
  ] as const) {
    lines.push(row(name, [...MEASURES.map((m) => Math.round(pick(rounds.map((r) => r[m])))), "", "", "", "", ""]));
  }
  return `${lines.join("\n")}\n(times in ms from the kill -9)\n`;
}

/** Stops the stack (SIGTERM, then SIGKILL to its process group past 30 s) and removes its DATA_DIR. */
async function shutDown(stack: NpmStart): Promise<void> {
  if (stack.exitCode === undefined) {
    stack.child.kill("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([stack.exited, new Promise((resolve) => (timer = setTimeout(resolve, 30_000)))]);
    clearTimeout(timer);
  }
  killGroup(stack);
  rmSync(stack.dataDir, { recursive: true, force: true });
}

/** Set once the stack's process group was killed: its id may be another group's afterwards. */
let groupGone = false;

/** SIGKILL to every process left in the stack's process group (none, once it stopped cleanly). */
function killGroup(stack: NpmStart): void {
  const pid = stack.child.pid;
  if (pid === undefined || groupGone) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the group is gone.
  }
  groupGone = true;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const loadAverageStart = os.loadavg();
  const env: Record<string, string> = { RATE_LIMIT_MAX: "1000000" };
  if (options.windowMs !== undefined) env.SUPERVISOR_RESTARTS_WINDOW_MS = String(options.windowMs);
  const stack = await launchNpmStart({ env, detached: true });
  const abort = (): void => {
    killGroup(stack);
    rmSync(stack.dataDir, { recursive: true, force: true });
    process.exit(130);
  };
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  process.once("exit", () => {
    killGroup(stack);
  });
  let measured: Awaited<ReturnType<typeof measure>>;
  try {
    measured = await measure(stack, options);
  } finally {
    await shutDown(stack);
  }
  const { rounds, warmUp, lost, total } = measured;
  const summary = Object.fromEntries(
    MEASURES.map((m) => [m, { median: median(rounds.map((r) => r[m])), max: Math.max(...rounds.map((r) => r[m])) }]),
  );
  const results = {
    date: new Date().toISOString(),
    command: `npm run bench:supervisor -- ${process.argv.slice(2).join(" ")}`.trim(),
    machine: { cpus: os.cpus().length, node: process.version, loadAverageStart, loadAverageEnd: os.loadavg() },
    options: { ...options, windowMs: options.windowMs ?? DEFAULT_WINDOW_MS },
    summary: {
      ...summary,
      acknowledged: total.acknowledged,
      unavailable: total.unavailable,
      unavailableBy: total.unavailableBy,
      other: total.other,
      noAnswer: total.noAnswer,
      lostAcknowledged: lost.length,
    },
    lost: lost.slice(0, 20),
    warmUp,
    rounds,
  };
  mkdirSync(path.join(ROOT, "bench"), { recursive: true });
  writeFileSync(path.join(ROOT, "bench", "supervisor-results.json"), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(
    `kill -9 of the ${options.child}, ${rounds.length} rounds, load average ${loadAverageStart.map((l) => l.toFixed(2)).join(" ")} at the start\n\n` +
      table(rounds) +
      `\nacknowledged ${total.acknowledged}, 503 ${total.unavailable}, other statuses ${count(total.other)}, ` +
      `no answer ${count(total.noAnswer)}, acknowledged orders lost ${lost.length}\nwrote bench/supervisor-results.json\n`,
  );
}

if (isEntryPoint(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `bench:supervisor failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
