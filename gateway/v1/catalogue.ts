// GET /v1/tickers, GET /v1/plans and GET /v1/calendar: the engine's catalogue and news calendar, passed
// through as snake_case JSON. Served from the gateway's copy (gateway/v1/catalogue-cache.ts) while it is current,
// else asked of the engine (docs/engine.md, "Catalogue reads").
import type { RequestHandler } from "express";
import type { Clients } from "../clients.js";
import { originOf } from "../http/trace.js";
import { parse } from "../http/validation.js";
import { CalendarQuery } from "./schemas.js";
import { calendarEventJson, planJson, tickerJson } from "./records.js";

export function listTickers(clients: Clients): RequestHandler {
  return async (_req, res) => {
    const reply = clients.catalogue?.listTickers() ?? (await clients.engine.listTickers(originOf(res)));
    res.status(200).json({ data: reply.data.map(tickerJson) });
  };
}

export function listPlans(clients: Clients): RequestHandler {
  return async (_req, res) => {
    const reply = clients.catalogue?.listPlans() ?? (await clients.engine.listPlans(originOf(res)));
    res.status(200).json({ data: reply.data.map(planJson) });
  };
}

/** `?from&to` (ISO 8601, inclusive) and `?symbol` (events concerning it), judged by kernel/calendar-filter.ts. */
export function getCalendar(clients: Clients): RequestHandler {
  return async (req, res) => {
    const query = parse(CalendarQuery, req.query);
    const filter = { from: query.from ?? "", to: query.to ?? "", symbol: query.symbol ?? "" };
    const reply = clients.catalogue?.getCalendar(filter) ?? (await clients.engine.getCalendar(filter, originOf(res)));
    res.status(200).json({ data: reply.events.map(calendarEventJson) });
  };
}
