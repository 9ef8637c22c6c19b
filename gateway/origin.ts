// What a backend call carries from the HTTP request it serves: the request id (the `x-request-id` the engine
// and wallet log) and, while tracing, the request's trace context (the parent of the call's client span). The
// gateway's context manager does not follow awaits (docs/tracing.md), so the context travels here, by hand.
import type { Context } from "../kernel/tracing.js";

export interface Origin {
  readonly requestId: string;
  /** The request's context, its server span active; undefined when tracing is off or no request is served. */
  readonly trace: Context | undefined;
}

/** The origin of a call that serves no traced HTTP request (tools, tests): its client span, if any, is a root. */
export function untraced(requestId: string): Origin {
  return { requestId, trace: undefined };
}
