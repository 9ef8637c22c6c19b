// The `restart` step of the reference-model lockstep (test/model/restart.test.ts): the engine side stops and
// starts again from durable data only, through the production start path; the model sees only what a running
// engine would have done over the same downtime (docs/engine.md "Restarts", docs/risk.md "Funding" and "Daily
// reset").
//
// Engine side. What the stopped engine left durable: the Harness's journal (replayed whole, or restored from a
// snapshot taken where a decision ends in it, JSON round trip included, and the events after it replayed), the
// kept prices (the latest quote of every symbol with the time it was set, as the running engine's keeper wrote
// them) and the funding record (the last boundary the running engine's funding clock passed). The shard's market
// view is emptied, the clock moves on by the downtime, and engine/feeds.ts starts the prices (PRICE_FEED=push: the
// kept prices published first, as of their time) and the funding clock (every boundary since the record paid
// once, oldest first, each as of its own time) against a runtime that does what a shard does for this one
// account; then the shard's clock decides the account at the restart time. The engine side is a shard's trading
// core (test/model/shard-harness.ts): a new process gets a new core with the same limits, its rebuild forgets
// where each decision ends as a shard's does, and the table of spent client_ids outlives it.
//
// Model side: a running engine over the same downtime, whose market sends no price while the engine is down: a
// funding tick at each boundary passed, at the boundary, on the positions as they were, at the rates the
// engine's settings hold; then, at the restart, the same prices again as one price update of every priced symbol
// (the start's publish is a price update: the book's depth is fresh), then the shard's clock. The restart step's
// effects are those of all of these, joined, against every event the start emitted.
import { pino } from "pino";
import { loadEngineSettings } from "../../engine/config.js";
import { PriceKeeper } from "../../engine/continuity/price-keeper.js";
import { decide, type AccountState, type EngineEvent } from "../../engine/core.js";
import { startFunding, startPrices } from "../../engine/feeds.js";
import { createMarketView, setQuote, type MarketView } from "../../engine/market/book.js";
import type { TickQuote } from "../../engine/market/prices.js";
import type { MarketApplied } from "../../engine/shard/runtime.js";
import type { KeptPriceStore, KeptQuote } from "../../engine/store/kept-prices.js";
import type { PriceUpdate } from "../../engine/trading-core.js";
import { WEDNESDAY_NOON } from "../../engine/core.testing.js";
import { partitionsOfEngine } from "../../kernel/partition.js";
import {
  FUNDING_INTERVAL_MS,
  Lockstep,
  ModelMismatch,
  newCounters,
  shrinking,
  type LockstepCounters,
  type RetryStep,
  type Shrunk,
} from "./driver.js";
import { AccountModel, type Effects } from "./model.js";
import { ShardHarness, type ClientIdLimits } from "./shard-harness.js";
import { DAY_MS, HOUR_MS, SYMBOLS, type PlanSpec } from "./spec.js";
import type { Step } from "./steps.js";

/**
 * The engine stops and starts again `downMs` later: from the whole journal, or (`snapshot`) from a snapshot
 * taken after `snapshotAt` per mille of its events and the events after it; the funding settings of the start
 * hold `cryptoPpm` and `rolloverPpm`.
 */
export interface RestartStep {
  t: "restart";
  downMs: number;
  snapshot: boolean;
  snapshotAt: number;
  cryptoPpm: number;
  rolloverPpm: number;
}

export type AnyStep = Step | RestartStep | RetryStep;

/** The client_id limits of a lockstep unless given. */
export const SMALL_LIMITS: ClientIdLimits = { clientIdsKept: 3, clientIdWindowMs: HOUR_MS };

