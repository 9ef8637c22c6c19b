// JSON request bodies: parsed with a size limit and a nesting limit, and refused when absent.
import express, { type Request, type RequestHandler } from "express";
import { ServiceError } from "../../kernel/errors.js";
import { hasLoneSurrogate, SURROGATE_MESSAGE } from "../../kernel/text.js";

/** Deepest nesting of arrays and objects a request body may have; no request of the API comes near it. */
export const MAX_BODY_DEPTH = 64;

export const TOO_DEEP_MESSAGE = `request body is nested too deeply (limit ${String(MAX_BODY_DEPTH)} levels)`;

/**
 * Parses a JSON body of at most `limitBytes`, and refuses (400) one nested deeper than MAX_BODY_DEPTH before any
 * handler reads it: 64 KiB of brackets nest 32,000 deep, and a recursive walk of that (a schema, a check, a
 * serialiser) overflows the stack.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse: RequestHandler = express.json({
    limit: limitBytes,
    strict: true,
    type: ["application/json", "application/*+json"],
  });
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => {
      if (error !== undefined) next(error);
      else if (deeperThan(req.body as unknown, MAX_BODY_DEPTH)) next(tooDeep());
      else next();
    });
  };
}

const tooDeep = (): ServiceError => ServiceError.invalid([{ path: "", message: TOO_DEEP_MESSAGE }]);

/** Whether `value` nests arrays and objects more than `limit` levels deep; walks with a queue, not the stack. */
export function deeperThan(value: unknown, limit: number): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    const next: unknown[] = [];
    for (const item of level) {
      if (typeof item !== "object" || item === null) continue;
      if (depth === limit) return true;
      for (const child of Array.isArray(item) ? item : Object.values(item)) {
        if (typeof child === "object" && child !== null) next.push(child);
      }
    }
    level = next;
  }
  return false;
}

/**
 * The request's JSON body. Refused (400) when absent, when nested deeper than MAX_BODY_DEPTH, and when a string in
 * it (a value or a key) holds an unpaired surrogate (a JSON `\ud800` escape with no partner): no service could store
 * it as sent, since the gRPC encoding behind the gateway turns it into U+FFFD (kernel/text.ts).
 */
export function bodyOf(req: Request): unknown {
  // express.json leaves req.body undefined when the request had no JSON body.
  const body: unknown = req.body;
  if (body === undefined)
    throw ServiceError.invalid([{ path: "", message: "expected a JSON object body (Content-Type: application/json)" }]);
  const path = loneSurrogateAt(body, "", 0);
  if (path !== undefined) throw ServiceError.invalid([{ path, message: SURROGATE_MESSAGE }]);
  return body;
}

/**
 * The dotted path of the first string (value or key) in `value` that holds an unpaired surrogate. Recursive, so
 * bounded: a container below MAX_BODY_DEPTH levels is refused as too deep.
 */
function loneSurrogateAt(value: unknown, path: string, depth: number): string | undefined {
  if (typeof value === "string") return hasLoneSurrogate(value) ? path : undefined;
  if (typeof value !== "object" || value === null) return undefined;
  if (depth === MAX_BODY_DEPTH) throw tooDeep();
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = loneSurrogateAt(value[i], path === "" ? String(i) : `${path}.${String(i)}`, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = path === "" ? key : `${path}.${key}`;
    if (hasLoneSurrogate(key)) return at;
    const found = loneSurrogateAt(item, at, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}
