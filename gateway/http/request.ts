// What names a request in logs, spans and metrics: its id (X-Request-Id, the client's when well-formed, else a
// fresh UUID) and its route template (never the path with its ids).
import { randomUUID } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";

const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** The request's id: the client's X-Request-Id when well-formed, else a fresh UUID. */
export function requestIdFrom(presented: string | undefined): string {
  return presented !== undefined && REQUEST_ID.test(presented) ? presented : randomUUID();
}

export function requestId(): RequestHandler {
  return (req, res, next) => {
    const id = requestIdFrom(req.get("x-request-id"));
    res.locals.requestId = id;
    res.setHeader("X-Request-Id", id);
    next();
  };
}

export function requestIdOf(res: Response): string {
  return typeof res.locals.requestId === "string" ? res.locals.requestId : "";
}

export function routeOf(req: Request): string {
  const route = (req.route as { path?: unknown } | undefined)?.path;
  return typeof route === "string" ? req.baseUrl + route : "unmatched";
}
