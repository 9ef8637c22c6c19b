// The /v1 listener's routes (trading, snake_case JSON). Each route names the scope it requires
// (`x-required-scope` in docs/openapi.yaml); bodies are parsed only after authentication.
import { Router, type RequestHandler } from "express";
import { ServiceError } from "../../kernel/errors.js";
import type { Clients } from "../clients.js";
import { notFound } from "../http/errors.js";
import { malformedPath } from "../http/paths.js";
import {
  createAccount,
  getAccount,
  getAnalytics,
  getSummary,
  listBreaches,
  listFunding,
  listOrderHistory,
  listOrders,
  listPositionHistory,
  listPositions,
  listTrades,
  listViolations,
} from "./accounts.js";
import { authenticate, type AuthDeps } from "./auth.js";
import { batchUnits, cancelAllOrders, flatten, placeBatch, type BatchFailures } from "./bulk.js";
import { getCalendar, listPlans, listTickers } from "./catalogue.js";
import { listEvents } from "./events.js";
import { getCancelAfter, setCancelAfter } from "./cancel-after.js";
import { amendOrder, cancelOrder, closePosition, getOrder, placeOrder, testOrder } from "./orders.js";

export function v1Router(clients: Clients, auth: AuthDeps, body: RequestHandler, failures: BatchFailures): Router {
  const router = Router();
  const read = authenticate(auth, "READ_ONLY");
  const trade = authenticate(auth, "TRADE");
  const manage = authenticate(auth, "MANAGE_ORDERS");
  router.use(malformedPath(authenticate(auth, "")));
  router.get("/tickers", read, listTickers(clients));
  router.get("/plans", read, listPlans(clients));
  router.get("/calendar", read, getCalendar(clients));
  router.post("/account", trade, body, createAccount(clients));
  router.get("/account/:account_id", read, getAccount(clients));
  router.get("/account/:account_id/summary", read, getSummary(clients));
  router.get("/account/:account_id/positions", read, listPositions(clients));
  router.get("/account/:account_id/positions/history", read, listPositionHistory(clients));
  router.get("/account/:account_id/trades", read, listTrades(clients));
  router.get("/account/:account_id/orders", read, listOrders(clients));
  router.get("/account/:account_id/orders/history", read, listOrderHistory(clients));
  router.get("/account/:account_id/funding", read, listFunding(clients));
  router.get("/account/:account_id/breaches", read, listBreaches(clients));
  router.get("/account/:account_id/violations", read, listViolations(clients));
  router.get("/account/:account_id/analytics", read, getAnalytics(clients));
  router.get("/account/:account_id/events", read, listEvents(clients));
  // The stream is a WebSocket upgrade (gateway/stream/server.ts takes every upgrade); a plain GET is refused.
  router.get("/stream", read, () => {
    throw ServiceError.invalid([{ path: "upgrade", message: "GET /v1/stream must be a WebSocket upgrade" }]);
  });
  router.post("/order", trade, body, placeOrder(clients));
  router.post("/order/test", trade, body, testOrder(clients));
  router.get("/order/:order_id", read, getOrder(clients));
  router.delete("/order/:order_id", manage, cancelOrder(clients));
  router.patch("/order/:order_id", manage, body, amendOrder(clients));
  router.post("/position/close", trade, body, closePosition(clients));
  // The dead-man's switch: TRADE arms it (the trading bot is what it watches), any scope reads it.
  router.post("/account/:account_id/cancel-after", trade, body, setCancelAfter(clients));
  router.get("/account/:account_id/cancel-after", read, getCancelAfter(clients));
  // Bulk calls: cancel-all and flatten count as one request; a batch as one per order (its body is read, to
  // count it, once the key, its IP allow-list and its scope passed).
  router.delete("/account/:account_id/orders", manage, cancelAllOrders(clients));
  router.post("/account/:account_id/flatten", trade, flatten(clients));
  router.post("/orders/batch", authenticate(auth, "TRADE", { body, units: batchUnits }), placeBatch(clients, failures));
  // Unknown paths still authenticate first: no route discovery without a key.
  router.use(authenticate(auth, ""), notFound());
  return router;
}
