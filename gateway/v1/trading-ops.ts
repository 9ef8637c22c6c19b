// The trading operations a bot uses while trading, declared once for both doors (docs/streaming.md, "Order
// entry"): REST (gateway/v1/orders.ts, bulk.ts, cancel-after.ts) and the stream's operations
// (gateway/stream/trading.ts). Each names the scope it requires, what it counts against the key's rate limit,
// whether it reduces risk (served first under overload, docs/overload.md), how its input is read from the
// stream's `args`, and how it runs: one engine call answered as the REST status and body.
import { z } from "zod";
import { ServiceError, fromGrpcError, unavailableBackend } from "../../kernel/errors.js";
import type { Scope } from "../../kernel/scopes.js";
import { cancelAfterIssues } from "../../kernel/cancel-after.js";
import type { Dependency } from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
import type { CancelAfter__Output } from "../../proto/gen/engine/v1/CancelAfter.js";
import type { CancelAllRequest } from "../../proto/gen/engine/v1/CancelAllRequest.js";
import type { FlattenResponse__Output } from "../../proto/gen/engine/v1/FlattenResponse.js";
import type { OrderResponse__Output } from "../../proto/gen/engine/v1/OrderResponse.js";
import type { Clients } from "../clients.js";
import { fieldsOf } from "../json-fields.js";
import type { Origin } from "../origin.js";
import { REPORT_INPUT, parse, toIssues } from "../http/validation.js";
import { fillJson, orderJson, orderResponseJson, orderTestJson, positionJson, violationJson } from "./records.js";
import { AmendOrderBody, ClosePositionBody, PlaceOrderBody, isUuid } from "./schemas.js";

/** How a batch reports an order the engine failed on, as the error responder reports a failed request. */
export interface BatchFailures {
  log: Logger;
  /** Counts an order answered 503 because the engine did not answer (gateway_backend_unavailable_total). */
  onUnavailable?: ((dependency: Dependency) => void) | undefined;
}

/** An operation's answer: the REST status and body, and whether REST would send `Idempotent-Replayed: true`. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
  replayed?: true;
}

/** What an operation runs with: the engine, the caller, the origin of its calls and where failures are told. */
export interface OpContext {
  engine: Clients["engine"];
  userId: string;
  origin: Origin;
  /** The route a failed order of a batch is logged under. */
  route: string;
  failures: BatchFailures;
}

export interface TradingOp<T> {
  readonly name: string;
  readonly scope: Scope;
  /** Cancels and closes: served first when the gateway is overloaded (docs/overload.md). */
  readonly reducesRisk: boolean;
  /** What the operation counts against the key's rate limit, from its raw `args` (a batch: one per order). */
  units(args: unknown): number;
  /** The stream's `args` read into the input, or the REST route's `invalid_payload` / `not_found`. */
  fromArgs(args: unknown): T;
  run(ctx: OpContext, input: T): Promise<Answer>;
}

/** The most orders one batch carries. */
export const BATCH_MAX = 20;

export const BatchBody = z.strictObject({
  orders: z
    .array(z.unknown(), { message: "must be an array of orders" })
    .min(1, "must hold at least one order")
    .max(BATCH_MAX, `must hold at most ${BATCH_MAX} orders`),
});

/**
 * What a batch counts against the key's budget: one per order when the body is a batch (`orders`, an array of 1
 * to BATCH_MAX, and nothing else), else one (it is answered 400 as a whole).
 */
export function batchUnits(body: unknown): number {
  const batch = BatchBody.safeParse(body);
  return batch.success ? batch.data.orders.length : 1;
}

/** A path id (an order's, an account's): a malformed one names nothing, so it is 404 like an unknown one. */
export function pathId(value: string): string {
  if (!isUuid(value)) throw new ServiceError("not_found");
  return value.toLowerCase();
}

/**
 * The stream's args of an operation whose REST route names ids in its path: the path fields (a string each,
 * 404 when not a UUID), the rest for `schema`; the problems of both in one 400.
 */
function argsWithIds<F extends string, S extends z.ZodType>(
  args: unknown,
  fields: readonly F[],
  schema: S,
): { ids: Record<F, string>; rest: z.infer<S> } {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw ServiceError.invalid([{ path: "args", message: "must be a JSON object" }]);
  }
  const named = new Set<string>(fields);
  const entries = Object.entries(args as Record<string, unknown>);
  const ids = {} as Record<F, string>;
  const issues = [];
  for (const field of fields) {
    const value = (args as Record<string, unknown>)[field];
    if (typeof value === "string") ids[field] = value;
    else issues.push({ path: field, message: value === undefined ? "required" : "must be a UUID" });
  }
  const rest = schema.safeParse(Object.fromEntries(entries.filter(([key]) => !named.has(key))), REPORT_INPUT);
  if (!rest.success) issues.push(...toIssues(rest.error));
  if (issues.length > 0 || !rest.success) throw ServiceError.invalid(issues);
  for (const field of fields) ids[field] = pathId(ids[field]);
  return { ids, rest: rest.data };
}

