// The price keeper (docs/engine.md, "Restarts"): what the engine publishes is written at most once per interval
// (one write for every symbol that moved meanwhile, each at its latest prices), at once when asked, and at a stop;
// a write that failed is written again with the next one, never replacing a newer quote.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../kernel/log.js";
import type { TickQuote } from "../market/prices.js";
import type { KeptQuote } from "../store/kept-prices.js";
import { PriceKeeper } from "./price-keeper.js";

const T = Date.UTC(2026, 10, 25, 12, 0, 0);
const btc = (mark: number): TickQuote => ({ symbol: "BTC-USD", mark, index: mark, skew: 0 });
const eth = (mark: number): TickQuote => ({ symbol: "ETH-USD", mark, index: mark, skew: 0 });

/** A store that records each write, and fails the writes the test asks it to. */
function fakeStore(kept: KeptQuote[] = []) {
  const writes: KeptQuote[][] = [];
  let failures = 0;
  return {
    writes,
    failNext(n = 1) {
      failures += n;
    },
    load: () => Promise.resolve(kept),
    keep: (rows: readonly KeptQuote[]) => {
      if (failures > 0) {
        failures--;
        return Promise.reject(new Error("database down"));
      }
      writes.push([...rows]);
      return Promise.resolve();
    },
    fundingPrices: (_boundary: number, quotes: readonly TickQuote[]) => Promise.resolve([...quotes]),
    fundedThrough: () => Promise.resolve(undefined),
    recordFunded: () => Promise.resolve(),
  };
}

const log = createLogger("test", "silent");

describe("the price keeper", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("writes the symbols that moved within a second, each once, at its latest prices", async () => {
    const store = fakeStore();
    const keeper = new PriceKeeper(store, log);
    keeper.note([btc(1), eth(10)], T);
    keeper.note([btc(2)], T + 300);
    expect(store.writes).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(store.writes).toEqual([
      [
        { ...btc(2), at: T + 300 },
        { ...eth(10), at: T },
      ],
    ]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(store.writes).toHaveLength(1);
  });

  it("writes at once when asked, and what is left at a stop", async () => {
    const store = fakeStore();
    const keeper = new PriceKeeper(store, log);
    keeper.note([btc(1)], T);
    await keeper.flush();
    expect(store.writes).toEqual([[{ ...btc(1), at: T }]]);
    keeper.note([eth(10)], T + 10);
    await keeper.stop();
    expect(store.writes).toEqual([[{ ...btc(1), at: T }], [{ ...eth(10), at: T + 10 }]]);
    keeper.note([btc(3)], T + 20);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(store.writes).toHaveLength(2);
  });

  it("writes a quote whose write failed with the next write, unless a newer one replaced it", async () => {
    const store = fakeStore();
    const keeper = new PriceKeeper(store, log);
    keeper.note([btc(1), eth(10)], T);
    store.failNext();
    await expect(keeper.flush()).rejects.toThrow("database down");
    keeper.note([btc(2)], T + 500);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(store.writes).toEqual([
      [
        { ...btc(2), at: T + 500 },
        { ...eth(10), at: T },
      ],
    ]);
  });

  it("keeps a restored quote's own time, and pays a boundary at the latest prices when none were kept for it", async () => {
    const restored: KeptQuote = { ...btc(7), at: T - 60_000 };
    const keeper = new PriceKeeper(fakeStore([restored]), log);
    expect(await keeper.restore()).toEqual([restored]);
    expect(await keeper.fundingPrices(T)).toEqual([restored]);
    keeper.note([{ ...btc(8), at: T - 1_000 }, eth(10)], T);
    expect(keeper.latestQuotes()).toEqual([
      { ...btc(8), at: T - 1_000 },
      { ...eth(10), at: T },
    ]);
  });
});
