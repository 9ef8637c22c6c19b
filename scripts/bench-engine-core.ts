// The pure-core part of `npm run bench:engine`, run in a worker thread started exactly like a shard thread
// (engine/shard/runtime.ts: `resourceLimits.maxYoungGenerationSizeMb: 64`). It drives the engine's actor
// (`createCore` of engine/trading-core.ts, the module the shards load) as the shard shell does: for each
// command a context (shell clock, the shard's market view, `mintIdInPartition(partition)` ids), `decide`,
// `apply` of every event, `onDecided` (book depth taken by fills). No journal, no messaging, no I/O.
//
// Scenarios (one thread, the same accounts round-robin; every round starts from freshly opened accounts):
//   limit        resting LIMIT GTC placements, BUY far below / SELL far above the mark, a fresh client_id each;
//   market       MARKET orders that fill, BUY/SELL alternating per account; a price update every N orders
//                renews the book (updateMarket + onMarket over every account, as a shard does);
//   mix          per account, of every 10 commands: 5 resting LIMIT, 4 MARKET (alternating), 1 cancel of
//                its oldest working LIMIT; price updates as in `market`;
//   limit+shell  `limit` plus the shard shell's own per-command work besides I/O: the forgotten client_id probe
//                (`recallKey`), JSON.stringify of every event (the journal rows), the order-id index,
//                structuredClone of the reply.
// With `baseline` (a checkout of an earlier commit, `--baseline=REV`), every scenario's measured rounds
// alternate between this tree's engine and the baseline's, loaded side by side in this thread (ABBA order,
// fresh accounts each round), and each round pair gives a ratio: both figures come from the same thread in the
// same minutes, not from two processes that scatter apart (docs/performance.md, "Against a baseline").
// Then, for reference, the floor (not the engine): per order only the state touches any design of a resting
// LIMIT placement makes under the contract: a fresh UUID order id (minted as the shard mints them), an
// order record of the engine's shape, the account's order, working-order and client-id tables keyed by
// those strings, and one event in a list; no parsing, no checks, no reply. Same accounts, rounds and thread.
// Posts `{ type: "progress", line }` while it runs and `{ type: "result", result }` at the end.
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { pathToFileURL } from "node:url";
import { runInNewContext } from "node:vm";
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { createCore, type EngineCommand } from "../engine/trading-core.js";
import type { AccountState, EngineEvent, Reply } from "../engine/core.js";
import type { PlaceOrder } from "../engine/core/commands.js";
import type { MarketView } from "../engine/market/book.js";
import type { TickQuote } from "../engine/market/prices.js";
import { mintIdInPartition, partitionOf } from "../kernel/partition.js";

/** An engine the rounds drive: this tree's, or a baseline checkout's. */
interface BenchEngine {
  label: string;
  core: ReturnType<typeof createCore>;
  /** The engine's own id minter per partition (made once per partition, as the shard does). */
  minterOf: (partition: number) => () => string;
}

function engineOf(label: string, core: BenchEngine["core"], mint: (partition: number) => string): BenchEngine {
  const minters: (() => string)[] = [];
  return { label, core, minterOf: (partition) => (minters[partition] ??= () => mint(partition)) };
}

const current = engineOf("this tree", createCore(), mintIdInPartition);

/**
 * Where the engine and its partitioning have lived, newest first: the module the shards load (a factory, or
 * one shared core in earlier commits), and the module that mints ids in a partition. Each is looked up on its
 * own: commits moved one without the other.
 */
export const ENGINE_FILES = ["engine/trading-core.ts", "engine/actor.ts"] as const;
export const PARTITION_FILES = ["kernel/partition.ts", "engine/shard/partition.ts"] as const;

/**
 * Loads the engine of a checkout (`dir`). A checkout whose partitioning has no minter of its own (commits
 * before the shard minted ids itself) gets `idInPartition` over a random UUID, as its shards made them.
 */
