// /v1/order and /v1/position/close: place, test, cancel, amend, close, and an order's lookup. The trading
// operations are declared once (gateway/v1/trading-ops.ts, shared with the stream's order entry); a route here
// only reads its input from the request. 201 for a new order; 200 with `Idempotent-Replayed: true` for a
// replayed client_id; 200 with violations for a risk rejection. A test order (POST /v1/order/test) runs the same
// checks and places nothing: always 200 { violations, risk_headroom }.
import type { Request, RequestHandler } from "express";
import type { Clients } from "../clients.js";
import { bodyOf } from "../http/body.js";
import { routeOf } from "../http/request.js";
import { originOf } from "../http/trace.js";
import { parse } from "../http/validation.js";
import { callerOf } from "./auth.js";
import { orderJson } from "./records.js";
import { AmendOrderBody } from "./schemas.js";
import {
  amendOrderOp,
  cancelOrderOp,
  closePositionOp,
  pathId,
  placeOrderOp,
  testOrderOp,
  type BatchFailures,
  type TradingOp,
} from "./trading-ops.js";

/** A parameter of the route's path (Express gives a string for every named one). */
export function pathParam(req: Request, name: string): string {
  const value = req.params[name];
  return typeof value === "string" ? value : "";
}

/** The REST route of a trading operation: its input read from the request, answered as the operation answers. */
export function restOp<T>(
  op: TradingOp<T>,
  inputOf: (req: Request) => T,
): (clients: Clients, failures: BatchFailures) => RequestHandler {
  return (clients, failures) => async (req, res) => {
    const input = inputOf(req);
    const ctx = {
      engine: clients.engine,
      userId: callerOf(res).userId,
      origin: originOf(res),
      route: `${req.method} ${routeOf(req)}`,
      failures,
    };
    const answer = await op.run(ctx, input);
    if (answer.replayed === true) res.setHeader("Idempotent-Replayed", "true");
    res.status(answer.status).json(answer.body);
  };
}

export const placeOrder = restOp(placeOrderOp, (req) => placeOrderOp.fromArgs(bodyOf(req)));

export const testOrder = restOp(testOrderOp, (req) => testOrderOp.fromArgs(bodyOf(req)));

export const closePosition = restOp(closePositionOp, (req) => closePositionOp.fromArgs(bodyOf(req)));

export const cancelOrder = restOp(cancelOrderOp, (req) => pathId(pathParam(req, "order_id")));

export const amendOrder = restOp(amendOrderOp, (req) => ({
  orderId: pathId(pathParam(req, "order_id")),
  changes: parse(AmendOrderBody, bodyOf(req)),
}));

/** GET /v1/order/:order_id: the caller's order in any state (another user's is 404 like an unknown one). */
export function getOrder(clients: Clients): RequestHandler {
  return async (req, res) => {
    const ref = { user_id: callerOf(res).userId, order_id: pathId(pathParam(req, "order_id")) };
    const reply = await clients.engine.getOrder(ref, originOf(res));
    if (reply.order === null) throw new Error("engine returned no order");
    res.status(200).json({ order: orderJson(reply.order) });
  };
}