export interface RestartCounters {
  restarts: number;
  /** Restarts rebuilt from a snapshot and the events after it; from the whole journal. */
  fromSnapshot: number;
  fromJournal: number;
  /** Restarts whose downtime passed a funding boundary while a position was open (a live account). */
  boundaryWithPosition: number;
  /** Funding boundaries paid by a start, and the payments they made. */
  boundariesPaid: number;
  fundingPayments: number;
  /** Restarts whose downtime passed a midnight; those where the day started during the restart step. */
  midnight: number;
  daysStarted: number;
  /** Restarts whose downtime passed a midnight and a boundary before it while a position was open. */
  boundaryThenMidnight: number;
  /** Fills made by a restart step (the kept prices' fresh depth, the clock). */
  fills: number;
  /** Starts whose kept prices traded (fresh depth, a market that opened while down). */
  tradingStarts: number;
  /** Retries of a client_id (`retry` steps that sent one again). */
  retries: number;
  /** Retries of a client_id the engine had forgotten, decided with the table's record: replayed, 409. */
  forgottenReplayed: number;
  forgottenConflicts: number;
  /** Of those replayed, the retries of a client_id sent before a restart since. */
  forgottenReplayedAcrossRestart: number;
  /** Retries of a client_id the engine still held, replayed. */
  keptReplayed: number;
}

export function newRestartCounters(): RestartCounters {
  return {
    restarts: 0,
    fromSnapshot: 0,
    fromJournal: 0,
    boundaryWithPosition: 0,
    boundariesPaid: 0,
    fundingPayments: 0,
    midnight: 0,
    daysStarted: 0,
    boundaryThenMidnight: 0,
    fills: 0,
    tradingStarts: 0,
    retries: 0,
    forgottenReplayed: 0,
    forgottenConflicts: 0,
    forgottenReplayedAcrossRestart: 0,
    keptReplayed: 0,
  };
}

export function addRestartCounters(into: RestartCounters, from: RestartCounters): void {
  for (const key of Object.keys(from) as (keyof RestartCounters)[]) into[key] += from[key];
}

/** Every partition: the test's engine is the only one (ENGINE_COUNT 1). */
const PARTITIONS = partitionsOfEngine(0, 1);

/** The latest funding boundary at or before `at`. */
const boundaryAtOrBefore = (at: number): number => Math.floor(at / FUNDING_INTERVAL_MS) * FUNDING_INTERVAL_MS;

type Store = Pick<KeptPriceStore, "load" | "keep" | "fundingPrices" | "fundedThrough" | "recordFunded">;

/** engine/store/kept-prices.ts in memory: what the tables hold across restarts. */
export class MemoryKeptPrices implements Store {
  /** engine_prices: the latest quote of each symbol with the time it was set. */
  readonly prices = new Map<string, KeptQuote>();
  /** engine_funding_prices: the prices each boundary is paid at, kept when its tick first ran. */
  readonly boundaryPrices = new Map<number, TickQuote[]>();
  /** engine_funding_ticks: the latest boundary each partition was paid for. */
  readonly funded = new Map<number, number>();

  load(): Promise<KeptQuote[]> {
    return Promise.resolve([...this.prices.values()].map((quote) => ({ ...quote })));
  }

  keep(quotes: readonly KeptQuote[]): Promise<void> {
    for (const quote of quotes) {
      const kept = this.prices.get(quote.symbol);
      if (kept === undefined || kept.at <= quote.at) this.prices.set(quote.symbol, { ...quote });
    }
    return Promise.resolve();
  }

  fundingPrices(boundary: number, quotes: readonly TickQuote[]): Promise<TickQuote[]> {
    let kept = this.boundaryPrices.get(boundary);
    if (kept === undefined) {
      kept = quotes.map(({ symbol, mark, index }) => ({ symbol, mark, index, skew: 0 }));
      this.boundaryPrices.set(boundary, kept);
    }
    return Promise.resolve(kept.map((quote) => ({ ...quote })));
  }

  fundedThrough(partitions: readonly number[]): Promise<number | undefined> {
    const recorded = partitions.flatMap((p) => this.funded.get(p) ?? []);
    return Promise.resolve(recorded.length === 0 ? undefined : Math.min(...recorded));
  }

  recordFunded(partitions: readonly number[], boundary: number): Promise<void> {
    for (const p of partitions) this.funded.set(p, Math.max(this.funded.get(p) ?? boundary, boundary));
    const all = Math.min(...this.funded.values());
    for (const b of this.boundaryPrices.keys()) if (b <= Math.min(boundary, all)) this.boundaryPrices.delete(b);
    return Promise.resolve();
  }

