// The bulk calls of /v1 (docs/openapi.yaml): cancel-all (DELETE /v1/account/:account_id/orders) and flatten
// (POST /v1/account/:account_id/flatten), each one step of the account's actor, and POST /v1/orders/batch, up to
// BATCH_MAX orders judged one after another exactly as POST /v1/order judges each (the operations are shared with
// the stream, gateway/v1/trading-ops.ts). Cancel-all and flatten read no body: none, or an empty JSON object;
// anything else is 400 before the engine is asked.
import type { Request } from "express";
import { z } from "zod";
import { ServiceError, type Issue } from "../../kernel/errors.js";
import { bodyOf } from "../http/body.js";
import { REPORT_INPUT, toIssues } from "../http/validation.js";
import { pathParam, restOp } from "./orders.js";
import { NoQuery } from "./schemas.js";
import { CancelAllQuery, batchOp, cancelAllOp, flattenOp, pathId } from "./trading-ops.js";

export { BATCH_MAX, batchUnits, flattenJson, type BatchFailures } from "./trading-ops.js";

/** The body cancel-all and flatten accept when one is sent: an empty JSON object. */
const NoBody = z.strictObject({}, { error: "must be an empty JSON object" });

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

export const cancelAllOrders = restOp(cancelAllOp, (req) => {
  const accountId = pathId(pathParam(req, "account_id"));
  return { accountId, symbol: queryWithoutBody(CancelAllQuery, req).symbol };
});

export const flatten = restOp(flattenOp, (req) => {
  const accountId = pathId(pathParam(req, "account_id"));
  queryWithoutBody(NoQuery, req);
  return accountId;
});

export const placeBatch = restOp(batchOp, (req) => batchOp.fromArgs(bodyOf(req)));
