// The quiet band of an account (docs/risk.md, "Monitoring"): the range of mark prices of its one symbol in
// which a price update can do nothing (no limit crosses, no stop triggers, no liquidation, no new high-water
// mark, no breach level, no passing), valid until the day ends or an order expires. Kept on the state (tagged with the
// state's seq, so any event makes it stale), a quiet update then reads a few numbers of one object instead
// of the account's maps, positions and orders: what keeps a price update across 10,000 accounts cheap.
// Accounts on more than one symbol, or with orders a band cannot describe, have none (the full check runs).
import type { AccountState } from "../basics/account-state.js";
import type { MarketView } from "../market/book.js";
import { liquidationPrice } from "../positions/ledger.js";
import { BREACH_LEVELS, limitsOf } from "./limits.js";

export interface QuietBand {
  /** "" when the account has no position and no working order: every update is quiet. */
  readonly symbol: string;
  /** Inclusive mark range (ticks). */
  readonly low: number;
  readonly high: number;
  /** Epoch ms; the band holds strictly before it. */
  readonly until: number;
}

/** ⌊x / d⌋ for safe integers (d ≠ 0), exact even where the float quotient rounds across an integer. */
function floorDiv(x: number, d: number): number {
  let q = Math.floor(x / d);
  if (d > 0) {
    while (q * d > x) q--;
    while ((q + 1) * d <= x) q++;
  } else {
    while (q * d < x) q--;
    while ((q + 1) * d >= x) q++;
  }
  return q;
}

const ceilDiv = (x: number, d: number): number => -floorDiv(-x, d);

/** The smallest use (units) that reaches `percent` of `limit` (levelsReached's test, solved for use). */
function firstReaching(limit: number, percent: number): number {
  // ⌈x / 100⌉ as ⌊(x + 99) / 100⌋: x is a safe integer, and a quotient with a fraction of at least 1/100
  // cannot round across an integer.
  return Math.floor((limit * percent + 99) / 100);
}

/** The band, or undefined when the account has none (several symbols, index triggers, triggered orders…). */
export function quietBand(state: AccountState, market: MarketView): QuietBand | undefined {
  let symbol: string | undefined;
  let low = 1;
  let high = Number.MAX_SAFE_INTEGER;
  let until = state.next_day_at;
  for (const expireAt of state.expiries.values()) until = Math.min(until, expireAt);

  for (const order of state.working.values()) {
    if (order.status === "HELD") continue;
    if (symbol === undefined) symbol = order.symbol;
    else if (symbol !== order.symbol) return undefined;
    if (order.kind === "MARKET" || order.triggered) return undefined;
    if (order.kind === "LIMIT") {
      if (order.limit_price === null) return undefined;
      // A BUY crosses at mark ≤ limit, a SELL at mark ≥ limit (execution.ts `crosses`).
      if (order.side === "BUY") low = Math.max(low, order.limit_price + 1);
      else high = Math.min(high, order.limit_price - 1);
      continue;
    }
    if (order.index_trigger || order.trigger_price === null) return undefined;
    // A rising trigger fires at mark ≥ trigger, a falling one at mark ≤ trigger (`triggerReached`).
    const rising = (order.kind === "STOP") === (order.side === "BUY");
    if (rising) high = Math.min(high, order.trigger_price - 1);
    else low = Math.max(low, order.trigger_price + 1);
  }

  // equity(m) = a + b·m over the positions (all on `symbol`); the monitor must have nothing to do.
  let a = state.balance;
  let b = 0;
  for (const position of state.positions.values()) {
    if (symbol === undefined) symbol = position.symbol;
    else if (symbol !== position.symbol) return undefined;
    const quote = market.quotes.get(position.symbol);
    if (quote === undefined) return undefined;
    const sign = position.side === "BUY" ? 1 : -1;
    a -= sign * position.cost_basis;
    b += sign * position.quantity * quote.units.unitsPerTickStep;
    // A long is liquidated at mark ≤ its liquidation price, a short at mark ≥ it (orders/liquidation.ts).
    const liquidation = liquidationPrice(position, quote.units);
    if (position.side === "BUY") low = Math.max(low, liquidation + 1);
    else high = Math.min(high, liquidation - 1);
  }

  const limits = limitsOf(state);
  const dailyLevel = BREACH_LEVELS[state.daily_levels];
  const drawdownLevel = BREACH_LEVELS[state.drawdown_levels];
  if (dailyLevel === undefined || drawdownLevel === undefined) return undefined;
  // Quiet while: equity ≤ high-water mark; the day's loss and the drawdown stay under their next level; a flat
  // ACTIVE account stays under its target (an account with a position passes on no price: only a fill that
  // leaves it flat can).
  let maxEquity = state.high_water_mark;
  if (state.state === "ACTIVE" && state.positions.size === 0) maxEquity = Math.min(maxEquity, limits.profitTarget - 1);
  const minEquity = Math.max(
    state.day_start_equity - firstReaching(limits.dailyLimit, dailyLevel.percent) + 1,
    limits.drawdownReference - firstReaching(limits.drawdownAllowance, drawdownLevel.percent) + 1,
  );
  if (b === 0) {
    if (a < minEquity || a > maxEquity) return undefined;
  } else if (b > 0) {
    low = Math.max(low, ceilDiv(minEquity - a, b));
    high = Math.min(high, floorDiv(maxEquity - a, b));
  } else {
    low = Math.max(low, ceilDiv(maxEquity - a, b));
    high = Math.min(high, floorDiv(minEquity - a, b));
  }
  if (low > high) return undefined;
  // A band holds only from a mark inside it: outside, something is due already (a day that started with the
  // drawdown past a level, say), and an update of another symbol must not pass for quiet.
  const mark = symbol === undefined ? undefined : market.quotes.get(symbol)?.mark;
  if (mark !== undefined && (mark < low || mark > high)) return undefined;
  return { symbol: symbol ?? "", low, high, until };
}

/** The band as cached next to a state: `symbol` null when it has none. */
export interface BandCache {
  seq: number;
  symbol: string | null;
  low: number;
  high: number;
  until: number;
}

/**
 * A derived cache, not journaled: kept under a non-enumerable symbol on the live state, so replayed states
 * still equal live ones, and recomputed whenever the state's seq moved (any applied event).
 */
const BAND = Symbol("quietBand");

export function cachedBand(state: AccountState, market: MarketView): BandCache {
  const holder = state as AccountState & { [BAND]?: BandCache };
  let cache = holder[BAND];
  if (cache === undefined) {
    cache = { seq: -1, symbol: null, low: 0, high: 0, until: 0 };
    Object.defineProperty(state, BAND, { value: cache, enumerable: false, writable: false });
  }
  if (cache.seq !== state.seq) {
    const band = quietBand(state, market);
    cache.seq = state.seq;
    cache.symbol = band?.symbol ?? null;
    cache.low = band?.low ?? 0;
    cache.high = band?.high ?? 0;
    cache.until = band?.until ?? 0;
  }
  return cache;
}
