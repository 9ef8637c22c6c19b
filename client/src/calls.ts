// The trading operations a bot uses while trading, each described once for both ways of sending it: the REST
// request (client/src/transport.ts) and the operation on the stream's socket (docs/streaming.md), and how its
// answer becomes the method's result. `TradingClient` (REST) and `TradingSession` (the socket) run the same
// descriptions, so a method answers the same type, with the same `client_id` discipline, on either.
import { randomUUID } from "node:crypto";
import { placement, testResult, type Placement, type TestResult } from "./results.js";
import type { RequestSpec } from "./transport.js";
import type {
  AmendOrderRequest,
  CancelAfter,
  CanceledOrderList,
  ClosePositionRequest,
  FlattenResponse,
  Order,
  OrderResponse,
  OrderTestResponse,
  PlaceOrderBatchItem,
  PlaceOrderBatchResponse,
  PlaceOrderRequest,
} from "./types.js";

/** The trading operations of the stream, one per REST route. */
export type TradingOp =
  | "order.place"
  | "order.test"
  | "order.cancel"
  | "order.amend"
  | "position.close"
  | "orders.batch"
  | "orders.cancel_all"
  | "account.flatten"
  | "cancel_after.set";

/** A success answer, however it came. */
export interface Reply<B> {
  status: number;
  body: B;
  /** The answer is the original one to an earlier request with the same `client_id`. */
  replayed: boolean;
  attempts: number;
}

export interface TradingCall<R, B> {
  /** The operation and its `args` on the socket. */
  op: TradingOp;
  args: Record<string, unknown>;
  /** The same operation as a REST request (`idempotent` says whether it may be sent again once it may have run). */
  rest: RequestSpec;
  result: (reply: Reply<B>) => R;
}

export interface PlaceOptions {
  /** Sent as `X-Request-Id` on every attempt (REST only: a socket operation carries no headers). */
  requestId?: string;
}

/** A path with its `{…}` parameters filled in, each URL-encoded. */
export const path = (template: string, ...ids: string[]): string => {
  let i = 0;
  return template.replace(/\{[a-z_]+\}/g, () => encodeURIComponent(ids[i++] ?? ""));
};

const withRequestId = (spec: RequestSpec, options: PlaceOptions): RequestSpec =>
  options.requestId === undefined ? spec : { ...spec, headers: { "x-request-id": options.requestId } };

/**
 * A placement (`order.place` or `position.close`). Without a `client_id` one is minted here, once per call:
 * every attempt, on any socket, sends the same one, so at most one order results.
 */
function place(
  op: "order.place" | "position.close",
  route: "/v1/order" | "/v1/position/close",
  request: PlaceOrderRequest | ClosePositionRequest,
  options: PlaceOptions,
): TradingCall<Placement, OrderResponse> {
  const clientId = request.client_id ?? randomUUID();
  const body = { ...request, client_id: clientId };
  return {
    op,
    args: body,
    rest: withRequestId({ method: "POST", path: route, body, idempotent: true }, options),
    result: (reply) => placement(reply.body, reply.replayed, clientId, reply.attempts),
  };
}

/** A call answered `{order}`: cancel and amend. */
function orderCall(
  op: TradingOp,
  rest: RequestSpec,
  args: Record<string, unknown>,
): TradingCall<Order, { order: Order }> {
  return { op, args, rest, result: (reply) => reply.body.order };
}

export const calls = {
  placeOrder: (order: PlaceOrderRequest, options: PlaceOptions = {}) =>
    place("order.place", "/v1/order", order, options),

  closePosition: (request: ClosePositionRequest, options: PlaceOptions = {}) =>
    place("position.close", "/v1/position/close", request, options),

  testOrder: (order: PlaceOrderRequest): TradingCall<TestResult, OrderTestResponse> => ({
    op: "order.test",
    args: order,
    rest: { method: "POST", path: "/v1/order/test", body: order, idempotent: true },
    result: (reply) => testResult(reply.body),
  }),

  amendOrder: (orderId: string, changes: AmendOrderRequest) =>
    orderCall(
      "order.amend",
      { method: "PATCH", path: path("/v1/order/{order_id}", orderId), body: changes, idempotent: true },
      { order_id: orderId, ...changes },
    ),

  cancelOrder: (orderId: string) =>
    orderCall(
      "order.cancel",
      { method: "DELETE", path: path("/v1/order/{order_id}", orderId), idempotent: true },
      { order_id: orderId },
    ),

  setCancelAfter: (accountId: string, timeoutMs: number): TradingCall<CancelAfter, CancelAfter> => ({
    op: "cancel_after.set",
    args: { account_id: accountId, timeout_ms: timeoutMs },
    rest: {
      method: "POST",
      path: path("/v1/account/{account_id}/cancel-after", accountId),
      body: { timeout_ms: timeoutMs },
      idempotent: true,
    },
    result: (reply) => reply.body,
  }),

  cancelAllOrders: (accountId: string, symbol?: string): TradingCall<CanceledOrderList["data"], CanceledOrderList> => ({
    op: "orders.cancel_all",
    args: { account_id: accountId, ...(symbol === undefined ? {} : { symbol }) },
    rest: {
      method: "DELETE",
      path: path("/v1/account/{account_id}/orders", accountId),
      ...(symbol === undefined ? {} : { query: { symbol } }),
      idempotent: true,
    },
    result: (reply) => reply.body.data,
  }),

  flatten: (accountId: string): TradingCall<FlattenResponse, FlattenResponse> => ({
    op: "account.flatten",
    args: { account_id: accountId },
    rest: { method: "POST", path: path("/v1/account/{account_id}/flatten", accountId), idempotent: true },
    result: (reply) => reply.body,
  }),

  /** Each order without a `client_id` gets one minted here (answered in `clientIds`), once per call. */
  placeOrders: (
    orders: PlaceOrderRequest[],
    options: PlaceOptions = {},
  ): TradingCall<BatchResult, PlaceOrderBatchResponse> => {
    const withIds = orders.map((order) => ({ ...order, client_id: order.client_id ?? randomUUID() }));
    const clientIds = withIds.map((order) => order.client_id);
    return {
      op: "orders.batch",
      args: { orders: withIds },
      rest: withRequestId(
        {
          method: "POST",
          path: "/v1/orders/batch",
          body: { orders: withIds },
          idempotent: true,
          units: Math.max(1, withIds.length),
        },
        options,
      ),
      result: (reply) => ({ data: reply.body.data, clientIds, attempts: reply.attempts }),
    };
  },
};

/** What `placeOrders` answers: `data[i]` for `orders[i]`, and the `client_id` each was sent with. */
export interface BatchResult {
  data: PlaceOrderBatchItem[];
  clientIds: string[];
  attempts: number;
}
