// GET /v1/tickers, GET /v1/plans and GET /v1/calendar: the engine's catalogue and news calendar, passed
// through as snake_case JSON.
import type { RequestHandler } from "express";
import type { Clients } from "../clients.js";
import { originOf } from "../http/trace.js";
import { parse } from "../http/validation.js";
import { CalendarQuery } from "./schemas.js";
import { calendarEventJson, planJson, tickerJson } from "./records.js";

export function listTickers(clients: Clients): RequestHandler {
  return async (_req, res) => {
    const reply = await clients.engine.listTickers(originOf(res));
    res.status(200).json({ data: reply.data.map(tickerJson) });
  };
}

export function listPlans(clients: Clients): RequestHandler {
  return async (_req, res) => {
    const reply = await clients.engine.listPlans(originOf(res));
    res.status(200).json({ data: reply.data.map(planJson) });
  };
}

/** `?from&to` (ISO 8601, inclusive) and `?symbol` (events concerning it); the engine judges the values. */
export function getCalendar(clients: Clients): RequestHandler {
  return async (req, res) => {
    const query = parse(CalendarQuery, req.query);
    const reply = await clients.engine.getCalendar(
      { from: query.from ?? "", to: query.to ?? "", symbol: query.symbol ?? "" },
      originOf(res),
    );
    res.status(200).json({ data: reply.events.map(calendarEventJson) });
  };
}
