// The bulk calls of /v1 (docs/openapi.yaml): cancel-all (DELETE /v1/account/:account_id/orders) and flatten
// (POST /v1/account/:account_id/flatten), each one step of the account's actor, and POST /v1/orders/batch, up to
// BATCH_MAX orders judged one after another exactly as POST /v1/order judges each. Cancel-all and flatten read no
// body: none, or an empty JSON object; anything else is 400 before the engine is asked.
import type { Request, RequestHandler, Response } from "express";
import { z } from "zod";
import { ServiceError, fromGrpcError, unavailableBackend, type Dependency, type Issue } from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
import type { FlattenResponse__Output } from "../../proto/gen/engine/v1/FlattenResponse.js";
import type { Clients } from "../clients.js";
import { bodyOf } from "../http/body.js";
import { requestIdOf } from "../http/request.js";
import { originOf } from "../http/trace.js";
import { REPORT_INPUT, parse, toIssues } from "../http/validation.js";
import { accountRef } from "./account-ref.js";
import { callerOf } from "./auth.js";
import { fillJson, orderJson, orderResponseJson, positionJson, violationJson } from "./records.js";
import { NoQuery, PlaceOrderBody } from "./schemas.js";

/** The most orders one batch carries. */
export const BATCH_MAX = 20;

const CancelAllQuery = z.strictObject({
  symbol: z
    .string()
    .min(1, "must not be empty")
    .max(32)
    .nullish()
    .transform((v) => v ?? undefined),
});

/** The body cancel-all and flatten accept when one is sent: an empty JSON object. */
const NoBody = z.strictObject({}, { error: "must be an empty JSON object" });

const BatchBody = z.strictObject({
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

/** Whether the request carries a body (a length above 0 or a chunked one), parsed or not. */
function sentBody(req: Request): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * The query of a route without a body: parsed by `schema`, with the body checked to be absent or `{}`; the
 * problems of both in one 400.
 */
function queryWithoutBody<S extends z.ZodType>(schema: S, req: Request): z.infer<S> {
  const issues: Issue[] = [];
  const query = schema.safeParse(req.query, REPORT_INPUT);
  if (!query.success) issues.push(...toIssues(query.error));
  const body: unknown = req.body;
  if (body !== undefined) {
    const empty = NoBody.safeParse(body, REPORT_INPUT);
    if (!empty.success) issues.push(...toIssues(empty.error));
  } else if (sentBody(req)) {
    issues.push({ path: "", message: "must be an empty JSON object (Content-Type: application/json) or absent" });
  }
  if (issues.length > 0 || !query.success) throw ServiceError.invalid(issues);
  return query.data;
}

export function cancelAllOrders(clients: Clients): RequestHandler {
  return async (req, res) => {
    const ref = accountRef(req, res);
    const query = queryWithoutBody(CancelAllQuery, req);
    const reply = await clients.engine.cancelAllOrders({ ...ref, symbol: query.symbol ?? "" }, originOf(res));
    res.status(200).json({ data: reply.data.map(orderJson) });
  };
}

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

export function flatten(clients: Clients): RequestHandler {
  return async (req, res) => {
    const ref = accountRef(req, res);
    queryWithoutBody(NoQuery, req);
    const reply = await clients.engine.flatten(ref, originOf(res));
    res.status(200).json(flattenJson(reply));
  };
}

/** One order's answer in a batch: the status and body POST /v1/order would have answered. */
interface BatchItem {
  status: number;
  /** Whether POST /v1/order would have sent `Idempotent-Replayed: true` (a replayed client_id). */
  replayed: boolean;
  body: Record<string, unknown>;
}

/** How a batch reports an order the engine failed on, as the error responder reports a failed request. */
export interface BatchFailures {
  log: Logger;
  /** Counts an order answered 503 because the engine did not answer (gateway_backend_unavailable_total). */
  onUnavailable?: ((dependency: Dependency) => void) | undefined;
}

function reportFailure(failures: BatchFailures, res: Response, failure: ServiceError, index: number): void {
  const unavailable = unavailableBackend(failure.code);
  const fields = {
    request_id: requestIdOf(res),
    route: "POST /v1/orders/batch",
    order_index: index,
    code: failure.code,
  };
  if (unavailable !== undefined) {
    failures.onUnavailable?.(unavailable);
    failures.log.warn({ ...fields, upstream: unavailable, reason: failure.message }, `${unavailable} unavailable`);
  } else if (failure.httpStatus >= 500) {
    failures.log.error({ ...fields, err: failure }, "batch order failed");
  }
}

async function judge(
  clients: Clients,
  failures: BatchFailures,
  res: Response,
  raw: unknown,
  index: number,
): Promise<BatchItem> {
  const shape = PlaceOrderBody.safeParse(raw, REPORT_INPUT);
  if (!shape.success) {
    const error = ServiceError.invalid(toIssues(shape.error));
    return { status: error.httpStatus, replayed: false, body: error.body() };
  }
  const order = { ...shape.data, account_id: shape.data.account_id.toLowerCase(), user_id: callerOf(res).userId };
  try {
    const reply = await clients.engine.placeOrder(order, originOf(res));
    const status = reply.outcome === "created" ? 201 : 200;
    return { status, replayed: reply.outcome === "replayed", body: orderResponseJson(reply) };
  } catch (error) {
    const failure = fromGrpcError(error, "engine");
    reportFailure(failures, res, failure, index);
    return { status: failure.httpStatus, replayed: false, body: failure.body() };
  }
}

/**
 * POST /v1/orders/batch: each order sent when the one before it is answered, so it is judged against the
 * account as the earlier ones left it (their headroom, their client_ids); the answer keeps the given order.
 */
export function placeBatch(clients: Clients, failures: BatchFailures): RequestHandler {
  return async (req, res) => {
    const body = parse(BatchBody, bodyOf(req));
    const data: BatchItem[] = [];
    for (const [index, raw] of body.orders.entries()) data.push(await judge(clients, failures, res, raw, index));
    res.status(200).json({ data });
  };
}