/** The body's account in lower case, for the caller. */
function forCaller<B extends { account_id: string }>(body: B, userId: string): B & { user_id: string } {
  return { ...body, account_id: body.account_id.toLowerCase(), user_id: userId };
}

export function orderAnswer(reply: OrderResponse__Output): Answer {
  const body = orderResponseJson(reply);
  if (reply.outcome === "replayed") return { status: 200, body, replayed: true };
  return { status: reply.outcome === "created" ? 201 : 200, body };
}

function orderBody(order: Parameters<typeof orderJson>[0] | null): Answer {
  if (order === null) throw new Error("engine returned no order");
  return { status: 200, body: { order: orderJson(order) } };
}

export type PlaceInput = z.infer<typeof PlaceOrderBody>;
export type CloseInput = z.infer<typeof ClosePositionBody>;
export interface AmendInput {
  orderId: string;
  changes: z.infer<typeof AmendOrderBody>;
}
export interface CancelAllInput {
  accountId: string;
  symbol: string | undefined;
}

const one = (): number => 1;

export const placeOrderOp: TradingOp<PlaceInput> = {
  name: "order.place",
  scope: "TRADE",
  reducesRisk: false,
  units: one,
  fromArgs: (args) => parse(PlaceOrderBody, args),
  run: async (ctx, input) => orderAnswer(await ctx.engine.placeOrder(forCaller(input, ctx.userId), ctx.origin)),
};

// The same body as a real order; client_id is passed on (the engine ignores it and spends nothing).
export const testOrderOp: TradingOp<PlaceInput> = {
  name: "order.test",
  scope: "TRADE",
  reducesRisk: false,
  units: one,
  fromArgs: (args) => parse(PlaceOrderBody, args),
  run: async (ctx, input) => ({
    status: 200,
    body: orderTestJson(await ctx.engine.testOrder(forCaller(input, ctx.userId), ctx.origin)),
  }),
};

export const closePositionOp: TradingOp<CloseInput> = {
  name: "position.close",
  scope: "TRADE",
  reducesRisk: true,
  units: one,
  fromArgs: (args) => parse(ClosePositionBody, args),
  run: async (ctx, input) => orderAnswer(await ctx.engine.closePosition(forCaller(input, ctx.userId), ctx.origin)),
};

export const cancelOrderOp: TradingOp<string> = {
  name: "order.cancel",
  scope: "MANAGE_ORDERS",
  reducesRisk: true,
  units: one,
  fromArgs: (args) => argsWithIds(args, ["order_id"], z.strictObject({})).ids.order_id,
  run: async (ctx, orderId) =>
    orderBody((await ctx.engine.cancelOrder({ user_id: ctx.userId, order_id: orderId }, ctx.origin)).order),
};

export const amendOrderOp: TradingOp<AmendInput> = {
  name: "order.amend",
  scope: "MANAGE_ORDERS",
  reducesRisk: false,
  units: one,
  fromArgs: (args) => {
    const { ids, rest } = argsWithIds(args, ["order_id"], AmendOrderBody);
    return { orderId: ids.order_id, changes: rest };
  },
  run: async (ctx, input) =>
    orderBody(
      (await ctx.engine.amendOrder({ ...input.changes, user_id: ctx.userId, order_id: input.orderId }, ctx.origin))
        .order,
    ),
};

/** The query of DELETE /v1/account/{account_id}/orders; the stream's args beside `account_id`. */
export const CancelAllQuery = z.strictObject({
  symbol: z
    .string()
    .min(1, "must not be empty")
    .max(32)
    .nullish()
    .transform((v) => v ?? undefined),
});

export const cancelAllOp: TradingOp<CancelAllInput> = {
  name: "orders.cancel_all",
  scope: "MANAGE_ORDERS",
  reducesRisk: true,
  units: one,
  fromArgs: (args) => {
    const { ids, rest } = argsWithIds(args, ["account_id"], CancelAllQuery);
    return { accountId: ids.account_id, symbol: rest.symbol };
  },
  run: async (ctx, input) => {
    const request: CancelAllRequest = { user_id: ctx.userId, account_id: input.accountId, symbol: input.symbol ?? "" };
    const reply = await ctx.engine.cancelAllOrders(request, ctx.origin);
    return { status: 200, body: { data: reply.data.map(orderJson) } };
  },
};

export function flattenJson(reply: FlattenResponse__Output): Record<string, unknown> {
  return {
    canceled: reply.canceled.map(orderJson),
    closes: reply.closes.map((close) => ({
      position_id: close.position_id,
      symbol: close.symbol,
      venue: close.venue,
      order: close.order === null ? null : orderJson(close.order),
      fills: close.fills.map(fillJson),
      violations: close.violations.map(violationJson),
      issues: close.issues.map((issue) => ({ path: issue.path, message: issue.message })),
      kept_orders: close.kept_orders.map(orderJson),
    })),
    positions: reply.positions.map(positionJson),
  };
}

