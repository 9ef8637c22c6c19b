// Read models of the risk side of an account (docs/risk.md, docs/openapi.yaml): funding, breaches,
// violations, analytics, and the R multiple of a closed position. Units become JSON numbers here.
import type { MarketView } from "../market/book.js";
import { bigDivRound, unitsFor, unitsToNumber } from "../market/units.js";
import { toIso } from "../basics/time.js";
import type { ClosedPosition } from "../basics/position-types.js";
import type { Breach } from "../basics/risk-types.js";
import { notionalAtMark } from "../risk/exposure.js";
import { percentOf } from "../risk/limits.js";
import type { AccountState } from "../basics/account-state.js";

export interface FundingRow {
  payment_id: string;
  position_id: string;
  symbol: string;
  asset_class: string;
  /** Per interval, a fraction of the notional; negative when paid. */
  rate: number;
  amount: number;
  paid_at: string;
}

export interface FundingByClass {
  asset_class: string;
  received: number;
  paid: number;
  net: number;
}

export interface FundingReport {
  by_asset_class: FundingByClass[];
  data: FundingRow[];
}

export function fundingReport(state: AccountState): FundingReport {
  const sums = new Map<string, { received: number; paid: number }>();
  const data: FundingRow[] = [];
  for (const payment of state.funding) {
    const sum = sums.get(payment.asset_class) ?? { received: 0, paid: 0 };
    if (payment.amount > 0) sum.received += payment.amount;
    else sum.paid -= payment.amount;
    sums.set(payment.asset_class, sum);
    data.push({
      payment_id: payment.payment_id,
      position_id: payment.position_id,
      symbol: payment.symbol,
      asset_class: payment.asset_class,
      rate: payment.rate_ppm / 1_000_000,
      amount: unitsToNumber(payment.amount),
      paid_at: toIso(payment.paid_at),
    });
  }
  const byClass = [...sums]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([assetClass, sum]) => ({
      asset_class: assetClass,
      received: unitsToNumber(sum.received),
      paid: unitsToNumber(sum.paid),
      net: unitsToNumber(sum.received - sum.paid),
    }));
  return { by_asset_class: byClass, data };
}

export interface BreachRow {
  breach_id: string;
  rule: string;
  severity: string;
  threshold: number;
  value: number;
  message: string;
  occurred_at: string;
}

/** One breach as `GET .../breaches` lists it (and as the `account.breach` webhook carries it). */
export function breachRow(breach: Breach): BreachRow {
  return {
    breach_id: breach.breach_id,
    rule: breach.rule,
    severity: breach.severity,
    threshold: unitsToNumber(breach.threshold),
    value: unitsToNumber(breach.value),
    message: breach.message,
    occurred_at: toIso(breach.occurred_at),
  };
}

export function breaches(state: AccountState): { data: BreachRow[] } {
  return { data: state.breaches.map(breachRow) };
}

export interface ViolationRow {
  violation_id: string;
  rule: string;
  threshold: number;
  value: number;
  message: string;
  occurred_at: string;
}

export function violations(state: AccountState): { data: ViolationRow[] } {
  return {
    data: state.violations.map((violation) => ({
      violation_id: violation.violation_id,
      rule: violation.rule,
      threshold: unitsToNumber(violation.threshold),
      value: unitsToNumber(violation.value),
      message: violation.message,
      occurred_at: toIso(violation.occurred_at),
    })),
  };
}

/**
 * n / d to 4 decimals, rounded half away from zero, exactly: in BigInt from the integers (so 0.00015 is
 * 0.0002 and −0.00015 is −0.0002, where `Math.round(x × 10⁴)` on the float gives 0.0001 and −0.0001).
 */
export function ratio4(n: number, d: number): number {
  return Number(bigDivRound(BigInt(n) * 10_000n, BigInt(d))) / 10_000;
}

/** A float to 4 decimals, halves away from zero on both sides (the mean of R multiples, not a ratio of integers). */
const round4 = (value: number): number => (Math.sign(value) * Math.round(Math.abs(value) * 10_000)) / 10_000 || 0;

/** Net P&L of a closed position (units): realized minus fees plus funding. */
export function netPnl(closed: ClosedPosition): number {
  return closed.realized_pnl - closed.fees + closed.funding;
}

/**
 * Initial risk (units): the distance from the average entry to the first stop-loss placed against the
 * position, over its whole quantity; 1% of the starting balance without one (or with a stop at entry).
 */
export function initialRisk(state: AccountState, market: MarketView, closed: ClosedPosition): number {
  const stop = state.first_stops.get(closed.position_id);
  if (stop !== undefined) {
    const units = unitsFor(market.catalogue, closed.symbol);
    // In BigInt: the lifetime totals may be past the safe range; the risk is only ever divided by.
    const distance = closed.entry_notional - BigInt(stop) * BigInt(closed.quantity) * BigInt(units.unitsPerTickStep);
    const risk = Number(distance < 0n ? -distance : distance);
    if (risk > 0) return risk;
  }
  return percentOf(state.starting_balance, 1);
}

/**
 * R multiple of a closed position (docs/risk.md, "Analytics"): its realized P&L (the history row's `realized_pnl`,
 * before fees and funding) over its initial risk, unrounded. Win rate and profit factor read the net P&L.
 */
function rRatio(state: AccountState, market: MarketView, closed: ClosedPosition): number {
  return closed.realized_pnl / initialRisk(state, market, closed);
}

/** R multiple of a closed position: realized P&L over initial risk, rounded to 4 decimals. */
export function rMultiple(state: AccountState, market: MarketView, closed: ClosedPosition): number {
  return ratio4(closed.realized_pnl, initialRisk(state, market, closed));
}

export interface ExposureRow {
  asset_class: string;
  venue: string;
  notional: number;
}

export interface Analytics {
  win_rate: number | null;
  avg_r_multiple: number | null;
  profit_factor: number | null;
  closed_positions: number;
  exposure: ExposureRow[];
}

export function analytics(state: AccountState, market: MarketView): Analytics {
  const closed = state.closed_positions;
  let wins = 0;
  let gains = 0;
  let losses = 0;
  let rSum = 0;
  for (const position of closed) {
    const net = netPnl(position);
    if (net > 0) {
      wins++;
      gains += net;
    } else {
      losses -= net;
    }
    rSum += rRatio(state, market, position);
  }
  const count = closed.length;
  const exposure = new Map<string, ExposureRow & { units: number }>();
  for (const position of state.positions.values()) {
    const spec = market.catalogue.byKey(position.symbol);
    if (spec === undefined) continue;
    const units = notionalAtMark(position, market);
    const key = `${spec.asset_class}|${position.venue}`;
    const row = exposure.get(key) ?? { asset_class: spec.asset_class, venue: position.venue, notional: 0, units: 0 };
    row.units += units;
    exposure.set(key, row);
  }
  return {
    win_rate: count === 0 ? null : ratio4(wins, count),
    avg_r_multiple: count === 0 ? null : round4(rSum / count),
    profit_factor: losses === 0 ? null : ratio4(gains, losses),
    closed_positions: count,
    exposure: [...exposure.values()]
      .sort((a, b) => a.asset_class.localeCompare(b.asset_class) || a.venue.localeCompare(b.venue))
      .map((row) => ({ asset_class: row.asset_class, venue: row.venue, notional: unitsToNumber(row.units) })),
  };
}
