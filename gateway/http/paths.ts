// URL paths the router cannot decode: a 400 with an issue, not the router's URIError.
import type { RequestHandler, Response } from "express";
import { ServiceError } from "../../kernel/errors.js";
import { sendError } from "./errors.js";

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