  /** What the running engine's keeper wrote by its stop: the view's latest quote of every symbol. */
  keepView(view: MarketView): void {
    for (const [symbol, q] of view.quotes) {
      this.prices.set(symbol, { symbol, mark: q.mark, index: q.index, skew: q.skew, at: q.at });
    }
  }
}

/** The effects of several model decisions as one step's: lists joined in order, the last day start. */
function joined(list: readonly Effects[]): Effects {
  const all = AccountModel.noEffects();
  for (const e of list) {
    if (e.dayStarted !== null) all.dayStarted = e.dayStarted;
    all.fills.push(...e.fills);
    all.cancels.push(...e.cancels);
    all.breaches.push(...e.breaches);
    all.funding.push(...e.funding);
    all.triggers.push(...e.triggers);
    all.violation = e.violation ?? all.violation;
    all.passed ||= e.passed;
  }
  return all;
}

/**
 * Replays events onto a state as a shard's rebuild does (engine/shard/reload.ts): the core forgets where a
 * decision ends (the next event has another time) and after the last, writing what it drops to the table.
 */
function replayOnto(h: ShardHarness, state: AccountState | undefined, events: readonly EngineEvent[]) {
  let at: number | undefined;
  for (const event of events) {
    if (state !== undefined && at !== undefined && event.at !== at) h.forget(state);
    state = h.core.apply(state, event);
    at = event.at;
  }
  if (state !== undefined) h.forget(state);
  return state;
}

/**
 * A state rebuilt from the journal as a shard does at a start: whole, or from a snapshot taken after the events
 * before `from` (moved on to where a decision ends, as a shard snapshots after a batch) and the rest.
 */
function rebuild(h: ShardHarness, journal: readonly EngineEvent[], from?: number): AccountState {
  let state: AccountState | undefined;
  let rest = journal;
  if (from !== undefined) {
    let cut = from;
    while (cut < journal.length && journal[cut]?.at === journal[cut - 1]?.at) cut++;
    state = replayOnto(h, undefined, journal.slice(0, cut));
    if (state === undefined) throw new Error("no state to snapshot");
    const snapshot = JSON.parse(JSON.stringify(h.core.snapshot?.(state))) as unknown;
    state = h.core.restore?.(snapshot);
    if (state === undefined) throw new Error("the snapshot did not restore");
    rest = journal.slice(cut);
  }
  state = replayOnto(h, state, rest);
  if (state === undefined) throw new Error("an empty journal");
  return state;
}

/**
 * Waits a macrotask at a time (the funding clock's timers for boundaries already passed are due at once) until
 * `done`, at most `turns` of them: a catch-up that never comes shows as the payments the model made and the
 * engine did not.
 */
async function until(done: () => boolean, turns: number): Promise<void> {
  for (let turn = 0; turn < turns && !done(); turn++) await new Promise((resolve) => setTimeout(resolve, 0));
}

export class RestartLockstep extends Lockstep {
  /** The kept prices and the funding record: they outlive every restart. */
  readonly kept = new MemoryKeptPrices();
  /** The engine side: a shard's trading core, its forgetting and its table of spent client_ids. */
  readonly shard: ShardHarness;
  /** How many placements had been sent with a client_id at the latest restart. */
  private sentAtRestart = 0;

  constructor(
    plan: PlanSpec,
    counters: LockstepCounters = newCounters(),
    readonly restarts: RestartCounters = newRestartCounters(),
    limits: ClientIdLimits = SMALL_LIMITS,
  ) {
    const shard = new ShardHarness(limits, WEDNESDAY_NOON);
    super(plan, counters, shard, true);
    this.shard = shard;
  }

  async step(step: AnyStep): Promise<void> {
    if (step.t === "retry") {
      this.retried(step);
      return;
    }
    if (step.t !== "restart") {
      this.run(step);
      return;
    }
    this.sentAtRestart = this.sent.length;
    const start = this.enter(step);
    const stopAt = this.h.now;
    const restartAt = stopAt + step.downMs;
    this.kept.keepView(this.h.market);
    // Starts whose kept prices trade (fresh depth, a market that opened while down): after the boundaries.
    if (this.startTrades(restartAt)) this.restarts.tradingStarts++;
    this.count(step, stopAt, restartAt);
    const effects = this.restartModel(step, stopAt, restartAt);
    this.h.lastEvents = await this.restartEngine(step, stopAt, restartAt);
    this.restarts.fills += effects.fills.length;
    this.restarts.fundingPayments += effects.funding.length;
    if (effects.dayStarted !== null) this.restarts.daysStarted++;
    this.settle(step, start, false, effects);
  }