export async function loadEngine(dir: string, label: string): Promise<BenchEngine> {
  const coreFile = ENGINE_FILES.find((file) => existsSync(`${dir}/${file}`));
  const partitionFile = PARTITION_FILES.find((file) => existsSync(`${dir}/${file}`));
  if (coreFile === undefined || partitionFile === undefined) throw new Error(`${dir} has no engine in a known layout`);
  const coreModule = (await import(pathToFileURL(`${dir}/${coreFile}`).href)) as {
    createCore?: () => BenchEngine["core"];
    core?: BenchEngine["core"];
  };
  const partition = (await import(pathToFileURL(`${dir}/${partitionFile}`).href)) as {
    mintIdInPartition?: (partition: number) => string;
    idInPartition?: (partition: number, uuid: string) => string;
  };
  const core = coreModule.createCore?.() ?? coreModule.core;
  if (core === undefined) throw new Error(`${dir}/${coreFile} exports no core`);
  const { mintIdInPartition: mint, idInPartition } = partition;
  if (mint !== undefined) return engineOf(label, core, mint);
  if (idInPartition !== undefined) return engineOf(label, core, (p) => idInPartition(p, randomUUID()));
  throw new Error(`${dir}/${partitionFile} has no id minter`);
}

export interface CoreBenchOptions {
  role: "bench-engine-core";
  accounts: number;
  commandsPerRound: number;
  rounds: number;
  warmupRounds: number;
  /** Commands between two price updates in `market` and `mix`. */
  updateEvery: number;
  planId: string;
  symbol: string;
  /** Mark in ticks; updates alternate between mark and mark + 1 tick. */
  markTicks: number;
  quantity: string;
  buyLimit: string;
  sellLimit: string;
  /** The scenarios to run (default: all, in SCENARIOS order). */
  scenarios?: readonly ScenarioName[];
  /** A checkout of the baseline whose engine alternates rounds with this tree's, and how to name it. */
  baseline?: { dir: string; label: string };
}

export const SCENARIOS = ["limit", "market", "mix", "limit+shell"] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** `--core-scenarios=limit,market`: only those scenarios of the pure core (for profiling one of them). */
export function coreScenariosArg(argv: readonly string[]): ScenarioName[] | undefined {
  const arg = argv.find((a) => a.startsWith("--core-scenarios="));
  if (arg === undefined) return undefined;
  const names = arg.slice("--core-scenarios=".length).split(",");
  for (const name of names) {
    if (!(SCENARIOS as readonly string[]).includes(name)) {
      throw new Error(`unknown core scenario ${name}: one of ${SCENARIOS.join(", ")}`);
    }
  }
  return names as ScenarioName[];
}

export interface ScenarioResult {
  name: ScenarioName;
  description: string;
  commandsPerRound: number;
  accounts: number;
  /** Commands per second of each measured round. */
  rounds: number[];
  medianPerSecond: number;
  minPerSecond: number;
  maxPerSecond: number;
  /** µs per command at the median. */
  usPerCommand: number;
  /**
   * Commands per second of this thread's own CPU time (median; /proc/thread-self, 10 ms ticks): what the
   * thread does with a core to itself, whatever else the machine runs. GC work on V8's helper threads is
   * not in it. Null where /proc is missing.
   */
  medianPerCpuSecond: number | null;
  /** Thread CPU time / wall time of the rounds (median): below 1 when the thread waited for a core. */
  onCpuShareMedian: number | null;
  /** GC pause time as a share of each round's wall time (median), and the most in one round. */
  gcShareMedian: number;
  gcShareMax: number;
  /** Price updates per round and the median share of the round they took (updateMarket + onMarket). */
  updatesPerRound: number;
  updateShareMedian: number;
  /** Events applied per command. */
  eventsPerCommand: number;
  /** Outcomes over the measured rounds ("created:NEW", "created:FILLED", "ok", ...). */
  outcomes: Record<string, number>;
  /** Outcomes other than the one each command was built for (must be 0 for the figure to mean anything). */
  unexpected: number;
  /** Heap used after the last round, before its accounts were dropped (MB). */
  heapUsedMb: number;
}

/** The floor: orders/s of the bare state touches (see the file's head), rounds as the scenarios'. */
export interface FloorResult {
  description: string;
  rounds: number[];
  medianPerSecond: number;
  usPerOrder: number;
  gcShareMedian: number;
}

export interface CoreBenchResult {
  thread: string;
  resourceLimits: Record<string, number | undefined>;
  scenarios: ScenarioResult[];
  /**
   * The baseline's figures, measured in the same rounds' alternation (with `baseline` only), and per scenario
   * the median over the round pairs of this tree's rate / the baseline's (wall, and per thread-CPU second).
   */
  baseline?: { label: string; scenarios: ScenarioResult[]; pairedRatios: PairedRatio[] };
  floor: FloorResult;
}

