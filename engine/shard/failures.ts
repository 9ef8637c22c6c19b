// How a shard answers a request that failed: its error as it crosses the thread boundary.
import { ServiceError, errorText } from "../../kernel/errors.js";
import type { ShardResponse, WireError } from "./protocol.js";

/** A `ServiceError` as it is; anything else (a bug) as engine_error with its message. */
export function toWireError(error: unknown): WireError {
  if (error instanceof ServiceError) return { code: error.code, message: error.message, fields: error.fields };
  return { code: "engine_error", message: errorText(error), fields: {} };
}

export function failed(requestId: number, error: WireError): ShardResponse<never> {
  return { kind: "failed", requestId, error };
}

/** The answer to whatever reaches a stopped shard, or follows a stop request in its batch. */
export const STOPPED: WireError = { code: "engine_error", message: "shard stopped", fields: {} };
