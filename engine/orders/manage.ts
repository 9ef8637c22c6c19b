// Managing a working order (DELETE and PATCH /v1/order/{order_id} in docs/openapi.yaml): cancel (already CANCELED answers the same order, another
// final status is a 409 with the order) and amend of the trigger price, limit price or quantity. An amended
// order is looked at again at once: a limit moved across the mark takes, a trigger moved past the reference
// fires.
import type { TickerSpec } from "../market/catalogue.js";
import { notionalOf, unitsFor, type DecimalInput, type TickerUnits } from "../market/units.js";
import { amount } from "./request.js";
import { dailyLossLimit, drawdownGate, exposureCap, exposureRule, newsFreeze, type RiskCheck } from "../risk/checks.js";
import { addingSteps, workingOrderExposure } from "../risk/exposure.js";
import { riskInput } from "../risk/input.js";
import { leverageFor, marginSnapshot, reserveFor } from "../risk/margin.js";
import { monitor } from "./monitor.js";
import { firstViolation } from "../risk/pipeline.js";
import type { Violation } from "../basics/risk-types.js";
import { crosses } from "../basics/entry.js";
import { entryPrice, oppositePosition, reservePrice, tooLarge } from "./conditions.js";
import { executeOrder } from "./execution.js";
import { cancelOrder } from "./lifecycle.js";
import { toOrderRecord, type OrderRecord } from "../basics/order-records.js";
import type { Issue } from "../../kernel/errors.js";
import { conflict, invalid, notFound, type OrderReply } from "../basics/replies.js";
import type { Run } from "../basics/run.js";
import { isWorking, type Order } from "../basics/order-types.js";

export interface CancelOrderRequest {
  order_id: string;
}

export interface AmendOrderRequest {
  order_id: string;
  trigger_price?: DecimalInput | null;
  limit_price?: DecimalInput | null;
  quantity?: DecimalInput | null;
}

function recordOf(run: Run, order: Order): OrderRecord {
  return toOrderRecord(order, unitsFor(run.market.catalogue, order.symbol));
}

function record(run: Run, order: Order): OrderReply {
  return { kind: "ok", order: recordOf(run, order) };
}

function specOf(run: Run, order: Order): TickerSpec {
  const spec = run.market.catalogue.byKey(order.symbol);
  if (spec === undefined) throw new Error(`order ${order.order_id} is on an unlisted symbol`);
  return spec;
}

/** The amend checks: the exposure rules of placement (margin is the reserve check above), first denial wins. */
const AMEND_CHECKS: readonly RiskCheck[] = [
  exposureRule(drawdownGate),
  exposureRule(dailyLossLimit),
  exposureRule(newsFreeze),
  exposureRule(exposureCap),
];

/**
 * The first rule the amended order breaks, judged as if it replaced `old`: it adds what its remainder adds
 * beyond the opposite position, and the exposure cap counts it instead of the old order.
 */
function amendViolation(run: Run, amended: Order, old: Order, priceTicks: number): Violation | undefined {
  const state = run.state;
  const spec = specOf(run, old);
  const units = unitsFor(run.market.catalogue, old.symbol);
  const remaining = amended.quantity - amended.filled_quantity;
  const opposite = oppositePosition(state, old.symbol, old.venue, old.side);
  const input = riskInput({
    state,
    market: run.market,
    now: run.now,
    calendar: run.calendar,
    spec,
    quote: run.market.quotes.get(old.symbol),
    // Its remainder is what it can still execute: the steps already filled pay no fee and slip no more.
    order: { ...amended, quantity: remaining, filled_quantity: 0 },
    exposureSteps: addingSteps(state, amended, remaining, opposite, old.order_id),
    priceTicks,
    leverage: leverageFor(state.plan, spec),
    countedNotional: notionalOf(priceTicks, remaining, units.unitsPerTickStep) - workingOrderExposure(old),
  });
  return firstViolation(input, AMEND_CHECKS);
}

function current(run: Run, orderId: string): Order {
  const order = run.state.orders.get(orderId);
  if (order === undefined) throw new Error(`order ${orderId} vanished from its own decision`);
  return order;
}

/** CancelOrder: DELETE /v1/order/:order_id. */
export function cancel(run: Run, request: CancelOrderRequest): OrderReply {
  const order = run.state.orders.get(request.order_id);
  if (order === undefined) return notFound();
  if (order.status === "CANCELED") return record(run, order);
  if (!isWorking(order.status)) return conflict({ reason: "order_final", order: recordOf(run, order) });
  cancelOrder(run, order.order_id, "user");
  return record(run, current(run, order.order_id));
}

