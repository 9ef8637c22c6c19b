// `npm run bench:scaling`: the cost of one price update per account, across 1,000 and across 10,000 accounts
// that each hold an open position and a resting order, through the pure core with every risk check and the
// monitor on (decide + apply + consume, as a shard runs it). Target (issue 4): at 10,000 accounts at most 1.3×
// the per-account cost at 1,000. Rounds of the two sizes are interleaved and the median reported; a forced
// GC before each timed round keeps one size's garbage out of the other's figure. Writes
// bench/scaling-results.json. A benchmark, not a test: it asserts nothing.
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { apply, consumeFills, decide, type AccountState, type EngineEvent } from "../engine/core.js";
import { PLANS } from "../engine/basics/plans.js";
import { createMarketView, setQuote, type MarketView } from "../engine/market/book.js";
import { isEntryPoint } from "../kernel/process.js";

/** A forced full GC (the flag is set when the first round needs it, not when the module is imported). */
let gcFunction: (() => void) | undefined;
function gc(): void {
  if (gcFunction === undefined) {
    setFlagsFromString("--expose-gc");
    gcFunction = runInNewContext("gc") as () => void;
  }
  gcFunction();
}

const PLAN_200K = "15ef9280-770d-4664-9de7-93fcd7677a98";
const SIZES = [1_000, 10_000] as const;
const ROUNDS = 7;
/** Account-updates per timed round, the same for both sizes (1k: 200 updates, 10k: 20), so fixed costs match. */
const WORK_PER_ROUND = 200_000;
/** BTC-USD around 100,000 (ticks of 0.1). */
const MARK = 1_000_000;

interface Book {
  states: AccountState[];
  market: MarketView;
  now: number;
}

function run(book: Book, index: number, command: Parameters<typeof decide>[1]): EngineEvent[] {
  const state = book.states[index];
  const decision = decide(state, command, { now: book.now, market: book.market, nextId: randomUUID });
  let next = state;
  for (const event of decision.events) next = apply(next, event);
  if (next === undefined) throw new Error("no state");
  book.states[index] = next;
  consumeFills(book.market, decision.events);
  return decision.events;
}

function setup(accounts: number): Book {
  const market = createMarketView();
  setQuote(market, "BTC-USD", { mark: MARK, index: MARK });
  const book: Book = { states: [], market, now: Date.parse("2026-11-25T12:00:00Z") };
  for (let a = 0; a < accounts; a++) {
    const id = randomUUID();
    const decision = decide(
      undefined,
      { type: "OpenAccount", request: { account_id: id, user_id: `u${a}`, plan_id: PLAN_200K } },
      { now: book.now, market, nextId: randomUUID, plans: PLANS },
    );
    let state: AccountState | undefined;
    for (const event of decision.events) state = apply(state, event);
    if (state === undefined) throw new Error("open failed");
    book.states.push(state);
    // A fresh book per account keeps every MARKET order at the first level (same fill price for all).
    setQuote(market, "BTC-USD", { mark: MARK, index: MARK });
    const side = a % 2 === 0 ? "BUY" : "SELL";
    const base = { account_id: id, symbol: "BTC-USD", side } as const;
    run(book, a, { type: "PlaceOrder", request: { ...base, kind: "MARKET", quantity: "0.01" } });
    run(book, a, {
      type: "PlaceOrder",
      request: { ...base, kind: "LIMIT", quantity: "0.01", limit_price: side === "BUY" ? "50000" : "200000" },
    });
  }
  return book;
}

/** Nanoseconds per account per price update, over one round of updates. */
function round(book: Book, step: number, work: number): number {
  const updates = work / book.states.length;
  gc();
  const started = process.hrtime.bigint();
  for (let u = 0; u < updates; u++) {
    // Small moves around 100,000: positions re-marked, high-water marks sometimes raised, nothing crosses.
    const mark = MARK + (((step * updates + u) * 7) % 41) - 20;
    setQuote(book.market, "BTC-USD", { mark, index: mark });
    book.now += 1_000;
    const symbols = new Set(["BTC-USD"]);
    for (let a = 0; a < book.states.length; a++) run(book, a, { type: "MarketUpdate", symbols });
  }
  const elapsed = Number(process.hrtime.bigint() - started);
  return elapsed / work;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export interface ScalingResult {
  date: string;
  node: string;
  description: string;
  accountUpdatesPerRound: number;
  rounds: number;
  nsPerAccountPerUpdate: { median: Record<number, number>; samples: Record<number, number[]> };
  ratio10kTo1k: number;
  target: number;
}

/**
 * Interleaved rounds of the two sizes after a warm-up round each; `log` gets a line per round. Longer and more
 * rounds than the defaults keep a busy machine's scheduling out of the median.
 */
export function benchScaling(
  log: (line: string) => void,
  { rounds = ROUNDS, workPerRound = WORK_PER_ROUND }: { rounds?: number; workPerRound?: number } = {},
): ScalingResult {
  const books = new Map(SIZES.map((size) => [size, setup(size)] as const));
  const samples = new Map<number, number[]>(SIZES.map((size) => [size, []]));
  // One warm-up round each, then interleaved rounds (order reversed every other round).
  for (const size of SIZES) round(books.get(size) as Book, 0, workPerRound);
  for (let r = 1; r <= rounds; r++) {
    const order = r % 2 === 0 ? [...SIZES].reverse() : SIZES;
    for (const size of order) {
      const ns = round(books.get(size) as Book, r, workPerRound);
      samples.get(size)?.push(ns);
      log(`scaling ${size} accounts round ${r}/${rounds}: ${(ns / 1000).toFixed(3)} µs per account per update`);
    }
  }
  const perAccount = Object.fromEntries(
    SIZES.map((size) => [size, Math.round(median(samples.get(size) ?? []))] as const),
  ) as Record<number, number>;
  const ratio = (perAccount[10_000] ?? 0) / (perAccount[1_000] ?? 1);
  return {
    date: new Date().toISOString(),
    node: process.version,
    description: "one BTC-USD price update per round step; every account holds a 0.01 BTC position and a resting LIMIT",
    accountUpdatesPerRound: workPerRound,
    rounds,
    nsPerAccountPerUpdate: { median: perAccount, samples: Object.fromEntries(samples) },
    ratio10kTo1k: Math.round(ratio * 1000) / 1000,
    target: 1.3,
  };
}

function main(): void {
  const result = benchScaling((line) => {
    console.log(line);
  });
  const perAccount = result.nsPerAccountPerUpdate.median;
  writeFileSync("bench/scaling-results.json", `${JSON.stringify(result, null, 2)}\n`);
  console.log(
    `per account per update: 1k ${(perAccount[1_000] ?? 0) / 1000} µs, 10k ${(perAccount[10_000] ?? 0) / 1000} µs, ratio ${result.ratio10kTo1k} (target ≤ 1.3)`,
  );
}

if (isEntryPoint(import.meta.url)) main();
