// /v1/order and /v1/position/close: place, test, cancel, amend, close. 201 for a new order; 200 with
// `Idempotent-Replayed: true` for a replayed client_id; 200 with violations for a risk rejection. A test
// order (POST /v1/order/test) runs the same checks and places nothing: always 200 { violations, risk_headroom }.
import type { Request, RequestHandler, Response } from "express";
import { ServiceError } from "../../kernel/errors.js";
import type { OrderReply__Output } from "../../proto/gen/engine/v1/OrderReply.js";
import type { OrderResponse__Output } from "../../proto/gen/engine/v1/OrderResponse.js";
import type { z } from "zod";
import type { Clients } from "../clients.js";
import type { Origin } from "../origin.js";
import { bodyOf } from "../http/body.js";
import { originOf } from "../http/trace.js";
import { parse } from "../http/validation.js";
import { callerOf } from "./auth.js";
import { orderJson, orderResponseJson, orderTestJson } from "./records.js";
import { AmendOrderBody, ClosePositionBody, PlaceOrderBody, isUuid } from "./schemas.js";

function sendOrderResponse(res: Response, reply: OrderResponse__Output): void {
  if (reply.outcome === "replayed") res.setHeader("Idempotent-Replayed", "true");
  res.status(reply.outcome === "created" ? 201 : 200).json(orderResponseJson(reply));
}

function orderId(req: Request): string {
  const id = typeof req.params.order_id === "string" ? req.params.order_id : "";
  if (!isUuid(id)) throw new ServiceError("not_found");
  return id.toLowerCase();
}

/** A body naming an account, with the account id in lower case and the caller's user id. */
function forCaller<B extends { account_id: string }>(body: B, res: Response): B & { user_id: string } {
  return { ...body, account_id: body.account_id.toLowerCase(), user_id: callerOf(res).userId };
}

/** A reply carrying the order it changed: `{ order }`. */
function sendOrder(res: Response, reply: OrderReply__Output): void {
  if (reply.order === null) throw new Error("engine returned no order");
  res.status(200).json({ order: orderJson(reply.order) });
}

/** A POST whose body names an account: parsed, sent for the caller, answered by `send`. */
function accountPost<B extends { account_id: string }, R>(
  schema: z.ZodType<B>,
  call: (engine: Clients["engine"], request: B & { user_id: string }, origin: Origin) => Promise<R>,
  send: (res: Response, reply: R) => void,
): (clients: Clients) => RequestHandler {
  return (clients) => async (req, res) => {
    const body = parse(schema, bodyOf(req));
    send(res, await call(clients.engine, forCaller(body, res), originOf(res)));
  };
}

export const placeOrder = accountPost(
  PlaceOrderBody,
  (engine, r, origin) => engine.placeOrder(r, origin),
  sendOrderResponse,
);

// The same body as a real order; client_id is passed on (the engine ignores it and spends nothing).
export const testOrder = accountPost(
  PlaceOrderBody,
  (engine, r, origin) => engine.testOrder(r, origin),
  (res, reply) => {
    res.status(200).json(orderTestJson(reply));
  },
);

export const closePosition = accountPost(
  ClosePositionBody,
  (engine, r, origin) => engine.closePosition(r, origin),
  sendOrderResponse,
);

export function cancelOrder(clients: Clients): RequestHandler {
  return async (req, res) => {
    const ref = { user_id: callerOf(res).userId, order_id: orderId(req) };
    sendOrder(res, await clients.engine.cancelOrder(ref, originOf(res)));
  };
}

export function amendOrder(clients: Clients): RequestHandler {
  return async (req, res) => {
    const id = orderId(req);
    const body = parse(AmendOrderBody, bodyOf(req));
    sendOrder(
      res,
      await clients.engine.amendOrder({ ...body, user_id: callerOf(res).userId, order_id: id }, originOf(res)),
    );
  };
}

/** GET /v1/order/:order_id: the caller's order in any state (another user's is 404 like an unknown one). */
export function getOrder(clients: Clients): RequestHandler {
  return async (req, res) => {
    const ref = { user_id: callerOf(res).userId, order_id: orderId(req) };
    sendOrder(res, await clients.engine.getOrder(ref, originOf(res)));
  };
}
