// A request's trace context: its server span, kept on the response and handed to every backend call and log
// line of the request (its `Origin`), since the gateway's context manager does not follow awaits.
import type { RequestHandler, Response } from "express";
import {
  context,
  contextOfHeaders,
  SpanKind,
  SpanStatusCode,
  startSpan,
  trace,
  type Context,
} from "../../kernel/tracing.js";
import type { Origin } from "../origin.js";
import { requestIdOf, routeOf } from "./request.js";

/** Where `traceRequests` keeps the request's context: on its response, so it goes when the response does. */
const TRACE = "traceContext";

/** The request's trace context (its server span active); undefined when tracing is off. */
export function traceOf(res: Response): Context | undefined {
  return res.locals[TRACE] as Context | undefined;
}

/** What a backend call made for this request carries: its id and its trace context (gateway/origin.ts). */
export function originOf(res: Response): Origin {
  return { requestId: requestIdOf(res), trace: traceOf(res) };
}

/**
 * Runs `write` (a log line of the request) with the request's context active, so that the logger adds its
 * trace ids. The gateway's context manager is synchronous: the context is active for this call only.
 */
export function inTraceOf(res: Response, write: () => void): void {
  const traced = traceOf(res);
  if (traced === undefined) write();
  else context.with(traced, write);
}

/**
 * The request's server span (installed only while tracing is on): continues the client's `traceparent` (its
 * trace id and parent span; whether to sample is the gateway's sampler's call, `edgeSampler` in
 * kernel/tracing.ts), named by the route template once routed, ended when the response is done (sent, or the
 * client gone). Its context stays on the response (`traceOf`): the context manager does not follow awaits, so
 * every gRPC call and log line of the request is given it explicitly (`originOf`).
 */
export function traceRequests(): RequestHandler {
  return (req, res, next) => {
    const parent = contextOfHeaders(req.headers);
    const span = startSpan(req.method, SpanKind.SERVER, parent);
    res.locals[TRACE] = trace.setSpan(parent, span);
    res.once("close", () => {
      if (span.isRecording()) {
        const route = routeOf(req);
        span.updateName(`${req.method} ${route}`);
        span.setAttributes({
          "http.request.method": req.method,
          "http.route": route,
          "http.response.status_code": res.statusCode,
          request_id: requestIdOf(res),
        });
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    });
    next();
  };
}