export type CoreMessage = { type: "progress"; line: string } | { type: "result"; result: CoreBenchResult };

interface Account {
  id: string;
  userId: string;
  /** The shard's id minter of the account's partition (made once per partition, as the shard does). */
  nextId: () => string;
  state: AccountState;
  /** Order ids of this account's resting LIMIT orders, oldest first (for cancels in `mix`). */
  resting: string[];
  restingHead: number;
}

/** What a prepared command must come out as. */
type Expect = "NEW" | "FILLED" | "canceled";

interface Prepared {
  account: Account;
  /** undefined for a cancel: built when it runs (the order id is known only then). */
  command: EngineCommand | undefined;
  expect: Expect;
}

const DESCRIPTIONS: Record<ScenarioName, string> = {
  limit: "resting LIMIT GTC (BUY far below / SELL far above the mark)",
  market: "MARKET that fills, BUY/SELL alternating per account, book renewed by a price update",
  mix: "per 10 commands: 5 resting LIMIT, 4 MARKET, 1 cancel; price updates as market",
  "limit+shell": "limit + the shard shell's CPU work per command (event JSON, id index, reply clone)",
};

const post = (message: CoreMessage): void => {
  parentPort?.postMessage(message);
};

/** The shard's clock: never decreasing. */
let lastNow = 0;
const now = (): number => (lastNow = Math.max(lastNow, Date.now()));

function contextFor(account: Account, market: MarketView): { now: number; market: MarketView; nextId: () => string } {
  return { now: now(), market, nextId: account.nextId };
}

function applyAll(engine: BenchEngine, account: Account, events: readonly EngineEvent[], market: MarketView): void {
  let state: AccountState | undefined = account.state;
  for (const event of events) state = engine.core.apply(state, event);
  account.state = state;
  engine.core.onDecided?.(market, events);
}

function quote(options: CoreBenchOptions, tick: number): { prices: TickQuote[] } {
  const mark = options.markTicks + tick;
  return { prices: [{ symbol: options.symbol, mark, index: mark, skew: 0 }] };
}

function openAccounts(engine: BenchEngine, options: CoreBenchOptions, market: MarketView, round: number): Account[] {
  const core = engine.core;
  const accounts: Account[] = [];
  for (let a = 0; a < options.accounts; a++) {
    const id = randomUUID();
    const userId = `bench-user-${round}-${a}`;
    const decision = core.decide(
      undefined,
      {
        userId,
        command: { type: "OpenAccount", request: { account_id: id, user_id: userId, plan_id: options.planId } },
      },
      { now: now(), market, nextId: randomUUID },
    );
    if (decision.reply.kind !== "created") throw new Error(`OpenAccount failed: ${JSON.stringify(decision.reply)}`);
    let state: AccountState | undefined;
    for (const event of decision.events) state = core.apply(state, event);
    if (state === undefined) throw new Error("OpenAccount produced no state");
    const partition = partitionOf(id);
    accounts.push({ id, userId, nextId: engine.minterOf(partition), state, resting: [], restingHead: 0 });
  }
  return accounts;
}

