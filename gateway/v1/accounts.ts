// /v1/account...: create an account from a plan, read its record, summary, positions, history, trades, working
// orders, funding payments, breaches, violations and analytics. Ownership is the engine's business: another
// user's account is 404.
import type { Request, RequestHandler, Response } from "express";
import { ServiceError, type Issue } from "../../kernel/errors.js";
import { checkListBound, listRangeIssues } from "../../kernel/list-range.js";
import type { Clients } from "../clients.js";
import { bodyOf } from "../http/body.js";
import { originOf } from "../http/trace.js";
import { parse, toIssues } from "../http/validation.js";
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
import { CreateAccountBody, ListQuery, isUuid } from "./schemas.js";

/** The path's account id; a malformed one cannot name an account, so it is 404 like an unknown one. */
function accountRef(req: Request, res: Response): { user_id: string; account_id: string } {
  const accountId = typeof req.params.account_id === "string" ? req.params.account_id : "";
  if (!isUuid(accountId)) throw new ServiceError("not_found");
  return { user_id: callerOf(res).userId, account_id: accountId.toLowerCase() };
}

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

export function getAccount(clients: Clients): RequestHandler {
  return async (req, res) => {
    res.status(200).json(accountJson(await clients.engine.getAccount(accountRef(req, res), originOf(res))));
  };
}

export function getSummary(clients: Clients): RequestHandler {
  return async (req, res) => {
    res.status(200).json(summaryJson(await clients.engine.getSummary(accountRef(req, res), originOf(res))));
  };
}

export function listPositions(clients: Clients): RequestHandler {
  return async (req, res) => {
    const reply = await clients.engine.listPositions(accountRef(req, res), originOf(res));
    res.status(200).json({ data: reply.data.map(positionJson) });
  };
}

export function listOrders(clients: Clients): RequestHandler {
  return async (req, res) => {
    const reply = await clients.engine.listOrders(accountRef(req, res), originOf(res));
    res.status(200).json({ data: reply.data.map(orderJson) });
  };
}

export function listFunding(clients: Clients): RequestHandler {
  return async (req, res) => {
    res.status(200).json(fundingReportJson(await clients.engine.listFunding(accountRef(req, res), originOf(res))));
  };
}

export function listBreaches(clients: Clients): RequestHandler {
  return async (req, res) => {
    const reply = await clients.engine.listBreaches(accountRef(req, res), originOf(res));
    res.status(200).json({ data: reply.data.map(breachJson) });
  };
}

export function listViolations(clients: Clients): RequestHandler {
  return async (req, res) => {
    const reply = await clients.engine.listViolations(accountRef(req, res), originOf(res));
    res.status(200).json({ data: reply.data.map(violationRecordJson) });
  };
}

export function getAnalytics(clients: Clients): RequestHandler {
  return async (req, res) => {
    res.status(200).json(analyticsJson(await clients.engine.getAnalytics(accountRef(req, res), originOf(res))));
  };
}

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
  const shape = ListQuery.safeParse(raw);
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