  /** A `retry` step, counted by what the engine did: replayed or refused from memory or from the table. */
  private retried(step: RetryStep): void {
    const retried = this.retry(step);
    if (retried === undefined) return;
    const r = this.restarts;
    r.retries++;
    const kind = retried.reply.kind === "error" ? retried.reply.code : retried.reply.kind;
    const recall = this.shard.lastRecall;
    if (recall?.found !== true) {
      if (kind === "replayed") r.keptReplayed++;
      return;
    }
    if (kind === "conflict") r.forgottenConflicts++;
    if (kind !== "replayed") return;
    r.forgottenReplayed++;
    if (retried.index < this.sentAtRestart) r.forgottenReplayedAcrossRestart++;
  }

  /**
   * Whether the start's kept prices, decided at `restartAt`, would trade (fill, trigger, cancel or expire an
   * order): decided on the live state and a view of the kept prices, nothing applied.
   */
  private startTrades(restartAt: number): boolean {
    const state = this.h.state;
    const quotes = [...this.kept.prices.values()];
    if (state === undefined || quotes.length === 0) return false;
    const view = createMarketView();
    for (const q of quotes) setQuote(view, q.symbol, { mark: q.mark, index: q.index, skew: q.skew, at: q.at });
    let ids = 0;
    const { events } = decide(
      state,
      {
        type: "MarketUpdate",
        symbols: new Set(quotes.map((q) => q.symbol)),
        asOf: Math.max(...quotes.map((q) => q.at)),
      },
      { now: restartAt, market: view, nextId: () => `dry-run-${String(++ids)}`, calendar: this.h.calendar },
    );
    return events.some((event) => event.type.startsWith("Order"));
  }

  private count(step: RestartStep, stopAt: number, restartAt: number): void {
    const r = this.restarts;
    r.restarts++;
    if (step.snapshot) r.fromSnapshot++;
    else r.fromJournal++;
    const live = this.m.status !== "TERMINATED" && this.m.positions.size > 0;
    const boundaries = (boundaryAtOrBefore(restartAt) - boundaryAtOrBefore(stopAt)) / FUNDING_INTERVAL_MS;
    const midnight = Math.floor(restartAt / DAY_MS) > Math.floor(stopAt / DAY_MS);
    r.boundariesPaid += boundaries;
    if (live && boundaries > 0) r.boundaryWithPosition++;
    if (midnight) r.midnight++;
    // A boundary before the first midnight passed (the midnight's own boundary is not one before it).
    const firstMidnight = (Math.floor(stopAt / DAY_MS) + 1) * DAY_MS;
    if (live && midnight && boundaryAtOrBefore(firstMidnight - 1) > boundaryAtOrBefore(stopAt)) {
      r.boundaryThenMidnight++;
    }
  }

  /**
   * The downtime as a running engine sees it: no prices while down, so no trades; each boundary paid at its time
   * on the positions as they were; then the same prices again at the restart (a price update: fresh depth) and
   * the shard's clock.
   */
  private restartModel(step: RestartStep, stopAt: number, restartAt: number): Effects {
    const m = this.m;
    const effects: Effects[] = [];
    for (let b = boundaryAtOrBefore(stopAt) + FUNDING_INTERVAL_MS; b <= restartAt; b += FUNDING_INTERVAL_MS) {
      m.funding(b, BigInt(step.cryptoPpm), BigInt(step.rolloverPpm), b);
      effects.push(m.last);
    }
    const priced = SYMBOLS.flatMap((symbol) => {
      const quote = m.quotes.get(symbol);
      return quote === undefined ? [] : [{ symbol, mark: quote.mark, index: quote.index, skew: quote.skew }];
    });
    m.prices(restartAt, priced);
    effects.push(m.last);
    m.clock(restartAt);
    effects.push(m.last);
    return joined(effects);
  }

