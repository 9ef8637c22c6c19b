// What moves the engine besides requests, each a part of the engine process (engine/main.ts): the news
// calendar, the prices (pushed through market.v1 or simulated) and the funding clock. Every update goes through
// every shard as one market message.
import type pg from "pg";
import { ServiceError } from "../kernel/errors.js";
import type { Logger } from "../kernel/log.js";
import type { EngineTypes } from "./trading-core.js";
import type { EngineSettings } from "./config.js";
import { startFundingClock } from "./funding-clock.js";
import { NewsCalendar, parseCalendar, shippedCalendar, type NewsEvent } from "./market/calendar.js";
import { CATALOGUE } from "./market/catalogue.js";
import { LivePrices, type TickQuote } from "./market/prices.js";
import { PriceSimulator } from "./market/simulator.js";
import type { ShardRuntime } from "./shard/runtime.js";
import { loadStoredCalendar, storeCalendar } from "./store/calendar.js";

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
  /** Applies prices on every shard, then to `prices`; resolves after every shard applied them. */
  publish: (quotes: TickQuote[]) => Promise<void>;
  /** The simulator under PRICE_FEED=simulator, its first prices published. */
  simulator: PriceSimulator | undefined;
}

export async function startPrices(settings: EngineSettings, runtime: Runtime): Promise<PricesPart> {
  const prices = new LivePrices(CATALOGUE);
  const publish = async (quotes: TickQuote[]): Promise<void> => {
    if (quotes.length === 0) return;
    const applied = await runtime.market({ prices: quotes });
    prices.update(quotes);
    // Applied everywhere else, but an account's triggers or risk checks failed at these prices: not "applied".
    if (applied.faults > 0) {
      throw new ServiceError("engine_error", {}, `the prices failed to apply on ${String(applied.faults)} account(s)`);
    }
  };
  if (settings.PRICE_FEED !== "simulator") return { prices, publish, simulator: undefined };
  const simulator = new PriceSimulator(CATALOGUE, settings.SIMULATOR_SEED);
  await publish(simulator.current());
  return { prices, publish, simulator };
}

/** The simulator's steps every SIMULATOR_INTERVAL_MS; returns how it stops. */
export function startSimulatorFeed(
  settings: EngineSettings,
  simulator: PriceSimulator,
  publish: (quotes: TickQuote[]) => Promise<void>,
  now: () => number,
  log: Logger,
): () => void {
  let last = now();
  let running = false;
  const feed = setInterval(() => {
    if (running) return; // a slow round never piles up behind itself
    running = true;
    const at = now();
    const quotes = simulator.step(at - last, at);
    last = at;
    publish(quotes)
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

/**
 * Funding: a tick through every shard like a price update, at fixed UTC times (multiples of the interval),
 * once per boundary and never before it (engine/funding-clock.ts). Returns how it stops.
 */
export function startFunding(settings: EngineSettings, runtime: Runtime, now: () => number, log: Logger): () => void {
  const rates = { cryptoPpm: settings.FUNDING_RATE_CRYPTO_PPM, rolloverPpm: settings.FUNDING_ROLLOVER_PPM };
  const clock = startFundingClock({
    intervalMs: settings.FUNDING_INTERVAL_MS,
    now,
    tick: async (boundary) => {
      await runtime.market({ prices: [], funding: rates, fundingBoundary: boundary });
    },
    onError: (error) => {
      log.warn({ err: error }, "funding tick failed");
    },
  });
  return () => {
    clock.stop();
  };
}