/** The commands of one round, built before the clock starts (the gateway and gRPC decode are not core work). */
function prepare(scenario: ScenarioName, options: CoreBenchOptions, accounts: Account[], round: number): Prepared[] {
  const prepared: Prepared[] = [];
  for (let i = 0; i < options.commandsPerRound; i++) {
    const account = accounts[i % accounts.length];
    if (account === undefined) throw new Error("no account");
    const k = Math.floor(i / accounts.length);
    const clientId = `r${round}-${i}`;
    // Each request is one whole literal (no spread), so the objects the core decodes have every field in place.
    const placing = (request: PlaceOrder["request"], expect: Expect): Prepared => ({
      account,
      command: { userId: account.userId, command: { type: "PlaceOrder", request } },
      expect,
    });
    const limit = (side: "BUY" | "SELL"): Prepared =>
      placing(
        {
          account_id: account.id,
          symbol: options.symbol,
          side,
          kind: "LIMIT",
          quantity: options.quantity,
          limit_price: side === "BUY" ? options.buyLimit : options.sellLimit,
          client_id: clientId,
        },
        "NEW",
      );
    const marketOrder = (side: "BUY" | "SELL"): Prepared =>
      placing(
        {
          account_id: account.id,
          symbol: options.symbol,
          side,
          kind: "MARKET",
          quantity: options.quantity,
          client_id: clientId,
        },
        "FILLED",
      );
    if (scenario === "limit" || scenario === "limit+shell") {
      prepared.push(limit(k % 2 === 0 ? "BUY" : "SELL"));
    } else if (scenario === "market") {
      prepared.push(marketOrder(k % 2 === 0 ? "BUY" : "SELL"));
    } else {
      const slot = k % 10;
      if (slot < 5) prepared.push(limit(slot % 2 === 0 ? "BUY" : "SELL"));
      else if (slot < 9) prepared.push(marketOrder(slot % 2 === 1 ? "BUY" : "SELL"));
      else prepared.push({ account, command: undefined, expect: "canceled" });
    }
  }
  return prepared;
}

function outcomeOf(reply: Reply): string {
  if (reply.kind === "error") return `error:${reply.code}`;
  if ("order" in reply) return `${reply.kind}:${reply.order.status}`;
  return reply.kind;
}

const EXPECTED: Record<Expect, string> = { NEW: "created:NEW", FILLED: "created:FILLED", canceled: "ok:CANCELED" };

interface RoundResult {
  perSecond: number;
  perCpuSecond: number | undefined;
  onCpuShare: number | undefined;
  gcShare: number;
  updateShare: number;
  updates: number;
  events: number;
  outcomes: Map<string, number>;
  unexpected: number;
  firstUnexpected: string | undefined;
  heapUsedMb: number;
}

/** CPU seconds of the calling thread so far (Linux), or undefined. */
function threadCpuSeconds(): number | undefined {
  try {
    const stat = readFileSync("/proc/thread-self/stat", "latin1");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/**
 * A full collection between rounds: V8's `gc`, exposed on first use (only when rounds run, never on import:
 * the flag is the whole process's).
 */
let fullGc: (() => void) | undefined;
function collectGarbage(): void {
  if (fullGc === undefined) {
    setFlagsFromString("--expose-gc");
    const gc: unknown = runInNewContext("gc");
    if (typeof gc !== "function") throw new Error("cannot expose V8's gc");
    fullGc = gc as () => void;
  }
  fullGc();
}

const gcPauses: { start: number; duration: number }[] = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcPauses.push({ start: entry.startTime, duration: entry.duration });
});

async function gcBetween(start: number, end: number): Promise<number> {
  // GC entries arrive asynchronously: let them in before summing.
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 20));
  let total = 0;
  for (const pause of gcPauses) if (pause.start >= start && pause.start < end) total += pause.duration;
  gcPauses.length = 0;
  return total;
}