  /** Stops the engine side and starts it again from durable data only; the events the start emitted. */
  private async restartEngine(step: RestartStep, stopAt: number, restartAt: number): Promise<EngineEvent[]> {
    const h = this.shard;
    // What the running engine left: its keeper's prices (kept by `step`), its funding clock's record, its journal,
    // its table of spent client_ids.
    await this.kept.recordFunded(PARTITIONS, boundaryAtOrBefore(stopAt));
    const journal = [...h.journal];
    // A new process: a new core, the state rebuilt (forgetting as it goes), no prices, the clock on by the downtime.
    const core = h.newProcess();
    const from = step.snapshot ? Math.max(1, Math.round((journal.length * step.snapshotAt) / 1000)) : undefined;
    h.state = rebuild(h, journal, from);
    h.market.quotes.clear();
    h.now = restartAt;
    const emitted: EngineEvent[] = [];
    const runtime = {
      // What a shard does with a market update for its one account (engine/shard/decide.ts, memory.ts).
      market: (update: PriceUpdate): Promise<MarketApplied> => {
        const view = core.updateMarket?.(h.market, update, h.now) ?? h.market;
        const state = h.state;
        const symbols = core.marketSymbols?.(update);
        const routed =
          symbols === undefined ||
          (state !== undefined && [...symbols].some((s) => new Set(core.symbolsOf?.(state) ?? []).has(s)));
        if (state === undefined || !routed || core.onMarket === undefined) {
          return Promise.resolve({ accounts: 0, events: 0, faults: 0 });
        }
        const events = core.onMarket(state, update, { now: h.now, market: view, nextId: h.nextId });
        h.applyDecided(events);
        emitted.push(...events);
        return Promise.resolve({ accounts: 1, events: events.length, faults: 0 });
      },
    };
    const warnings: string[] = [];
    const log = pino({ level: "warn" }, { write: (line: string) => void warnings.push(line) });
    const settings = loadEngineSettings({
      PRICE_FEED: "push",
      FUNDING_RATE_CRYPTO_PPM: String(step.cryptoPpm),
      FUNDING_ROLLOVER_PPM: String(step.rolloverPpm),
      FUNDING_INTERVAL_MS: String(FUNDING_INTERVAL_MS),
    });
    // The calendar is loaded before the prices (engine/feeds.ts, startCalendar).
    await runtime.market({ prices: [], calendar: h.calendar });
    const keeper = new PriceKeeper(this.kept, log);
    const feed = await startPrices(settings, runtime, keeper, () => h.now, log);
    const stop = await startFunding(settings, { runtime, keeper, then: feed.resume }, () => h.now, log);
    try {
      const last = boundaryAtOrBefore(restartAt);
      await until(() => (this.kept.funded.get(0) ?? -Infinity) >= last || warnings.length > 0, 200);
    } finally {
      stop();
    }
    await keeper.stop();
    if (warnings.length > 0) throw new Error(`the start logged warnings:\n${warnings.join("")}`);
    // The shard's clock once it has rebuilt: what came due while down (docs/engine.md, "Restarts").
    h.run({ type: "MarketUpdate" });
    emitted.push(...h.lastEvents);
    return emitted;
  }
}

/** Runs steps in lockstep; the first disagreement, or undefined when they agree throughout. */
export async function replayRestarts(plan: PlanSpec, steps: readonly AnyStep[], limits = SMALL_LIMITS) {
  try {
    const lockstep = new RestartLockstep(plan, newCounters(), newRestartCounters(), limits);
    for (const step of steps) await lockstep.step(step);
    return undefined;
  } catch (error) {
    if (error instanceof ModelMismatch) return error;
    throw error;
  }
}

/** driver.ts `shrinking` with the restart lockstep's replay. */
export async function minimizeRestarts(
  plan: PlanSpec,
  steps: readonly AnyStep[],
  failure: ModelMismatch,
  limits = SMALL_LIMITS,
): Promise<Shrunk<AnyStep>> {
  const shrink = shrinking(steps, failure);
  let next = shrink.next(undefined);
  while (next.done !== true) next = shrink.next(await replayRestarts(plan, next.value, limits));
  return next.value;
}
