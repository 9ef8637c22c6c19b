// /v1/account...: create an account from a plan, read its record, summary, positions, history, trades, working
// orders, funding payments, breaches, violations and analytics. Ownership is the engine's business: another
// user's account is 404.
import type { Request, RequestHandler, Response } from "express";
import { ServiceError, type Issue } from "../../kernel/errors.js";
import { checkListBound, listRangeIssues } from "../../kernel/list-range.js";
import type { AccountRef } from "../../proto/gen/engine/v1/AccountRef.js";
import type { Clients } from "../clients.js";
import type { Origin } from "../origin.js";
import { bodyOf } from "../http/body.js";
import { originOf } from "../http/trace.js";
import { REPORT_INPUT, parse, toIssues } from "../http/validation.js";
import { accountRef } from "./account-ref.js";
import { callerOf } from "./auth.js";
import {
  accountJson,
  analyticsJson,
  breachJson,
  closedPositionJson,
  fillJson,
  fundingReportJson,
  orderJson,
  positionJson,
  summaryJson,
  violationRecordJson,
} from "./records.js";
import { CreateAccountBody, ListQuery, NoQuery, OrdersQuery } from "./schemas.js";

export function createAccount(clients: Clients): RequestHandler {
  return async (req, res) => {
    const body = parse(CreateAccountBody, bodyOf(req));
    const account = await clients.engine.createAccount(
      { user_id: callerOf(res).userId, plan_id: body.plan_id, default_venue: body.default_venue, label: body.label },
      originOf(res),
    );
    res.status(201).json(accountJson(account));
  };
}

type AccountCall<R> = (engine: Clients["engine"], ref: AccountRef, origin: Origin) => Promise<R>;

/** GET of one record of the path's account, answered 200 as `json` makes it; it takes no query parameter. */
function accountRead<R>(call: AccountCall<R>, json: (reply: R) => unknown): (clients: Clients) => RequestHandler {
  return (clients) => async (req, res) => {
    const ref = accountRef(req, res);
    parse(NoQuery, req.query);
    res.status(200).json(json(await call(clients.engine, ref, originOf(res))));
  };
}

/** GET of a list of the path's account: `{ data }`, each row as `row` makes it. */
function accountList<Row>(
  call: AccountCall<{ data: Row[] }>,
  row: (item: Row) => unknown,
): (clients: Clients) => RequestHandler {
  return accountRead(call, (reply) => ({ data: reply.data.map((item) => row(item)) }));
}

export const getAccount = accountRead((engine, ref, origin) => engine.getAccount(ref, origin), accountJson);
export const getSummary = accountRead((engine, ref, origin) => engine.getSummary(ref, origin), summaryJson);
export const listPositions = accountList((engine, ref, origin) => engine.listPositions(ref, origin), positionJson);

/**
 * GET /v1/account/:id/orders: the working orders; with `client_id`, the newest order placed with it in any state
 * (zero or one), in the same envelope.
 */
export function listOrders(clients: Clients): RequestHandler {
  return async (req, res) => {
    const ref = accountRef(req, res);
    const query = parse(OrdersQuery, req.query);
    const reply =
      query.client_id === undefined
        ? await clients.engine.listOrders(ref, originOf(res))
        : await clients.engine.findOrderByClientId({ ...ref, client_id: query.client_id }, originOf(res));
    res.status(200).json({ data: reply.data.map(orderJson) });
  };
}
export const listFunding = accountRead((engine, ref, origin) => engine.listFunding(ref, origin), fundingReportJson);
export const listBreaches = accountList((engine, ref, origin) => engine.listBreaches(ref, origin), breachJson);
export const listViolations = accountList(
  (engine, ref, origin) => engine.listViolations(ref, origin),
  violationRecordJson,
);
export const getAnalytics = accountRead((engine, ref, origin) => engine.getAnalytics(ref, origin), analyticsJson);

/** The list's bounds (kernel/list-range.ts), with every problem of the query at once. */
function range(req: Request, res: Response) {
  const ref = accountRef(req, res);
  const issues: Issue[] = [];
  const raw = req.query as Record<string, unknown>;
  const bounds = { from: null as number | null, to: null as number | null };
  for (const bound of ["from", "to"] as const) {
    const value = raw[bound];
    if (typeof value !== "string") continue;
    const checked = checkListBound(bound, value);
    if (checked.ok) bounds[bound] = checked.value;
    else issues.push(checked.issue);
  }
  const shape = ListQuery.safeParse(raw, REPORT_INPUT);
  if (!shape.success) issues.push(...toIssues(shape.error));
  if (issues.length > 0 || !shape.success) throw ServiceError.invalid(issues);
  const query = shape.data;
  issues.push(...listRangeIssues({ ...bounds, afterId: query.after_id ?? null }));
  if (issues.length > 0) throw ServiceError.invalid(issues);
  return {
    ...ref,
    from: query.from ?? "",
    to: query.to ?? "",
    limit: query.limit ?? 0,
    after_id: query.after_id ?? "",
  };
}

export function listPositionHistory(clients: Clients): RequestHandler {
  return async (req, res) => {
    const reply = await clients.engine.listPositionHistory(range(req, res), originOf(res));
    res.status(200).json({ data: reply.data.map(closedPositionJson), has_more: reply.has_more });
  };
}

export function listTrades(clients: Clients): RequestHandler {
  return async (req, res) => {
    const reply = await clients.engine.listTrades(range(req, res), originOf(res));
    res.status(200).json({ data: reply.data.map(fillJson), has_more: reply.has_more });
  };
}

/** GET /v1/account/:id/orders/history: every order of the account in any state, oldest first. */
export function listOrderHistory(clients: Clients): RequestHandler {
  return async (req, res) => {
    const reply = await clients.engine.listOrderHistory(range(req, res), originOf(res));
    res.status(200).json({ data: reply.data.map(orderJson), has_more: reply.has_more });
  };
}
