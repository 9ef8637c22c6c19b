// JSON request bodies: parsed with a size limit, and refused when absent.
import express, { type Request, type RequestHandler } from "express";
import { ServiceError } from "../../kernel/errors.js";

export function jsonBody(limitBytes: number): RequestHandler {
  return express.json({
    limit: limitBytes,
    strict: true,
    type: ["application/json", "application/*+json"],
  });
}

export function bodyOf(req: Request): unknown {
  // express.json leaves req.body undefined when the request had no JSON body.
  const body: unknown = req.body;
  if (body === undefined)
    throw ServiceError.invalid([{ path: "", message: "expected a JSON object body (Content-Type: application/json)" }]);
  return body;
}
