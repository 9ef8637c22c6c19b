// JSON request bodies: parsed with a size limit, and refused when absent.
import express, { type Request, type RequestHandler } from "express";
import { ServiceError } from "../../kernel/errors.js";
import { hasLoneSurrogate, SURROGATE_MESSAGE } from "../../kernel/text.js";

export function jsonBody(limitBytes: number): RequestHandler {
  return express.json({
    limit: limitBytes,
    strict: true,
    type: ["application/json", "application/*+json"],
  });
}

/**
 * The request's JSON body. Refused (400) when absent, and when a string in it (a value or a key) holds an
 * unpaired surrogate (a JSON `\ud800` escape with no partner): no service could store it as sent, since the
 * gRPC encoding behind the gateway turns it into U+FFFD (kernel/text.ts).
 */
export function bodyOf(req: Request): unknown {
  // express.json leaves req.body undefined when the request had no JSON body.
  const body: unknown = req.body;
  if (body === undefined)
    throw ServiceError.invalid([{ path: "", message: "expected a JSON object body (Content-Type: application/json)" }]);
  const path = loneSurrogateAt(body, "");
  if (path !== undefined) throw ServiceError.invalid([{ path, message: SURROGATE_MESSAGE }]);
  return body;
}

/** The dotted path of the first string (value or key) in `value` that holds an unpaired surrogate. */
function loneSurrogateAt(value: unknown, path: string): string | undefined {
  if (typeof value === "string") return hasLoneSurrogate(value) ? path : undefined;
  if (typeof value !== "object" || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = loneSurrogateAt(value[i], path === "" ? String(i) : `${path}.${String(i)}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = path === "" ? key : `${path}.${key}`;
    if (hasLoneSurrogate(key)) return at;
    const found = loneSurrogateAt(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}
