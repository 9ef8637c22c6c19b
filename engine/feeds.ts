// What moves the engine besides requests, each a part of the engine process (engine/main.ts): the news
// calendar, the prices (pushed through market.v1 or simulated) and the funding clock. Every update goes through
// every shard as one market message. Prices and funding continue across a restart (docs/engine.md, "Restarts"):
// the kept prices are published first, and the funding clock continues after the last boundary paid.
import type pg from "pg";
import { ServiceError } from "../kernel/errors.js";
import type { Logger } from "../kernel/log.js";
import type { EngineTypes } from "./trading-core.js";
import type { EngineSettings } from "./config.js";
import { KEEP_EVERY_MS, type PriceKeeper } from "./continuity/price-keeper.js";
import { startFundingClock } from "./funding-clock.js";
import { NewsCalendar, parseCalendar, shippedCalendar, type NewsEvent } from "./market/calendar.js";
import { CATALOGUE } from "./market/catalogue.js";
import { LivePrices, type TickQuote } from "./market/prices.js";
import { PriceSimulator } from "./market/simulator.js";
import type { ShardRuntime } from "./shard/runtime.js";
import { loadStoredCalendar, storeCalendar } from "./store/calendar.js";
import { partitionsOfEngine } from "../kernel/partition.js";
import { nextFundingAt } from "./risk/funding.js";

type Runtime = Pick<ShardRuntime<EngineTypes>, "market">;

export interface CalendarPart {
  calendar: NewsCalendar;
  /** Makes a new calendar durable and hands it to every shard. */
  applyCalendar: (events: NewsEvent[]) => Promise<void>;
}

/** The calendar: the one last set through market.v1 (kept across restarts), else the shipped one. */
export async function startCalendar(pool: pg.Pool, runtime: Runtime, log: Logger): Promise<CalendarPart> {
  const events = await startingCalendar(pool, log);
  await runtime.market({ prices: [], calendar: events });
  return {
    calendar: new NewsCalendar(events),
    applyCalendar: async (replacement) => {
      await storeCalendar(pool, replacement);
      await runtime.market({ prices: [], calendar: replacement });
    },
  };
}

async function startingCalendar(pool: pg.Pool, log: Logger): Promise<NewsEvent[]> {
  const stored = await loadStoredCalendar(pool);
  if (stored === undefined) return shippedCalendar(CATALOGUE);
  const parsed = parseCalendar(stored, CATALOGUE);
  if ("ok" in parsed) return parsed.ok;
  log.warn({ issues: parsed.issues }, "stored news calendar no longer valid; using the shipped one");
  return shippedCalendar(CATALOGUE);
}

export interface PricesPart {
  prices: LivePrices;
  /**
   * Applies prices on every shard, then to `prices`; resolves after every shard applied them. The keeper notes
   * them first; with `keepFirst` they are written before the shards see them (a write that fails is logged and
   * tried again with the next one: prices never wait for the database).
   */
  publish: (quotes: TickQuote[], keepFirst?: boolean) => Promise<void>;
  /**
   * Decides the first prices (the kept ones, or the simulator's reference prices) as a price update: called once
   * the funding boundaries missed while down are paid (docs/engine.md, "Restarts").
   */
  resume: () => Promise<void>;
  /** The simulator under PRICE_FEED=simulator. */
  simulator: PriceSimulator | undefined;
}

/**
 * The prices. The kept ones (the last of each symbol before the stop, with the time each was set) reach every
 * shard's view first, with either feed, without deciding anything: the funding boundaries missed while down are
 * paid at them before they trade (`resume` decides them). The simulator continues its walk from them.
 */
export async function startPrices(
  settings: EngineSettings,
  runtime: Runtime,
  keeper: PriceKeeper,
  now: () => number,
  log: Logger,
): Promise<PricesPart> {
  const prices = new LivePrices(CATALOGUE);
  const applyQuotes = async (quotes: TickQuote[], restoring = false): Promise<void> => {
    const applied = await runtime.market(restoring ? { prices: quotes, restoring } : { prices: quotes });
    prices.update(quotes);
    // Applied everywhere else, but an account's triggers or risk checks failed at these prices: not "applied".
    if (applied.faults > 0) {
      throw new ServiceError("engine_error", {}, `the prices failed to apply on ${String(applied.faults)} account(s)`);
    }
  };
  const publish = async (quotes: TickQuote[], keepFirst = false): Promise<void> => {
    if (quotes.length === 0) return;
    keeper.note(quotes, now());
    if (keepFirst) {
      await keeper.flush().catch((error: unknown) => {
        log.warn({ err: error }, "keeping the last prices failed; tried again with the next change");
      });
    }
    await applyQuotes(quotes);
  };
  const kept = await keeper.restore();
  if (kept.length > 0) await applyQuotes(kept, true);
  const simulator =
    settings.PRICE_FEED === "simulator" ? new PriceSimulator(CATALOGUE, settings.SIMULATOR_SEED) : undefined;
  simulator?.restore(kept);
  const first = simulator?.current() ?? kept;
  return { prices, publish, resume: () => publish(first), simulator };
}