async function runRound(
  engine: BenchEngine,
  scenario: ScenarioName,
  options: CoreBenchOptions,
  round: number,
): Promise<RoundResult> {
  const core = engine.core;
  const market = core.updateMarket?.(undefined, quote(options, 0), now());
  if (market === undefined) throw new Error("the actor has no updateMarket");
  // The previous round's accounts are garbage now: collect them before the clock starts, so no round pays
  // for the one before it (a full collection of ~0.5 GB landed in a random round and made rounds scatter).
  collectGarbage();
  const accounts = openAccounts(engine, options, market, round);
  const prepared = prepare(scenario, options, accounts, round);
  const withUpdates = scenario === "market" || scenario === "mix";
  const shell = scenario === "limit+shell";
  const index = new Map<string, string>();
  const outcomes = new Map<string, number>();
  let unexpected = 0;
  let firstUnexpected: string | undefined;
  let events = 0;
  let updates = 0;
  let updateMs = 0;
  let sink = 0;

  const priceUpdate = (): void => {
    const started = performance.now();
    updates++;
    const update = quote(options, updates % 2);
    const view = core.updateMarket?.(market, update, now()) ?? market;
    for (const account of accounts) {
      const produced = core.onMarket?.(account.state, update, contextFor(account, view)) ?? [];
      if (produced.length > 0) {
        applyAll(engine, account, produced, view);
        events += produced.length;
      }
    }
    updateMs += performance.now() - started;
  };

  const cpuStart = threadCpuSeconds();
  const startedAt = performance.now();
  for (let i = 0; i < prepared.length; i++) {
    const item = prepared[i];
    if (item === undefined) break;
    const account = item.account;
    let command = item.command;
    if (command === undefined) {
      const orderId = account.resting[account.restingHead++] ?? "00000000-0000-4000-8000-000000000000";
      command = { userId: account.userId, command: { type: "CancelOrder", request: { order_id: orderId } } };
    }
    // The shard asks before each command whether a forgotten client_id must be looked up (one filter probe).
    if (shell) sink += core.recallKey?.(account.state, command)?.length ?? 0;
    const decision = core.decide(account.state, command, contextFor(account, market));
    applyAll(engine, account, decision.events, market);
    events += decision.events.length;
    const reply = decision.reply;
    const outcome = outcomeOf(reply);
    if (outcome !== EXPECTED[item.expect]) {
      unexpected++;
      firstUnexpected ??= JSON.stringify(reply).slice(0, 500);
    }
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    if (item.expect === "NEW" && reply.kind === "created" && "order" in reply)
      account.resting.push(reply.order.order_id);
    if (shell) {
      for (const event of decision.events) {
        sink += JSON.stringify(event).length;
        for (const key of core.keys?.(event) ?? []) index.set(key, account.id);
      }
      sink += structuredClone(reply).kind.length;
    }
    if (withUpdates && (i + 1) % options.updateEvery === 0) priceUpdate();
  }
  const endedAt = performance.now();
  const cpuEnd = threadCpuSeconds();
  const cpuSeconds = cpuStart === undefined || cpuEnd === undefined ? undefined : cpuEnd - cpuStart;
  const heapUsedMb = Math.round(process.memoryUsage().heapUsed / 1e6);
  if (sink < 0) throw new Error("unreachable");
  const elapsedMs = endedAt - startedAt;
  const gcMs = await gcBetween(startedAt, endedAt);
  return {
    perSecond: prepared.length / (elapsedMs / 1000),
    perCpuSecond: cpuSeconds === undefined || cpuSeconds <= 0 ? undefined : prepared.length / cpuSeconds,
    onCpuShare: cpuSeconds === undefined ? undefined : cpuSeconds / (elapsedMs / 1000),
    gcShare: gcMs / elapsedMs,
    updateShare: updateMs / elapsedMs,
    updates,
    events,
    outcomes,
    unexpected,
    firstUnexpected,
    heapUsedMb,
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return NaN;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

/** One scenario's rounds of this tree's engine over the baseline's, paired round by round. */
export interface PairedRatio {
  name: ScenarioName;
  /** Median over the round pairs of (this tree's rate / the baseline's rate). */
  wall: number;
  /** The same of the thread-CPU rates; null where /proc gave none. */
  perCpu: number | null;
}

/**
 * The measured rounds per engine: with a baseline an even number (ABBA pairs each engine first as often as
 * second), the options' rounds rounded up.
 */
export function measuredRounds(options: Pick<CoreBenchOptions, "rounds" | "baseline">): number {
  return options.baseline === undefined ? options.rounds : options.rounds + (options.rounds % 2);
}

/**
 * A scenario's rounds on each engine, alternating: measured round m (and each warm-up round before it) runs the
 * engines in order when m is even and in reverse when odd (ABBA), so neither runs first more often.
 */
async function runScenario(
  scenario: ScenarioName,
  options: CoreBenchOptions,
  engines: readonly BenchEngine[],
): Promise<{ results: ScenarioResult[]; rounds: RoundResult[][] }> {
  const measured: RoundResult[][] = engines.map(() => []);
  const rounds = measuredRounds(options);
  for (let r = 0; r < options.warmupRounds + rounds; r++) {
    const m = r - options.warmupRounds;
    const order = engines.map((_, i) => (m % 2 === 0 ? i : engines.length - 1 - i));
    for (const i of order) {
      const engine = engines[i] as BenchEngine;
      const result = await runRound(engine, scenario, options, r);
      if (r < options.warmupRounds) {
        // A scenario that does not do what it says measures something else: stop at once.
        if (result.unexpected > 0) {
          throw new Error(
            `${scenario} (${engine.label}): ${result.unexpected} unexpected outcomes, e.g. ${result.firstUnexpected ?? ""}`,
          );
        }
        continue;
      }
      measured[i]?.push(result);
      post({
        type: "progress",
        line:
          `core ${scenario}${engines.length > 1 ? ` [${engine.label}]` : ""} round ` +
          `${m + 1}/${rounds}: ` +
          `${Math.round(result.perSecond).toLocaleString("en-US")} commands/s ` +
          `(GC ${(result.gcShare * 100).toFixed(1)}%, thread on CPU ` +
          `${result.onCpuShare === undefined ? "?" : (result.onCpuShare * 100).toFixed(0)}%)`,
      });
    }
  }
  return { results: measured.map((own) => summarize(scenario, options, own)), rounds: measured };
}

/** This tree's rounds over the baseline's, pair by pair (round m of each), as medians of the ratios. */
export function pairedRatio(
  name: ScenarioName,
  own: readonly Pick<RoundResult, "perSecond" | "perCpuSecond">[],
  baseline: readonly Pick<RoundResult, "perSecond" | "perCpuSecond">[],
): PairedRatio {
  const wall: number[] = [];
  const cpu: number[] = [];
  own.forEach((round, m) => {
    const other = baseline[m];
    if (other === undefined) return;
    wall.push(round.perSecond / other.perSecond);
    if (round.perCpuSecond !== undefined && other.perCpuSecond !== undefined) {
      cpu.push(round.perCpuSecond / other.perCpuSecond);
    }
  });
  return {
    name,
    wall: Number(median(wall).toFixed(4)),
    perCpu: cpu.length === 0 ? null : Number(median(cpu).toFixed(4)),
  };
}

function summarize(scenario: ScenarioName, options: CoreBenchOptions, measured: RoundResult[]): ScenarioResult {
  const rates = measured.map((m) => m.perSecond);
  const med = median(rates);
  const perCpu = measured.flatMap((m) => (m.perCpuSecond === undefined ? [] : [m.perCpuSecond]));
  const onCpu = measured.flatMap((m) => (m.onCpuShare === undefined ? [] : [m.onCpuShare]));
  const outcomes: Record<string, number> = {};
  for (const m of measured) for (const [k, v] of m.outcomes) outcomes[k] = (outcomes[k] ?? 0) + v;
  const commands = options.commandsPerRound * measured.length;
  return {
    name: scenario,
    description: DESCRIPTIONS[scenario],
    commandsPerRound: options.commandsPerRound,
    accounts: options.accounts,
    rounds: rates.map((r) => Math.round(r)),
    medianPerSecond: Math.round(med),
    minPerSecond: Math.round(Math.min(...rates)),
    maxPerSecond: Math.round(Math.max(...rates)),
    usPerCommand: Number((1e6 / med).toFixed(3)),
    medianPerCpuSecond: perCpu.length === 0 ? null : Math.round(median(perCpu)),
    onCpuShareMedian: onCpu.length === 0 ? null : Number(median(onCpu).toFixed(3)),
    gcShareMedian: Number(median(measured.map((m) => m.gcShare)).toFixed(4)),
    gcShareMax: Number(Math.max(...measured.map((m) => m.gcShare)).toFixed(4)),
    updatesPerRound: measured[0]?.updates ?? 0,
    updateShareMedian: Number(median(measured.map((m) => m.updateShare)).toFixed(4)),
    eventsPerCommand: Number((measured.reduce((s, m) => s + m.events, 0) / commands).toFixed(3)),
    outcomes,
    unexpected: measured.reduce((s, m) => s + m.unexpected, 0),
    heapUsedMb: measured[measured.length - 1]?.heapUsedMb ?? 0,
  };
}

interface FloorAccount {
  id: string;
  partition: number;
  orders: Map<string, object>;
  working: Map<string, object>;
  clientIds: Map<string, string>;
  events: object[];
}

export const FLOOR_DESCRIPTION =
  "reference, not the engine: a fresh order id, an order record, the order, working-order and client-id " +
  "tables and one event per order; no parsing, checks or reply";

async function floorRound(options: CoreBenchOptions, round: number): Promise<{ perSecond: number; gcShare: number }> {
  collectGarbage();
  const accounts: FloorAccount[] = [];
  for (let a = 0; a < options.accounts; a++) {
    const id = randomUUID();
    accounts.push({
      id,
      partition: partitionOf(id),
      orders: new Map(),
      working: new Map(),
      clientIds: new Map(),
      events: [],
    });
  }
  const clientIds: string[] = [];
  for (let i = 0; i < options.commandsPerRound; i++) clientIds.push(`r${round}-${i}`);
  const startedAt = performance.now();
  for (let i = 0; i < options.commandsPerRound; i++) {
    const account = accounts[i % accounts.length];
    const clientId = clientIds[i];
    if (account === undefined || clientId === undefined) break;
    if (account.clientIds.has(clientId)) throw new Error("client_id seen twice");
    const orderId = current.minterOf(account.partition)();
    const at = now();
    const order = {
      order_id: orderId,
      account_id: account.id,
      client_id: clientId,
      symbol: options.symbol,
      side: i % 2 === 0 ? "BUY" : "SELL",
      kind: "LIMIT",
      quantity: 10,
      filled_quantity: 0,
      filled_notional: 0,
      limit_price: 250_000,
      trigger_price: null,
      time_in_force: "GTC",
      expire_at: null,
      post_only: false,
      reduce_only: false,
      index_trigger: false,
      mark_trigger: false,
      venue: "GMX",
      parent_order_id: null,
      position_id: null,
      status: "NEW",
      created_at: at,
      updated_at: at,
      triggered: false,
      reserve: 0,
      child_ids: [],
      reason: null,
    };
    account.orders.set(orderId, order);
    account.working.set(orderId, order);
    account.clientIds.set(clientId, orderId);
    account.events.push({ type: "OrderAccepted", at, order });
  }
  const endedAt = performance.now();
  const elapsedMs = endedAt - startedAt;
  const gcMs = await gcBetween(startedAt, endedAt);
  return { perSecond: options.commandsPerRound / (elapsedMs / 1000), gcShare: gcMs / elapsedMs };
}

async function runFloor(options: CoreBenchOptions): Promise<FloorResult> {
  const rates: number[] = [];
  const gc: number[] = [];
  for (let r = 0; r < options.warmupRounds + options.rounds; r++) {
    const result = await floorRound(options, r);
    if (r < options.warmupRounds) continue;
    rates.push(result.perSecond);
    gc.push(result.gcShare);
    post({
      type: "progress",
      line: `core floor (reference) round ${r - options.warmupRounds + 1}/${options.rounds}: ${Math.round(result.perSecond).toLocaleString("en-US")} orders/s`,
    });
  }
  const med = median(rates);
  return {
    description: FLOOR_DESCRIPTION,
    rounds: rates.map((r) => Math.round(r)),
    medianPerSecond: Math.round(med),
    usPerOrder: Number((1e6 / med).toFixed(3)),
    gcShareMedian: Number(median(gc).toFixed(4)),
  };
}

async function main(options: CoreBenchOptions): Promise<void> {
  gcObserver.observe({ entryTypes: ["gc"] });
  const engines = [current];
  if (options.baseline !== undefined) engines.push(await loadEngine(options.baseline.dir, options.baseline.label));
  const scenarios: ScenarioResult[] = [];
  const baseline: ScenarioResult[] = [];
  const pairedRatios: PairedRatio[] = [];
  for (const name of options.scenarios ?? SCENARIOS) {
    const { results, rounds } = await runScenario(name, options, engines);
    const [own, other] = results;
    if (own !== undefined) scenarios.push(own);
    if (other !== undefined) {
      baseline.push(other);
      pairedRatios.push(pairedRatio(name, rounds[0] ?? [], rounds[1] ?? []));
    }
  }
  const floor = await runFloor(options);
  gcObserver.disconnect();
  const { resourceLimits } = await import("node:worker_threads");
  post({
    type: "result",
    result: {
      thread: isMainThread ? "main thread" : "worker thread",
      resourceLimits: { ...resourceLimits },
      scenarios,
      ...(options.baseline === undefined
        ? {}
        : { baseline: { label: options.baseline.label, scenarios: baseline, pairedRatios } }),
      floor,
    },
  });
}

const data = workerData as Partial<CoreBenchOptions> | null;
if (!isMainThread && data?.role === "bench-engine-core") {
  await main(data as CoreBenchOptions);
}
