// Funding payments on open positions (docs/risk.md, "Funding"), decided once per funding tick from the
// marks: crypto pays by the sign of the premium (mark above index: longs are the larger side and pay the
// shorts; below: the reverse; equal: nothing), the other classes pay a rollover fee on both sides, only at a
// boundary their market is open at (no rollover for the hours a market is closed).
import { isMarketOpen } from "../../kernel/market-hours.js";
import { feeAt, notionalOf } from "../market/units.js";
import type { AssetClass } from "../market/types.js";
import type { Run } from "../basics/run.js";

/** The prices one symbol's funding is paid at, in ticks of its tick size. */
export interface FundingPrice {
  readonly mark: number;
  readonly index: number;
}

/** Per funding interval, in parts per million of the position's notional at the mark. */
export interface FundingRates {
  readonly cryptoPpm: number;
  readonly rolloverPpm: number;
}

/**
 * The signed rate (ppm, positive = received) for a position on a quote at the boundary `at`, or 0 when nothing
 * is due: rollover is charged only when the asset class's market is open at `at` (kernel/market-hours.ts).
 */
export function fundingRatePpm(
  assetClass: AssetClass,
  side: "BUY" | "SELL",
  mark: number,
  index: number,
  rates: FundingRates,
  at: number,
): number {
  if (assetClass !== "crypto") return isMarketOpen(assetClass, at) ? -rates.rolloverPpm : 0;
  if (mark === index) return 0;
  const longsPay = mark > index;
  const pays = side === "BUY" ? longsPay : !longsPay;
  return pays ? -rates.cryptoPpm : rates.cryptoPpm;
}

/**
 * When the next funding tick is due: the next multiple of the interval since the Unix epoch, so an 8-hour
 * interval pays at 00:00, 08:00 and 16:00 UTC whenever the engine was started.
 */
export function nextFundingAt(nowMs: number, intervalMs: number): number {
  return (Math.floor(nowMs / intervalMs) + 1) * intervalMs;
}

/**
 * One FundingPaid per open position with a price and a non-zero amount, at `prices` where they list its symbol
 * (the prices kept at the boundary), else at the current quote. With a boundary: nothing when the account was
 * already paid for it (a retried tick), and only positions opened before it.
 */
export function payFunding(
  run: Run,
  rates: FundingRates,
  boundary?: number,
  prices?: ReadonlyMap<string, FundingPrice>,
): void {
  if (boundary !== undefined && run.state.funded_through >= boundary) return;
  // Market hours are read at the boundary the tick pays for (a retry runs later), else at the tick's time.
  const at = boundary ?? run.now;
  for (const [key, position] of [...run.state.positions]) {
    if (boundary !== undefined && position.opened_at >= boundary) continue;
    const quote = run.market.quotes.get(position.symbol);
    if (quote === undefined) continue;
    const { mark, index } = prices?.get(position.symbol) ?? quote;
    const ratePpm = fundingRatePpm(quote.spec.asset_class, position.side, mark, index, rates, at);
    if (ratePpm === 0) continue;
    const notional = notionalOf(mark, position.quantity, quote.units.unitsPerTickStep);
    const magnitude = feeAt(notional, Math.abs(ratePpm));
    if (magnitude === 0) continue;
    run.emit({
      type: "FundingPaid",
      at: run.now,
      payment: {
        payment_id: run.nextId(),
        position_id: position.position_id,
        position_key: key,
        symbol: position.symbol,
        asset_class: quote.spec.asset_class,
        rate_ppm: ratePpm,
        amount: ratePpm > 0 ? magnitude : -magnitude,
        // A payment for a boundary is dated at it, whenever its tick ran (a retry, a start after it).
        paid_at: boundary ?? run.now,
      },
      ...(boundary === undefined ? {} : { boundary }),
    });
  }
}
