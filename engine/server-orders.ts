// engine.v1's order calls: place, test and close on an account's shard, and cancel and amend on the shard of
// the order (an order id is minted in its account's partition); cancel-all and flatten on the account's shard.
import { unary, type UnaryOptions } from "../kernel/grpc.js";
import type { EngineHandlers } from "../proto/gen/engine/v1/Engine.js";
import type { OrderResponse } from "../proto/gen/engine/v1/OrderResponse.js";
import type { EngineTypes } from "./trading-core.js";
import type { Command, FlattenClose, Reply } from "./core.js";
import type { ShardRuntime } from "./shard/runtime.js";
import { accountIdOf, accountRequest, message, requireUser, unwrap, type AccountCalls } from "./server-wire.js";

type OrderHandlers = Pick<EngineHandlers, "PlaceOrder" | "TestOrder" | "ClosePosition" | "CancelOrder" | "AmendOrder">;
type BulkHandlers = Pick<EngineHandlers, "CancelAllOrders" | "Flatten">;

function orderResponse(reply: Reply): OrderResponse {
  const placed = unwrap(reply);
  if (!("fills" in placed)) throw new Error("not a place-order reply");
  return {
    order: message(placed.order),
    fills: placed.fills.map((fill) => message(fill)),
    violations: placed.violations.map((v) => ({ ...v })),
    outcome: placed.kind,
    // A replayed reply recorded without risk_headroom leaves it out.
    ...(placed.risk_headroom === undefined ? {} : { risk_headroom: { ...placed.risk_headroom } }),
  };
}

export function orderHandlers(
  runtime: ShardRuntime<EngineTypes>,
  calls: AccountCalls,
  options: UnaryOptions,
): OrderHandlers {
  /** A command on an order, sent to the shard of the order's id; answers the order as it then is. */
  const onOrder = async (userId: string, orderId: string, command: Command) => {
    const reply = unwrap(await runtime.commandByKey(accountIdOf(orderId), { userId: requireUser(userId), command }));
    if (!("order" in reply)) throw new Error("not an order reply");
    return { order: message(reply.order) };
  };
  /** A command of one account answered by the order it placed and its fills (PlaceOrder, ClosePosition). */
  const placing = async <R extends { user_id: string; account_id: string }>(
    r: R,
    command: (request: Omit<R, "user_id"> & { account_id: string }) => Command,
  ): Promise<OrderResponse> => {
    const { userId, request } = accountRequest(r);
    return orderResponse(await calls.command(userId, r.account_id, command(request)));
  };
  return {
    PlaceOrder: unary("PlaceOrder", (r) => placing(r, (request) => ({ type: "PlaceOrder", request })), options),
    TestOrder: unary(
      "TestOrder",
      async (r) => {
        const { userId, request } = accountRequest(r);
        const reply = unwrap(await calls.command(userId, r.account_id, { type: "TestOrder", request }));
        if (!("risk_headroom" in reply) || "order" in reply) throw new Error("not an order-test reply");
        return { violations: reply.violations.map((v) => ({ ...v })), risk_headroom: { ...reply.risk_headroom } };
      },
      options,
    ),
    ClosePosition: unary(
      "ClosePosition",
      (r) => placing(r, (request) => ({ type: "ClosePosition", request })),
      options,
    ),
    CancelOrder: unary(
      "CancelOrder",
      (r) => onOrder(r.user_id, r.order_id, { type: "CancelOrder", request: { order_id: r.order_id.toLowerCase() } }),
      options,
    ),
    AmendOrder: unary(
      "AmendOrder",
      (r) =>
        onOrder(r.user_id, r.order_id, {
          type: "AmendOrder",
          request: {
            order_id: r.order_id.toLowerCase(),
            ...(r.trigger_price === undefined ? {} : { trigger_price: r.trigger_price }),
            ...(r.limit_price === undefined ? {} : { limit_price: r.limit_price }),
            ...(r.quantity === undefined ? {} : { quantity: r.quantity }),
          },
        }),
      options,
    ),
  };
}

function flattenClose(close: FlattenClose) {
  return {
    position_id: close.position_id,
    symbol: close.symbol,
    venue: close.venue,
    ...(close.order === null ? {} : { order: message(close.order) }),
    fills: close.fills.map((fill) => message(fill)),
    violations: close.violations.map((v) => ({ ...v })),
    issues: close.issues.map((issue) => ({ path: issue.path, message: issue.message })),
    kept_orders: close.kept_orders.map((order) => message(order)),
  };
}

/** The bulk calls of one account (docs/engine.md, "Bulk commands"), each one command of its actor. */
export function bulkHandlers(calls: AccountCalls, options: UnaryOptions): BulkHandlers {
  return {
    CancelAllOrders: unary(
      "CancelAllOrders",
      async (r) => {
        const { userId, request } = accountRequest(r);
        const command: Command = { type: "CancelAll", request: { account_id: request.account_id, symbol: r.symbol } };
        const reply = unwrap(await calls.command(userId, request.account_id, command));
        if (reply.kind !== "canceled") throw new Error("not a cancel-all reply");
        return { data: reply.orders.map((order) => message(order)) };
      },
      options,
    ),
    Flatten: unary(
      "Flatten",
      async (r) => {
        const { userId, request } = accountRequest(r);
        const command: Command = { type: "Flatten", request: { account_id: request.account_id } };
        const reply = unwrap(await calls.command(userId, request.account_id, command));
        if (reply.kind !== "flattened") throw new Error("not a flatten reply");
        return {
          canceled: reply.canceled.map((order) => message(order)),
          closes: reply.closes.map(flattenClose),
          positions: reply.positions.map((position) => message(position)),
        };
      },
      options,
    ),
  };
}
