// When each asset class trades, for the engine (orders, prices, funding) and the gateway (a ticker's market_open
// when it serves GET /v1/tickers from its cache, docs/engine.md "Catalogue reads"). Pure: the caller passes the
// time, so the engine core stays deterministic.
//
// Hours (UTC, fixed all year: the simulated venues do not follow daylight-saving shifts):
// - crypto: always open.
// - forex: Sunday 22:00 to Friday 22:00, continuously.
// - commodities and indices: Sunday 23:00 to Friday 22:00, with a daily break 22:00-23:00
//   Monday to Thursday.
// Each window opens at its start instant and closes at its end instant (start inclusive, end exclusive).

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

const SUN = 0;
const MON = 1;
const TUE = 2;
const WED = 3;
const THU = 4;
const FRI = 5;

/** An offset from Sunday 00:00 UTC, in milliseconds. */
const at = (day: number, hour: number): number => day * DAY + hour * HOUR;

/** [opens, closes) offsets within the week. */
type Window = readonly [number, number];

const SESSIONS_WITH_DAILY_BREAK: readonly Window[] = [
  [at(SUN, 23), at(MON, 22)],
  [at(MON, 23), at(TUE, 22)],
  [at(TUE, 23), at(WED, 22)],
  [at(WED, 23), at(THU, 22)],
  [at(THU, 23), at(FRI, 22)],
];

/** The asset classes (engine/market/types.ts's AssetClass). */
export type MarketClass = "crypto" | "forex" | "commodities" | "indices";

/** The weekly trading windows per asset class; undefined means always open. */
export const TRADING_WINDOWS: Readonly<Record<MarketClass, readonly Window[] | undefined>> = {
  crypto: undefined,
  forex: [[at(SUN, 22), at(FRI, 22)]],
  commodities: SESSIONS_WITH_DAILY_BREAK,
  indices: SESSIONS_WITH_DAILY_BREAK,
};

/** Milliseconds since the most recent Sunday 00:00 UTC. */
function offsetInWeek(nowMs: number): number {
  const sinceMidnight = ((nowMs % DAY) + DAY) % DAY;
  return (new Date(nowMs).getUTCDay() * DAY + sinceMidnight) % WEEK;
}

/** Whether `assetClass` trades at the instant `nowMs` (Unix epoch milliseconds). */
export function isMarketOpen(assetClass: MarketClass, nowMs: number): boolean {
  const windows = TRADING_WINDOWS[assetClass];
  if (windows === undefined) return true;
  const offset = offsetInWeek(nowMs);
  return windows.some(([opens, closes]) => offset >= opens && offset < closes);
}
