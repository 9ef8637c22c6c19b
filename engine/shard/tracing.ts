// Spans inside a shard thread. A command or query of a sampled trace carries the caller's W3C traceparent
// across the thread message; the thread continues that trace with a span for the message's whole stay (mailbox
// wait, decision, commit), a span for the decision and one for the batch's journal commit. Nothing here runs
// unless tracing is on in the thread and the message carried a traceparent.
import type { Link } from "@opentelemetry/api";
import {
  contextOfTraceparent,
  formatTraceparent,
  parseTraceparent,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  startSpan,
  trace,
  tracingOn,
  type Span,
} from "../../kernel/tracing.js";
import { traceparentOf, type MailboxRequest, type ShardRequest, type ShardResponse } from "./protocol.js";

/**
 * Starts the span of a message's stay in the shard and points the message's traceparent at it, so the
 * decision and commit spans are its children; undefined when the message is not traced.
 */
export function startMessageSpan(request: ShardRequest, shard: number): Span | undefined {
  if (!tracingOn() || (request.kind !== "command" && request.kind !== "query")) return undefined;
  const traceparent = request.traceparent;
  if (traceparent === undefined) return undefined;
  const span = startSpan(`shard.${request.kind}`, SpanKind.CONSUMER, contextOfTraceparent(traceparent), { shard });
  request.traceparent = formatTraceparent(span.spanContext());
  return span;
}

/** Ends a message or decision span, marked as an error when the answer is a failure. */
export function endShardSpan(span: Span, response: ShardResponse | undefined): void {
  if (response?.kind === "failed") span.setStatus({ code: SpanStatusCode.ERROR, message: response.error.code });
  else if (response?.kind === "expired") span.setStatus({ code: SpanStatusCode.ERROR, message: "deadline exceeded" });
  span.end();
}

/** The span of deciding one traced message; undefined when it is not traced. */
export function startDecideSpan(request: MailboxRequest): Span | undefined {
  if (!tracingOn()) return undefined;
  const traceparent = traceparentOf(request);
  return traceparent === undefined
    ? undefined
    : startSpan("shard.decide", SpanKind.INTERNAL, contextOfTraceparent(traceparent));
}

/**
 * The span of a batch's journal append: a child of the first traced message of the batch, linked to the
 * other traced ones (one commit serves them all); undefined when no message of the batch is traced.
 */
export function startCommitSpan(
  items: readonly { request: MailboxRequest }[],
  events: number,
  accounts: number,
): Span | undefined {
  if (!tracingOn()) return undefined;
  let parent: ReturnType<typeof contextOfTraceparent> | undefined;
  const links: Link[] = [];
  for (const { request } of items) {
    const traceparent = traceparentOf(request);
    if (traceparent === undefined) continue;
    const spanContext = parseTraceparent(traceparent);
    if (spanContext === undefined) continue;
    if (parent === undefined) parent = trace.setSpanContext(ROOT_CONTEXT, spanContext);
    else links.push({ context: spanContext });
  }
  if (parent === undefined) return undefined;
  return startSpan(
    "journal.append",
    SpanKind.CLIENT,
    parent,
    {
      "db.system.name": "postgresql",
      "db.operation.name": "INSERT",
      "journal.batch_items": items.length,
      "journal.events": events,
      "journal.accounts": accounts,
    },
    links,
  );
}
