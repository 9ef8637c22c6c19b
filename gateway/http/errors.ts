// The one error responder of both listeners: every failure leaves through the error registry.
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from "express";
import {
  BACKEND_CODES,
  ServiceError,
  UNAVAILABLE_RETRY_AFTER_S,
  fromGrpcError,
  unavailableBackend,
  type Backend,
  type Dependency,
} from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
import { requestIdOf, routeOf } from "./request.js";
import { inTraceOf } from "./trace.js";

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
            upstream: unavailable,
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

export function notFound(): RequestHandler {
  return (_req, res) => {
    sendError(res, new ServiceError("not_found"));
  };
}