export const flattenOp: TradingOp<string> = {
  name: "account.flatten",
  scope: "MANAGE_ORDERS",
  reducesRisk: true,
  units: one,
  fromArgs: (args) => argsWithIds(args, ["account_id"], z.strictObject({})).ids.account_id,
  run: async (ctx, accountId) => ({
    status: 200,
    body: flattenJson(await ctx.engine.flatten({ user_id: ctx.userId, account_id: accountId }, ctx.origin)),
  }),
};

export const cancelAfterJson = fieldsOf<CancelAfter__Output>([["account_id", "armed", "timeout_ms?", "deadline?"]]);

/** The body: a whole number of ms, 0 or within the bounds (the engine's uint32 field never truncates it). */
export const CancelAfterBody = z.strictObject({
  timeout_ms: z.unknown().transform((value, ctx) => {
    const issue = cancelAfterIssues(value)[0];
    if (issue === undefined) return value as number;
    ctx.addIssue({ code: "custom", message: value === undefined ? "required" : issue.message });
    return z.NEVER;
  }),
});

export interface CancelAfterInput {
  accountId: string;
  timeoutMs: number;
}

// The dead-man's switch: TRADE arms it (the trading bot is what it watches).
export const cancelAfterOp: TradingOp<CancelAfterInput> = {
  name: "cancel_after.set",
  scope: "TRADE",
  reducesRisk: false,
  units: one,
  fromArgs: (args) => {
    const { ids, rest } = argsWithIds(args, ["account_id"], CancelAfterBody);
    return { accountId: ids.account_id, timeoutMs: rest.timeout_ms };
  },
  run: async (ctx, input) => {
    const request = { user_id: ctx.userId, account_id: input.accountId, timeout_ms: input.timeoutMs };
    return { status: 200, body: cancelAfterJson(await ctx.engine.setCancelAfter(request, ctx.origin)) };
  },
};

/** One order's answer in a batch: the status and body POST /v1/order would have answered. */
interface BatchItem {
  status: number;
  /** Whether POST /v1/order would have sent `Idempotent-Replayed: true` (a replayed client_id). */
  replayed: boolean;
  body: Record<string, unknown>;
}

/**
 * Logs and counts a failed operation (a batch's order, a stream operation) as the REST error responder does: a
 * backend that did not answer is counted and logged at warn, any other 5xx logged at error as `message`.
 */
export function reportFailure(
  failures: BatchFailures,
  failure: ServiceError,
  err: unknown,
  fields: Record<string, unknown>,
  message: string,
): void {
  const unavailable = unavailableBackend(failure.code);
  const logged = { ...fields, code: failure.code };
  if (unavailable !== undefined) {
    failures.onUnavailable?.(unavailable);
    failures.log.warn({ ...logged, upstream: unavailable, reason: failure.message }, `${unavailable} unavailable`);
  } else if (failure.httpStatus >= 500) {
    failures.log.error({ ...logged, err }, message);
  }
}

async function judge(ctx: OpContext, raw: unknown, index: number): Promise<BatchItem> {
  const shape = PlaceOrderBody.safeParse(raw, REPORT_INPUT);
  if (!shape.success) {
    const error = ServiceError.invalid(toIssues(shape.error));
    return { status: error.httpStatus, replayed: false, body: error.body() };
  }
  try {
    const answer = orderAnswer(await ctx.engine.placeOrder(forCaller(shape.data, ctx.userId), ctx.origin));
    return { status: answer.status, replayed: answer.replayed === true, body: answer.body };
  } catch (error) {
    const failure = fromGrpcError(error, "engine");
    const fields = { request_id: ctx.origin.requestId, route: ctx.route, order_index: index };
    reportFailure(ctx.failures, failure, failure, fields, "batch order failed");
    return { status: failure.httpStatus, replayed: false, body: failure.body() };
  }
}

/**
 * A batch: each order sent when the one before it is answered, so it is judged against the account as the
 * earlier ones left it (their headroom, their client_ids); the answer keeps the given order.
 */
export const batchOp: TradingOp<unknown[]> = {
  name: "orders.batch",
  scope: "TRADE",
  reducesRisk: false,
  units: batchUnits,
  fromArgs: (args) => parse(BatchBody, args).orders,
  run: async (ctx, orders) => {
    const data: BatchItem[] = [];
    for (const [index, raw] of orders.entries()) data.push(await judge(ctx, raw, index));
    return { status: 200, body: { data } };
  },
};

/** Every trading operation of the stream, by its `op`. */
export const TRADING_OPS: ReadonlyMap<string, TradingOp<unknown>> = new Map(
  [
    placeOrderOp,
    testOrderOp,
    cancelOrderOp,
    amendOrderOp,
    closePositionOp,
    batchOp,
    cancelAllOp,
    flattenOp,
    cancelAfterOp,
  ].map((op): [string, TradingOp<unknown>] => [op.name, op]),
);
