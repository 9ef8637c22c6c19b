// HTTP plumbing shared by both gateway listeners: request ids and trace contexts (a request's `Origin`), JSON
// bodies with a size limit, zod input validation into the `invalid_payload` + `issues` shape, and the one error
// responder.
import { randomUUID } from "node:crypto";
import express, {
  type ErrorRequestHandler,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from "express";
import type { z } from "zod";
import { Counter, type Registry } from "prom-client";
import { FastHistogramVec } from "../../kernel/fast-histogram.js";
import {
  BACKEND_CODES,
  ServiceError,
  UNAVAILABLE_RETRY_AFTER_S,
  fromGrpcError,
  unavailableBackend,
  type Backend,
  type Dependency,
  type Issue,
} from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
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

const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

export function requestId(): RequestHandler {
  return (req, res, next) => {
    const presented = req.get("x-request-id");
    const id = presented !== undefined && REQUEST_ID.test(presented) ? presented : randomUUID();
    res.locals.requestId = id;
    res.setHeader("X-Request-Id", id);
    next();
  };
}

export function requestIdOf(res: Response): string {
  return typeof res.locals.requestId === "string" ? res.locals.requestId : "";
}

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
function inTraceOf(res: Response, write: () => void): void {
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

export function jsonBody(limitBytes: number): RequestHandler {
  return express.json({
    limit: limitBytes,
    strict: true,
    type: ["application/json", "application/*+json"],
  });
}

/** Converts zod issues into the contract's `{ path, message }` entries, dotted paths. */
export function toIssues(error: z.ZodError, rename: (segment: string) => string = (s) => s): Issue[] {
  return error.issues
    .map((issue) => {
      let message = issue.message;
      if (issue.code === "unrecognized_keys") {
        return issue.keys.map((key) => ({
          path: [...issue.path.map(String), key].map(rename).join("."),
          message: "unknown field",
        }));
      }
      if (issue.code === "invalid_type" && issue.input === undefined) message = "required";
      return [{ path: issue.path.map(String).map(rename).join("."), message }];
    })
    .flat();
}

/** Parses `value` with `schema`, throwing the registry's invalid_payload error on failure. */
export function parse<S extends z.ZodType>(
  schema: S,
  value: unknown,
  rename?: (segment: string) => string,
): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw ServiceError.invalid(toIssues(result.error, rename));
  return result.data;
}

export function bodyOf(req: Request): unknown {
  // express.json leaves req.body undefined when the request had no JSON body.
  const body: unknown = req.body;
  if (body === undefined)
    throw ServiceError.invalid([{ path: "", message: "expected a JSON object body (Content-Type: application/json)" }]);
  return body;
}

export function sendError(res: Response, error: ServiceError): void {
  // A backend that did not answer: worth a retry, in a moment.
  if (unavailableBackend(error.code) !== undefined) res.setHeader("Retry-After", String(UNAVAILABLE_RETRY_AFTER_S));
  res.status(error.httpStatus).json(error.body());
}

export interface ErrorResponderOptions {
  /**
   * The backend the listener is the surface of (/api: wallet, /v1: engine): an error outside the registry is its
   * fault code, and on /api an internal fault is always `wallet_error`, whichever backend it came from.
   */
  backend: Backend;
  /**
   * Counts a request answered 503 because `backend`, or the gateway's Redis, did not answer
   * (gateway_backend_unavailable_total).
   */
  onUnavailable?: (dependency: Dependency) => void;
}

interface BodyParserError {
  type?: string;
  status?: number;
}

/**
 * The last middleware of both listeners: every failure leaves through the error registry. A backend that did not
 * answer is counted and logged once, at warn, with the request id; any other 5xx is logged at error.
 */
export function errorResponder(
  log: Logger,
  options: ErrorResponderOptions = { backend: "engine" },
): ErrorRequestHandler {
  const { backend, onUnavailable } = options;
  return (error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const parserError = error as BodyParserError;
    if (parserError.type === "entity.too.large") {
      sendError(
        res,
        new ServiceError("payload_too_large", {
          issues: [{ path: "", message: "request body is too large (limit 64 KiB)" }],
        }),
      );
      return;
    }
    if (parserError.type === "entity.parse.failed") {
      sendError(res, ServiceError.invalid([{ path: "", message: "request body is not valid JSON" }]));
      return;
    }
    if (parserError.type !== undefined && parserError.status !== undefined && parserError.status < 500) {
      sendError(res, ServiceError.invalid([{ path: "", message: "request body could not be read" }]));
      return;
    }
    let serviceError = fromGrpcError(error, backend);
    if (backend === "wallet" && serviceError.code === BACKEND_CODES.engine.fault) {
      serviceError = new ServiceError(BACKEND_CODES.wallet.fault, serviceError.fields, serviceError.message);
    }
    const unavailable = unavailableBackend(serviceError.code);
    if (unavailable !== undefined) {
      onUnavailable?.(unavailable);
      inTraceOf(res, () => {
        log.warn(
          {
            request_id: requestIdOf(res),
            service: unavailable,
            code: serviceError.code,
            reason: serviceError.message,
            method: req.method,
            route: routeOf(req),
          },
          `${unavailable} unavailable`,
        );
      });
    } else if (serviceError.httpStatus >= 500) {
      inTraceOf(res, () => {
        log.error(
          { err: error, request_id: requestIdOf(res), method: req.method, route: routeOf(req) },
          "request failed",
        );
      });
    }
    sendError(res, serviceError);
  };
}

export function routeOf(req: Request): string {
  const route = (req.route as { path?: unknown } | undefined)?.path;
  return typeof route === "string" ? req.baseUrl + route : "unmatched";
}

type HttpLabel = "listener" | "method" | "route" | "status";

export interface HttpMetrics {
  /** Latency by listener, method, route template and status; its _count is `http_requests_total`. */
  duration: FastHistogramVec<HttpLabel>;
}

export const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5] as const;

