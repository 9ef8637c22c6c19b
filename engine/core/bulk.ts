// Commands over every working order or position of an account, each decided in one step (docs/engine.md,
// "Commands and events"): cancel-all (DELETE /v1/account/{id}/orders) and flatten (POST
// /v1/account/{id}/flatten). One decision means no order placed concurrently lands between their parts: it is
// decided before them (and canceled or closed by them) or after them (and judged on its own).
import type { Issue } from "../../kernel/errors.js";
import { openPositions } from "../accounts/queries.js";
import type { AccountState } from "../basics/account-state.js";
import type { Order } from "../basics/order-types.js";
import { positionKey } from "../basics/position-types.js";
import { toOrderRecord, type OrderRecord } from "../basics/order-records.js";
import { invalid, notFound } from "../basics/replies.js";
import type { Catalogue } from "../market/catalogue.js";
import { normalizeSymbol } from "../market/symbols.js";
import { unitsFor } from "../market/units.js";
import { protects } from "../orders/cancel-after.js";
import { cancelOrder } from "../orders/lifecycle.js";
import { closePosition } from "../orders/placement.js";
import type { CancelAllReply, CancelAllRequest, FlattenClose, FlattenReply, FlattenRequest } from "./bulk-types.js";
import type { DecisionRun } from "./decision-run.js";

/** The listed symbol a request names, in any spelling placement reads (`btcusd`, `BTC/USD`), or undefined. */
function listedSymbol(catalogue: Catalogue, symbol: string): string | undefined {
  return catalogue.byKey(symbol)?.symbol ?? normalizeSymbol(symbol, catalogue);
}

/**
 * Cancels the working orders (of `symbol`, or all), oldest first, reason `user`; a parent without fills takes its
 * children along (`parent_canceled`), as a single cancel does. Answers every order this decision canceled.
 */
function cancelWorking(run: DecisionRun, symbol: string | undefined): OrderRecord[] {
  const ids: string[] = [];
  for (const order of run.state.working.values())
    if (symbol === undefined || order.symbol === symbol) ids.push(order.order_id);
  const from = run.emitted;
  for (const id of ids) cancelOrder(run, id, "user");
  return canceledSince(run, from, undefined);
}

/** The orders (of `among`, or any) this decision canceled from event `from` on, in the order it canceled them. */
function canceledSince(run: DecisionRun, from: number, among: ReadonlySet<string> | undefined): OrderRecord[] {
  const canceled: OrderRecord[] = [];
  const state = run.state;
  for (let i = from; i < run.events.length; i++) {
    const event = run.events[i];
    if (event?.type === "OrderCanceled" && (among === undefined || among.has(event.order_id))) {
      canceled.push(recordOf(run, state, event.order_id));
    }
  }
  return canceled;
}

function recordOf(run: DecisionRun, state: AccountState, orderId: string): OrderRecord {
  const order: Order | undefined = state.orders.get(orderId);
  if (order === undefined) throw new Error(`order ${orderId} vanished from its own decision`);
  return toOrderRecord(order, unitsFor(run.market.catalogue, order.symbol));
}

/** CancelAll: DELETE /v1/account/:account_id/orders. */
export function cancelAll(run: DecisionRun, request: CancelAllRequest): CancelAllReply {
  if (request.account_id !== run.state.account_id) return notFound();
  let symbol: string | undefined;
  if (typeof request.symbol === "string" && request.symbol !== "") {
    symbol = listedSymbol(run.market.catalogue, request.symbol);
    if (symbol === undefined) return invalid([{ path: "symbol", message: "unknown symbol; see GET /v1/tickers" }]);
  }
  return { kind: "canceled", orders: cancelWorking(run, symbol) };
}

/**
 * Flatten: POST /v1/account/:account_id/flatten. First the working orders that protect no open position (as the
 * dead-man's switch judges them, `protects`: the protective ones are the reduce-only orders, not HELD, with an
 * open position to reduce) are canceled, oldest first, reason `user` (a parent without fills takes its HELD
 * children along as `parent_canceled`), so none adds exposure while the positions close. Then each position open then, oldest first, is closed through the
 * path of POST /v1/position/close (a reduce-only MARKET order for the whole quantity: the book's depth, the
 * fees, the market's hours and the risk checks as for that call). A position's protective orders stay working
 * until its close fills it completely; they then go by the rule of any complete close
 * (`reduce_only_no_position`, orders/lifecycle.ts). A position whose close is rejected (`market_closed`, a risk
 * rule), partial (a thin book) or not placed (no price) keeps them working, and its entry in `closes` lists
 * them (`kept_orders`). `canceled` answers every order working before the call that the decision canceled
 * (a termination's among them, when a close ends the account): with the kept orders, that is every one of them.
 * `positions` answers what is still open afterwards.
 */
export function flatten(run: DecisionRun, request: FlattenRequest): FlattenReply {
  if (request.account_id !== run.state.account_id) return notFound();
  const from = run.emitted;
  const before = new Set(run.state.working.keys());
  const unprotective: string[] = [];
  for (const order of run.state.working.values()) if (!protects(run.state, order)) unprotective.push(order.order_id);
  for (const id of unprotective) cancelOrder(run, id, "user");
  const closes: Omit<FlattenClose, "kept_orders">[] = [];
  const open = [...run.state.positions.values()].sort((a, b) => a.opened_at - b.opened_at);
  for (const position of open) {
    // An earlier close may have ended the account (a termination closes every position itself).
    const current = run.state.positions.get(positionKey(position.symbol, position.venue));
    if (current?.position_id !== position.position_id) continue;
    const reply = closePosition(run, {
      account_id: request.account_id,
      symbol: position.symbol,
      venue: position.venue,
      position_id: position.position_id,
    });
    const base = { position_id: position.position_id, symbol: position.symbol, venue: position.venue };
    if (reply.kind === "error") {
      const issues = (reply.fields.issues as Issue[] | undefined) ?? [{ path: "", message: reply.code }];
      closes.push({ ...base, order: null, fills: [], violations: [], issues });
    } else {
      closes.push({ ...base, order: reply.order, fills: reply.fills, violations: reply.violations, issues: [] });
    }
  }
  const state = run.state;
  return {
    kind: "flattened",
    canceled: canceledSince(run, from, before),
    closes: closes.map((close) => ({ ...close, kept_orders: keptFor(run, state, close) })),
    positions: openPositions(state, run.market).data,
  };
}

/** The orders still working on a close's symbol and venue after the flatten: the protective orders it kept. */
function keptFor(run: DecisionRun, state: AccountState, close: Pick<FlattenClose, "symbol" | "venue">): OrderRecord[] {
  const kept: OrderRecord[] = [];
  for (const order of state.working.values()) {
    if (order.symbol === close.symbol && order.venue === close.venue) kept.push(recordOf(run, state, order.order_id));
  }
  return kept;
}
