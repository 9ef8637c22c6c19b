// Read models of one account (the account routes of docs/openapi.yaml): the account record, the live summary, open
// positions, position history, trades and working orders. Queries read the state directly (they are not
// journaled) and turn units into JSON numbers through exact decimals.
import type { MarketView } from "../market/book.js";
import type { Venue } from "../market/types.js";
import { unitsFor, unitsToNumber } from "../market/units.js";
import { toFillRecord, toOrderRecord, type FillRecord, type OrderRecord } from "../basics/order-records.js";
import type { Issue } from "../../kernel/errors.js";
import {
  LIST_LIMIT_DEFAULT,
  checkListAfterId,
  checkListBound,
  checkListLimit,
  listRangeIssues,
  type Checked,
} from "../../kernel/list-range.js";
import { toIso, utcDayStart } from "../basics/time.js";
import type { Fill } from "../basics/order-types.js";
import {
  toClosedPositionRow,
  toOpenPositionRow,
  type ClosedPositionRow,
  type OpenPositionRow,
} from "../positions/record.js";
import { marginSnapshot } from "../risk/margin.js";
import type { ClosedPosition } from "../basics/position-types.js";
import type { DrawdownMode, Plan } from "../basics/plans.js";
import { rMultiple } from "./risk-queries.js";
import type { AccountState, AccountStatus } from "../basics/account-state.js";

/** The plan's limits as they apply to the account. */
export interface RiskLimits {
  profit_target_pct: number;
  max_drawdown_pct: number;
  drawdown_mode: DrawdownMode;
  daily_loss_pct: number;
  daily_reset: string;
  max_leverage: Plan["max_leverage"];
  max_symbol_notional: number;
  max_total_notional: number;
  news_freeze: Plan["news_freeze"];
}

export interface AccountRecord {
  account_id: string;
  plan_id: string;
  label: string | null;
  state: AccountStatus;
  default_venue: Venue;
  allowed_venues: Venue[];
  balance: number;
  equity: number;
  starting_balance: number;
  high_water_mark: number;
  day_start_equity: number;
  risk: RiskLimits;
  created_at: string;
  terminated_at: string | null;
}

export interface AccountSummary {
  account_id: string;
  state: AccountStatus;
  balance: number;
  equity: number;
  margin_available: number;
  margin_locked: number;
  unrealized_pnl: number;
  realized_pnl_today: number;
  as_of: string;
}

export function accountRecord(state: AccountState, market: MarketView): AccountRecord {
  const plan = state.plan;
  return {
    account_id: state.account_id,
    plan_id: plan.plan_id,
    label: state.label,
    state: state.state,
    default_venue: state.default_venue,
    allowed_venues: [...state.allowed_venues],
    balance: unitsToNumber(state.balance),
    equity: unitsToNumber(marginSnapshot(state, market).equity),
    starting_balance: unitsToNumber(state.starting_balance),
    high_water_mark: unitsToNumber(state.high_water_mark),
    day_start_equity: unitsToNumber(state.day_start_equity),
    risk: {
      profit_target_pct: plan.profit_target_pct,
      max_drawdown_pct: plan.max_drawdown_pct,
      drawdown_mode: plan.drawdown_mode,
      daily_loss_pct: plan.daily_loss_pct,
      daily_reset: plan.daily_reset,
      max_leverage: { ...plan.max_leverage },
      max_symbol_notional: plan.max_symbol_notional,
      max_total_notional: plan.max_total_notional,
      news_freeze: { ...plan.news_freeze },
    },
    created_at: toIso(state.created_at),
    terminated_at: state.terminated_at === null ? null : toIso(state.terminated_at),
  };
}

/**
 * What the day's trading moved the balance by since 00:00 UTC of `nowMs` (units): the fills' realized P&L minus
 * their fees, plus the funding paid and received. The daily loss rule (docs/risk.md) counts all three, so the
 * summary shows the realized part of the figure the rule judges.
 */
export function realizedToday(state: AccountState, nowMs: number): number {
  const dayStart = utcDayStart(nowMs);
  let total = 0;
  for (let i = state.fills.length - 1; i >= 0; i--) {
    const fill = state.fills[i];
    if (fill === undefined || fill.executed_at < dayStart) break;
    if (fill.executed_at <= nowMs) total += fill.realized_pnl - fill.fee;
  }
  for (let i = state.funding.length - 1; i >= 0; i--) {
    const payment = state.funding[i];
    if (payment === undefined || payment.paid_at < dayStart) break;
    if (payment.paid_at <= nowMs) total += payment.amount;
  }
  return total;
}

export function accountSummary(state: AccountState, market: MarketView, nowMs: number): AccountSummary {
  const margin = marginSnapshot(state, market);
  return {
    account_id: state.account_id,
    state: state.state,
    balance: unitsToNumber(state.balance),
    equity: unitsToNumber(margin.equity),
    margin_available: unitsToNumber(margin.available),
    margin_locked: unitsToNumber(margin.locked),
    unrealized_pnl: unitsToNumber(margin.unrealized),
    realized_pnl_today: unitsToNumber(realizedToday(state, nowMs)),
    as_of: toIso(nowMs),
  };
}

export function openPositions(state: AccountState, market: MarketView): { data: OpenPositionRow[] } {
  const data: OpenPositionRow[] = [];
  for (const position of state.positions.values()) {
    const units = unitsFor(market.catalogue, position.symbol);
    data.push(toOpenPositionRow(position, units, market.quotes.get(position.symbol)));
  }
  data.sort((a, b) => a.opened_at.localeCompare(b.opened_at) || a.position_id.localeCompare(b.position_id));
  return { data };
}

