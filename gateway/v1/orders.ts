// /v1/order and /v1/position/close: place, test, cancel, amend, close. 201 for a new order; 200 with
// `Idempotent-Replayed: true` for a replayed client_id; 200 with violations for a risk rejection. A test
// order (POST /v1/order/test) runs the same checks and places nothing: always 200 { violations, risk_headroom }.
import type { Request, RequestHandler, Response } from "express";
import { ServiceError } from "../../kernel/errors.js";
import type { OrderResponse__Output } from "../../proto/gen/engine/v1/OrderResponse.js";
import type { Clients } from "../clients.js";
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

export function placeOrder(clients: Clients): RequestHandler {
  return async (req, res) => {
    const body = parse(PlaceOrderBody, bodyOf(req));
    const reply = await clients.engine.placeOrder(
      { ...body, account_id: body.account_id.toLowerCase(), user_id: callerOf(res).userId },
      originOf(res),
    );
    sendOrderResponse(res, reply);
  };
}

export function testOrder(clients: Clients): RequestHandler {
  return async (req, res) => {
    // The same body as a real order; client_id is passed on (the engine ignores it and spends nothing).
    const body = parse(PlaceOrderBody, bodyOf(req));
    const reply = await clients.engine.testOrder(
      { ...body, account_id: body.account_id.toLowerCase(), user_id: callerOf(res).userId },
      originOf(res),
    );
    res.status(200).json(orderTestJson(reply));
  };
}

export function closePosition(clients: Clients): RequestHandler {
  return async (req, res) => {
    const body = parse(ClosePositionBody, bodyOf(req));
    const reply = await clients.engine.closePosition(
      { ...body, account_id: body.account_id.toLowerCase(), user_id: callerOf(res).userId },
      originOf(res),
    );
    sendOrderResponse(res, reply);
  };
}

export function cancelOrder(clients: Clients): RequestHandler {
  return async (req, res) => {
    const reply = await clients.engine.cancelOrder(
      { user_id: callerOf(res).userId, order_id: orderId(req) },
      originOf(res),
    );
    if (reply.order === null) throw new Error("engine returned no order");
    res.status(200).json({ order: orderJson(reply.order) });
  };
}

export function amendOrder(clients: Clients): RequestHandler {
  return async (req, res) => {
    const id = orderId(req);
    const body = parse(AmendOrderBody, bodyOf(req));
    const reply = await clients.engine.amendOrder(
      { ...body, user_id: callerOf(res).userId, order_id: id },
      originOf(res),
    );
    if (reply.order === null) throw new Error("engine returned no order");
    res.status(200).json({ order: orderJson(reply.order) });
  };
}