function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/** AmendOrder: PATCH /v1/order/:order_id. */
export function amend(run: Run, request: AmendOrderRequest): OrderReply {
  const order = run.state.orders.get(request.order_id);
  if (order === undefined) return notFound();
  if (!isWorking(order.status)) return conflict({ reason: "order_final", order: recordOf(run, order) });
  const units = unitsFor(run.market.catalogue, order.symbol);
  const issues: Issue[] = [];
  if (isAbsent(request.trigger_price) && isAbsent(request.limit_price) && isAbsent(request.quantity)) {
    issues.push({ path: "", message: "give trigger_price, limit_price or quantity" });
  }
  let limitPrice = order.limit_price;
  if (!isAbsent(request.limit_price)) {
    if (order.kind !== "LIMIT") issues.push({ path: "limit_price", message: "the order is not a LIMIT order" });
    else limitPrice = amount(issues, "limit_price", request.limit_price, units.tick, "tick_size") ?? limitPrice;
  }
  const triggerPrice = amendedTrigger(issues, order, request.trigger_price, units);
  const quantity = amendedQuantity(issues, order, request.quantity, units);
  const quote = run.market.quotes.get(order.symbol);
  if (order.post_only && quote !== undefined && crosses({ side: order.side, limit_price: limitPrice }, quote.mark)) {
    issues.push({ path: "limit_price", message: "the post-only order would take at this price" });
  }
  if (issues.length > 0) return invalid(issues);

  // Valued where it executes, as a placement is: the mark when the amended order executes at once.
  const amendedTerms = { ...order, limit_price: limitPrice, trigger_price: triggerPrice };
  // A triggered STOP/TAKE_PROFIT executes as a MARKET does; a HELD child only when its parent fills.
  const own = reservePrice(amendedTerms, quote);
  const price =
    order.status === "HELD"
      ? own
      : entryPrice(order.triggered ? { ...amendedTerms, kind: "MARKET" } : amendedTerms, quote, run.now);
  // What rests of it is counted at its own price: both must stay exactly accountable.
  const oversized = tooLarge(amendedTerms, quantity, units.unitsPerTickStep, quote, price, own);
  if (oversized !== undefined) return invalid([oversized]);
  const leverage = leverageFor(run.state.plan, specOf(run, order));
  // Stored: the reserve of what rests, at the order's own price, as every working order's is. Checked: the
  // margin the amended order needs where it executes.
  const reserve = reserveFor(order.reduce_only, quantity - order.filled_quantity, own, units, leverage);
  const needed = reserveFor(order.reduce_only, quantity - order.filled_quantity, price, units, leverage);
  if (needed > order.reserve && needed - order.reserve > marginSnapshot(run.state, run.market).available) {
    return conflict({ reason: "insufficient_margin", order_id: order.order_id });
  }
  // An amend that could add exposure (more quantity, or a price moved) is checked like the amended order
  // placed in the old one's stead (docs/risk.md, "Amending"); lowering the quantity only needs no check.
  const grows = quantity > order.quantity || limitPrice !== order.limit_price || triggerPrice !== order.trigger_price;
  if (grows && !order.reduce_only) {
    const violation = amendViolation(
      run,
      { ...order, quantity, limit_price: limitPrice, trigger_price: triggerPrice, reserve },
      order,
      price,
    );
    if (violation !== undefined) {
      return conflict({ reason: violation.rule, order_id: order.order_id, violations: [violation] });
    }
  }
  run.emit({
    type: "OrderAmended",
    at: run.now,
    order_id: order.order_id,
    quantity,
    limit_price: limitPrice,
    trigger_price: triggerPrice,
    reserve,
  });
  // Unchecked (only its quantity lowered), the fills it causes are checked as a resting order's are.
  executeOrder(run, order.order_id, "placement", undefined, !grows);
  // Its fills moved equity: the monitor acts before the answer, which shows the order as it ends.
  if (run.filled) monitor(run);
  return record(run, current(run, order.order_id));
}

/** The new trigger price of an untriggered STOP or TAKE_PROFIT order, else the order's. */
function amendedTrigger(issues: Issue[], order: Order, value: unknown, units: TickerUnits): number | null {
  if (isAbsent(value)) return order.trigger_price;
  if (order.kind !== "STOP" && order.kind !== "TAKE_PROFIT") {
    issues.push({ path: "trigger_price", message: "the order is not a STOP or TAKE_PROFIT order" });
  } else if (order.triggered) {
    issues.push({ path: "trigger_price", message: "the order has already triggered" });
  } else {
    return amount(issues, "trigger_price", value, units.tick, "tick_size") ?? order.trigger_price;
  }
  return order.trigger_price;
}

/** The new quantity (steps): at least the symbol's minimum and more than the order has filled, else the order's. */
function amendedQuantity(issues: Issue[], order: Order, value: unknown, units: TickerUnits): number {
  if (isAbsent(value)) return order.quantity;
  const steps = amount(issues, "quantity", value, units.step, "quantity_step", units.minSteps);
  if (steps !== null && steps <= order.filled_quantity) {
    issues.push({ path: "quantity", message: "must be greater than the filled quantity" });
  } else if (steps !== null) {
    return steps;
  }
  return order.quantity;
}