export function createHttpMetrics(registry: Registry): HttpMetrics {
  const duration = new FastHistogramVec<HttpLabel>({
    name: "http_request_duration_seconds",
    help: "HTTP request latency by listener, route template and status.",
    labelNames: ["listener", "method", "route", "status"],
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  // Counted at scrape time from the histogram's counts: nothing more per request.
  new Counter({
    name: "http_requests_total",
    help: "HTTP requests by listener, route template and status.",
    labelNames: ["listener", "method", "route", "status"],
    registers: [registry],
    collect() {
      this.reset();
      for (const child of duration.all()) this.inc(child.labels, child.count);
    },
  });
  return { duration };
}

/** RED metrics and a debug log line per request; route labels are templates, never ids. */
export function observe(listener: string, metrics: HttpMetrics | undefined, log: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.on("finish", () => {
      const seconds = (performance.now() - started) / 1000;
      const debug = log.isLevelEnabled("debug");
      if (metrics === undefined && !debug) return;
      const labels = { listener, method: req.method, route: routeOf(req), status: String(res.statusCode) };
      metrics?.duration.child(labels).observe(seconds);
      if (debug) {
        inTraceOf(res, () => {
          log.debug({ request_id: requestIdOf(res), ...labels, ms: seconds * 1000 }, "request");
        });
      }
    });
    next();
  };
}

/** Whether a URL path decodes (every `%` starts a valid UTF-8 escape), as the router's parameters must. */
function pathDecodes(path: string): boolean {
  if (!path.includes("%")) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A path that is not valid percent-encoding (`/v1/account/%zz`) is a 400 with an issue, not the router's
 * URIError (which would leave as a 500). `gate` runs first when given: on /v1 the request authenticates like
 * any unknown path, so nothing about the routes is told to a caller without a key.
 */
export function malformedPath(gate?: RequestHandler): RequestHandler {
  const refuse = (res: Response): void => {
    sendError(res, ServiceError.invalid([{ path: "", message: "the URL path is not valid percent-encoding" }]));
  };
  return (req, res, next) => {
    if (pathDecodes(req.path)) {
      next();
      return;
    }
    if (gate === undefined) {
      refuse(res);
      return;
    }
    const passed = (error?: unknown): void => {
      if (error !== undefined) next(error);
      else refuse(res);
    };
    Promise.resolve(gate(req, res, passed)).catch(next);
  };
}

export function notFound(): RequestHandler {
  return (_req, res) => {
    sendError(res, new ServiceError("not_found"));
  };
}