/** The simulator's steps every SIMULATOR_INTERVAL_MS; returns how it stops. */
export function startSimulatorFeed(
  settings: EngineSettings,
  simulator: PriceSimulator,
  publish: PricesPart["publish"],
  now: () => number,
  log: Logger,
): () => void {
  // Steps at most once a second are each kept before the shards see them; faster ones at most once a second.
  const keepEachStep = settings.SIMULATOR_INTERVAL_MS >= KEEP_EVERY_MS;
  let last = now();
  let running = false;
  const feed = setInterval(() => {
    if (running) return; // a slow round never piles up behind itself
    running = true;
    const at = now();
    const quotes = simulator.step(at - last, at);
    last = at;
    publish(quotes, keepEachStep)
      .catch((error: unknown) => {
        log.warn({ err: error }, "price update failed");
      })
      .finally(() => {
        running = false;
      });
  }, settings.SIMULATOR_INTERVAL_MS);
  return () => {
    clearInterval(feed);
  };
}

/** What the funding clock pays with and records to (the keeper's store). */
export interface FundingDeps {
  runtime: Runtime;
  keeper: PriceKeeper;
  /**
   * Runs once the boundaries missed while down are paid, before the clock starts: the kept prices are decided
   * then (`PricesPart.resume`), so they trade only after the boundaries paid at them (docs/engine.md "Restarts").
   */
  then?: () => Promise<void>;
}

/**
 * Funding: a tick through every shard like a price update, at fixed UTC times (multiples of the interval), every
 * boundary once, in order, never before it (engine/funding-clock.ts). A tick pays at the prices kept for its
 * boundary (written when it first ran), and the partitions record it once every shard paid it; a start continues
 * after the boundary they recorded, so a boundary that passed while the engine was down is paid once after the
 * start (docs/risk.md, "Funding"). A database without a record starts at the last boundary before now. Returns
 * how it stops.
 */
export async function startFunding(
  settings: EngineSettings,
  deps: FundingDeps,
  now: () => number,
  log: Logger,
): Promise<() => void> {
  const rates = { cryptoPpm: settings.FUNDING_RATE_CRYPTO_PPM, rolloverPpm: settings.FUNDING_ROLLOVER_PPM };
  const { runtime, keeper } = deps;
  const store = keeper.store;
  // Each of this engine's partitions records the latest boundary its accounts were paid for.
  const partitions = partitionsOfEngine(settings.ENGINE_INDEX, settings.ENGINE_COUNT);
  let after = await store.fundedThrough(partitions);
  if (after === undefined) {
    after = nextFundingAt(now(), settings.FUNDING_INTERVAL_MS) - settings.FUNDING_INTERVAL_MS;
    await store.recordFunded(partitions, after);
  }
  const tick = async (boundary: number): Promise<void> => {
    const fundingPrices = await keeper.fundingPrices(boundary);
    await runtime.market({ prices: [], funding: rates, fundingBoundary: boundary, fundingPrices });
    await store.recordFunded(partitions, boundary);
    // The last prices too, at every boundary (a failure here is no failure of the tick: they are written again
    // with the next change).
    await keeper.flush().catch((error: unknown) => {
      log.warn({ err: error }, "keeping the last prices failed; tried again with the next change");
    });
  };
  const clock = startFundingClock({
    intervalMs: settings.FUNDING_INTERVAL_MS,
    after,
    now,
    tick,
    onError: (error) => {
      log.warn({ err: error }, "funding tick failed");
    },
  });
  // The boundaries missed while down are paid before anything else is decided (one that fails is left to the
  // clock's retries), then the kept prices.
  try {
    await clock.caughtUp;
    await deps.then?.();
  } catch (error) {
    clock.stop();
    throw error;
  }
  return () => {
    clock.stop();
  };
}