export function workingOrders(state: AccountState, market: MarketView): { data: OrderRecord[] } {
  const data: OrderRecord[] = [];
  for (const order of state.working.values()) data.push(toOrderRecord(order, unitsFor(market.catalogue, order.symbol)));
  return { data };
}

/** One order of the account (any status), or undefined. */
export function orderById(state: AccountState, market: MarketView, orderId: string): OrderRecord | undefined {
  const order = state.orders.get(orderId);
  return order === undefined ? undefined : toOrderRecord(order, unitsFor(market.catalogue, order.symbol));
}

export { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from "../../kernel/list-range.js";

/**
 * Bounds of a list: inclusive epoch-ms instants and a page size. `after_id` is the keyset cursor: with it, the
 * list starts strictly after the row (`from`, `after_id`) in (time, id) order, so rows at `from` with an id up
 * to `after_id` are left out and rows at later times all count.
 */
export interface ListQuery {
  from: number | null;
  to: number | null;
  limit: number;
  after_id?: string | null;
}

export interface ListQueryInput {
  from?: string | null;
  to?: string | null;
  limit?: string | number | null;
  after_id?: string | null;
}

export type ListQueryResult = { ok: true; query: ListQuery } | { ok: false; issues: Issue[] };

/**
 * Validates `from`, `to` (ISO 8601, inclusive), `limit` (default 100, clamped to 1000) and `after_id` (the last
 * row's id, only together with `from`: the last row's time) by the rules of kernel/list-range.ts.
 */
export function parseListQuery(input: ListQueryInput): ListQueryResult {
  const issues: Issue[] = [];
  const take = <T>(checked: Checked<T>): T | null => {
    if (checked.ok) return checked.value;
    issues.push(checked.issue);
    return null;
  };
  const from = input.from === null || input.from === undefined ? null : take(checkListBound("from", input.from));
  const to = input.to === null || input.to === undefined ? null : take(checkListBound("to", input.to));
  const limit =
    input.limit === null || input.limit === undefined ? LIST_LIMIT_DEFAULT : take(checkListLimit(input.limit));
  const afterId =
    input.after_id === null || input.after_id === undefined ? null : take(checkListAfterId(input.after_id));
  if (issues.length === 0) issues.push(...listRangeIssues({ from, to, afterId }));
  if (issues.length > 0 || limit === null) return { ok: false, issues };
  return { ok: true, query: { from, to, limit, after_id: afterId } };
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
}

/** How a list is ordered: by time, ties by id. */
interface ListOrder<T> {
  readonly timeOf: (item: T) => number;
  readonly idOf: (item: T) => string;
}

const BY_CLOSE: ListOrder<ClosedPosition> = {
  timeOf: (closed) => closed.closed_at,
  idOf: (closed) => closed.position_id,
};

const BY_EXECUTION: ListOrder<Fill> = {
  timeOf: (fill) => fill.executed_at,
  idOf: (fill) => fill.fill_id,
};

/**
 * The records of the first `limit` items in (time, id) order within [from, to], after the cursor (`from`,
 * `after_id`) when there is one. `items` is in non-decreasing time order (the shell's clock never runs
 * backwards); ties are ordered by id here, and the cursor compares ids the same way.
 */
function page<T, R>(items: readonly T[], by: ListOrder<T>, query: ListQuery, record: (item: T) => R): Page<R> {
  const { timeOf, idOf } = by;
  let low = 0;
  let high = items.length;
  if (query.from !== null) {
    const from = query.from;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const item = items[mid];
      if (item !== undefined && timeOf(item) < from) low = mid + 1;
      else high = mid;
    }
  }
  const afterId = query.from === null ? null : (query.after_id ?? null);
  const picked: T[] = [];
  let boundary: number | undefined;
  for (let i = low; i < items.length; i++) {
    const item = items[i];
    if (item === undefined) break;
    const time = timeOf(item);
    if (query.to !== null && time > query.to) break;
    if (boundary !== undefined && time > boundary) break;
    // At the cursor's time, only ids after it (the rows there are not in id order in `items`).
    if (afterId !== null && time === query.from && idOf(item) <= afterId) continue;
    picked.push(item);
    if (picked.length === query.limit + 1) boundary = time;
  }
  picked.sort((a, b) => timeOf(a) - timeOf(b) || (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0));
  return { data: picked.slice(0, query.limit).map(record), has_more: picked.length > query.limit };
}

/** One closed position as the history lists it (and as the `position.close` webhook carries it). */
export function historyRow(state: AccountState, market: MarketView, closed: ClosedPosition): ClosedPositionRow {
  return {
    ...toClosedPositionRow(closed, unitsFor(market.catalogue, closed.symbol)),
    r_multiple: rMultiple(state, market, closed),
  };
}

export function positionHistory(state: AccountState, market: MarketView, query: ListQuery): Page<ClosedPositionRow> {
  return page(state.closed_positions, BY_CLOSE, query, (closed) => historyRow(state, market, closed));
}

export function trades(state: AccountState, market: MarketView, query: ListQuery): Page<FillRecord> {
  return page(state.fills, BY_EXECUTION, query, (fill) =>
    toFillRecord(fill, state.account_id, unitsFor(market.catalogue, fill.symbol)),
  );
}
