// The /v1 listener's routes (trading, snake_case JSON), one table: each route names the scope it requires
// (`x-required-scope` in docs/openapi.yaml, which test/e2e/openapi.test.ts holds to this table); bodies are
// parsed only after authentication. Routes are mounted in the table's order.
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
import { authenticate, type AuthDeps, type RequestCost, type RequiredScope } from "./auth.js";
import { batchUnits, cancelAllOrders, flatten, placeBatch, type BatchFailures } from "./bulk.js";
import { getCalendar, listPlans, listTickers } from "./catalogue.js";
import { listEvents } from "./events.js";
import { getCancelAfter, setCancelAfter } from "./cancel-after.js";
import { amendOrder, cancelOrder, closePosition, getOrder, placeOrder, testOrder } from "./orders.js";

export interface V1Route {
  method: "get" | "post" | "patch" | "delete";
  /** The Express path under /v1 (`:account_id`; the document writes `{account_id}`). */
  path: string;
  scope: Exclude<RequiredScope, "">;
  /** The route reads a JSON body (one its handler may require, or only accept empty), after authentication. */
  body?: true;
  /**
   * What the request counts against the key's rate limit, read from its body once the key, its IP allow-list
   * and its scope passed (the body is then read inside authentication); absent: one request.
   */
  units?: RequestCost["units"];
  handler: (clients: Clients, failures: BatchFailures) => RequestHandler;
}

// The stream is a WebSocket upgrade (gateway/stream/server.ts takes every upgrade); a plain GET is refused.
const plainStreamGet = (): RequestHandler => () => {
  throw ServiceError.invalid([{ path: "upgrade", message: "GET /v1/stream must be a WebSocket upgrade" }]);
};

// The account's read-only views, GET /account/:account_id followed by the suffix; any scope reads them.
const ACCOUNT_VIEWS: readonly (readonly [suffix: string, handler: V1Route["handler"]])[] = [
  ["", getAccount],
  ["/summary", getSummary],
  ["/positions", listPositions],
  ["/positions/history", listPositionHistory],
  ["/trades", listTrades],
  ["/orders", listOrders],
  ["/orders/history", listOrderHistory],
  ["/funding", listFunding],
  ["/breaches", listBreaches],
  ["/violations", listViolations],
  ["/analytics", getAnalytics],
  ["/events", listEvents],
];

export const V1_ROUTES: readonly V1Route[] = [
  { method: "get", path: "/tickers", scope: "READ_ONLY", handler: listTickers },
  { method: "get", path: "/plans", scope: "READ_ONLY", handler: listPlans },
  { method: "get", path: "/calendar", scope: "READ_ONLY", handler: getCalendar },
  { method: "post", path: "/account", scope: "TRADE", body: true, handler: createAccount },
  ...ACCOUNT_VIEWS.map(([suffix, handler]): V1Route => ({
    method: "get",
    path: `/account/:account_id${suffix}`,
    scope: "READ_ONLY",
    handler,
  })),
  { method: "get", path: "/stream", scope: "READ_ONLY", handler: plainStreamGet },
  { method: "post", path: "/order", scope: "TRADE", body: true, handler: placeOrder },
  { method: "post", path: "/order/test", scope: "TRADE", body: true, handler: testOrder },
  { method: "get", path: "/order/:order_id", scope: "READ_ONLY", handler: getOrder },
  { method: "delete", path: "/order/:order_id", scope: "MANAGE_ORDERS", handler: cancelOrder },
  { method: "patch", path: "/order/:order_id", scope: "MANAGE_ORDERS", body: true, handler: amendOrder },
  { method: "post", path: "/position/close", scope: "TRADE", body: true, handler: closePosition },
  // The dead-man's switch: TRADE arms it (the trading bot is what it watches), any scope reads it.
  { method: "post", path: "/account/:account_id/cancel-after", scope: "TRADE", body: true, handler: setCancelAfter },
  { method: "get", path: "/account/:account_id/cancel-after", scope: "READ_ONLY", handler: getCancelAfter },
  // Bulk calls: cancel-all and flatten count as one request; a batch as one per order. Cancel-all and flatten read
  // their body only to refuse one that is not empty. Both cancel orders, so both need MANAGE_ORDERS, as a single
  // cancel does (MANAGE_ORDERS grants the closes flatten also makes).
  {
    method: "delete",
    path: "/account/:account_id/orders",
    scope: "MANAGE_ORDERS",
    body: true,
    handler: cancelAllOrders,
  },
  { method: "post", path: "/account/:account_id/flatten", scope: "MANAGE_ORDERS", body: true, handler: flatten },
  { method: "post", path: "/orders/batch", scope: "TRADE", body: true, units: batchUnits, handler: placeBatch },
];

export function v1Router(clients: Clients, auth: AuthDeps, body: RequestHandler, failures: BatchFailures): Router {
  const router = Router();
  const byScope = {
    READ_ONLY: authenticate(auth, "READ_ONLY"),
    TRADE: authenticate(auth, "TRADE"),
    MANAGE_ORDERS: authenticate(auth, "MANAGE_ORDERS"),
  };
  router.use(malformedPath(authenticate(auth, "")));
  for (const route of V1_ROUTES) {
    const handler = route.handler(clients, failures);
    if (route.units !== undefined) {
      router[route.method](route.path, authenticate(auth, route.scope, { body, units: route.units }), handler);
    } else if (route.body === true) {
      router[route.method](route.path, byScope[route.scope], body, handler);
    } else {
      router[route.method](route.path, byScope[route.scope], handler);
    }
  }
  // Unknown paths still authenticate first: no route discovery without a key.
  router.use(authenticate(auth, ""), notFound());
  return router;
}
