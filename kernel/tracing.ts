// OpenTelemetry traces, off unless the standard OTEL_* settings turn them on (an OTLP endpoint, or a traces
// exporter other than `none`; OTEL_SDK_DISABLED=true wins). When off, the SDK is never loaded and every hook
// below returns after one module-level boolean. Spans are made by hand at the service's boundaries (HTTP
// request, gRPC client and server, the shard thread, the journal commit), not by monkey-patching
// instrumentations: no ESM loader hook is needed, and nothing is wrapped that the trace does not show.
import { randomBytes } from "node:crypto";
import {
  context,
  createContextKey,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type ContextManager,
  type Link,
  type Span,
  type SpanContext,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
} from "@opentelemetry/api";
import { status as grpcStatus, type Metadata, type StatusObject } from "@grpc/grpc-js";
import type * as SdkTraceBase from "@opentelemetry/sdk-trace-base";
import type { Sampler, SamplingResult, SpanProcessor } from "@opentelemetry/sdk-trace-base";

export { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span };

/** What a started SDK must offer: flushing and stopping at exit. */
interface Running {
  shutdown(): Promise<void>;
}

let enabled = false;
let running: Running | undefined;
let tracer: Tracer = trace.getTracer("funded-trading-service");

/** True once `startTracing` turned tracing on in this process or thread. */
export function tracingOn(): boolean {
  return enabled;
}

const nonEmpty = (value: string | undefined): value is string => value !== undefined && value.trim() !== "";

/** Whether the OTEL_* settings ask for traces. */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  const disabled = (env.OTEL_SDK_DISABLED ?? "").trim().toLowerCase();
  if (disabled === "true" || disabled === "1") return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  if (exporters.includes("none")) return false;
  return (
    nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT) ||
    nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ||
    exporters.length > 0
  );
}

export interface TracingOptions {
  /** Replaces the exporters named by the settings (tests: an in-memory exporter). */
  spanProcessors?: SpanProcessor[];
  /**
   * Whether the active span must follow awaits and callbacks (AsyncLocalStorage; default true). A process
   * whose spans only need the context synchronously (a gRPC handler up to the moment it sends its shard
   * message; a shard thread) passes false and saves AsyncLocalStorage's cost on every promise.
   */
  asyncContext?: boolean;
}

/**
 * The active context without async propagation: `with` sets it for the synchronous run of its callback only.
 * After an `await`, `active()` is the root context again.
 */
export class SyncContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;

  active(): Context {
    return this.current;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const previous = this.current;
    this.current = context;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = previous;
    }
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== "function") return target;
    const fn = target as (...args: unknown[]) => unknown;
    const bound = (...args: unknown[]): unknown => this.with(context, fn, undefined, ...args);
    return bound as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.current = ROOT_CONTEXT;
    return this;
  }
}

/**
 * Starts the OpenTelemetry SDK when the settings ask for traces; resolves with whether they are on.
 * `service` names the process unless OTEL_SERVICE_NAME does. OTLP metric and log exporters stay off unless
 * OTEL_METRICS_EXPORTER / OTEL_LOGS_EXPORTER name one (metrics are Prometheus's job here).
 */
export async function startTracing(
  service: string,
  env: NodeJS.ProcessEnv = process.env,
  options: TracingOptions = {},
): Promise<boolean> {
  if (enabled) return true;
  if (options.spanProcessors === undefined && !tracingRequested(env)) return false;
  // The SDK reads these from process.env.
  process.env.OTEL_METRICS_EXPORTER ??= "none";
  process.env.OTEL_LOGS_EXPORTER ??= "none";
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const sdk = new NodeSDK({
    ...(nonEmpty(env.OTEL_SERVICE_NAME) ? {} : { serviceName: service }),
    sampler: edgeSampler(env, await import("@opentelemetry/sdk-trace-base")),
    ...(options.spanProcessors === undefined ? {} : { spanProcessors: options.spanProcessors }),
    ...(options.asyncContext === false ? { contextManager: new SyncContextManager() } : {}),
    instrumentations: [],
  });
  sdk.start();
  running = sdk;
  tracer = trace.getTracer("funded-trading-service");
  enabled = true;
  return true;
}

/** Flushes the spans still buffered and stops the SDK (at process or thread exit). */
export async function stopTracing(): Promise<void> {
  const sdk = running;
  running = undefined;
  enabled = false;
  if (sdk !== undefined) await sdk.shutdown();
}

// ---------------------------------------------------------------- sampling

/**
 * Marks a context whose remote parent came from outside (an HTTP client's `traceparent`, `contextOfHeaders`):
 * its trace id is kept, so the client's trace and ours correlate, but its sampled flag decides nothing.
 */
const UNTRUSTED_PARENT = createContextKey("funded-trading-service untrusted remote parent");

type SamplerClasses = Pick<
  typeof SdkTraceBase,
  "AlwaysOnSampler" | "AlwaysOffSampler" | "ParentBasedSampler" | "TraceIdRatioBasedSampler" | "SamplingDecision"
>;

/**
 * The sampler of OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (default `parentbased_always_on`), except under a
 * parent from an untrusted caller: a client's `traceparent` cannot force sampling. Under such a parent a span is
 * sampled as a new trace would be (the root sampler, judged on a random trace id, not the client's chosen one);
 * a parent-based sampler still follows a client that did not sample. Internal callers (gRPC metadata, shard
 * messages) are followed as the setting says.
 */
export function edgeSampler(env: NodeJS.ProcessEnv, sdk: SamplerClasses): Sampler {
  const name = nonEmpty(env.OTEL_TRACES_SAMPLER) ? env.OTEL_TRACES_SAMPLER.trim() : "parentbased_always_on";
  const ratio = nonEmpty(env.OTEL_TRACES_SAMPLER_ARG) ? Number(env.OTEL_TRACES_SAMPLER_ARG) : 1;
  const root: Sampler = name.endsWith("always_on")
    ? new sdk.AlwaysOnSampler()
    : name.endsWith("always_off")
      ? new sdk.AlwaysOffSampler()
      : new sdk.TraceIdRatioBasedSampler(ratio);
  const parentBased = name.startsWith("parentbased_");
  const configured: Sampler = parentBased ? new sdk.ParentBasedSampler({ root }) : root;
  const notRecorded: SamplingResult = { decision: sdk.SamplingDecision.NOT_RECORD };
  return {
    shouldSample(parentContext, traceId, spanName, spanKind, attributes, links) {
      const parent = trace.getSpanContext(parentContext);
      if (parent?.isRemote !== true || parentContext.getValue(UNTRUSTED_PARENT) !== true) {
        return configured.shouldSample(parentContext, traceId, spanName, spanKind, attributes, links);
      }
      if (parentBased && (parent.traceFlags & TraceFlags.SAMPLED) === 0) return notRecorded;
      const ownTraceId = randomBytes(16).toString("hex");
      return root.shouldSample(ROOT_CONTEXT, ownTraceId, spanName, spanKind, attributes, links);
    },
    toString() {
      return `EdgeSampler{${configured.toString()}}`;
    },
  };
}

// ---------------------------------------------------------------- spans

/** A span as a child of `parent` (the active context when omitted). Call only when `tracingOn()`. */
export function startSpan(
  name: string,
  kind: SpanKind,
  parent: Context = context.active(),
  attributes?: Attributes,
  links?: Link[],
): Span {
  return tracer.startSpan(
    name,
    { kind, ...(attributes === undefined ? {} : { attributes }), ...(links === undefined ? {} : { links }) },
    parent,
  );
}

/** Ends `span`, marked as an error when `error` is given. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined && span.isRecording()) {
    span.recordException(
      error instanceof Error
        ? error
        : { name: "Error", message: typeof error === "string" ? error : "non-Error thrown" },
    );
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

// ---------------------------------------------------------------- W3C traceparent across a thread message

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The W3C `traceparent` of a span context, e.g. `00-<trace id>-<span id>-01`. */
export function formatTraceparent(spanContext: SpanContext): string {
  return `00-${spanContext.traceId}-${spanContext.spanId}-0${(spanContext.traceFlags & TraceFlags.SAMPLED).toString(16)}`;
}

/** The traceparent of the active span when it is sampled; undefined otherwise (nothing to carry). */
export function sampledTraceparent(): string | undefined {
  if (!enabled) return undefined;
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const spanContext = span.spanContext();
  return (spanContext.traceFlags & TraceFlags.SAMPLED) === 0 ? undefined : formatTraceparent(spanContext);
}

/** A remote span context from a traceparent, or undefined when it is malformed. */
export function parseTraceparent(traceparent: string): SpanContext | undefined {
  const match = TRACEPARENT.exec(traceparent);
  if (match === null) return undefined;
  const [, traceId = "", spanId = "", flags = "00"] = match;
  const spanContext: SpanContext = { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
  return trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** A context whose parent is the span named by `traceparent` (the root context when it is malformed). */
export function contextOfTraceparent(traceparent: string): Context {
  const spanContext = parseTraceparent(traceparent);
  return spanContext === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, spanContext);
}

// ---------------------------------------------------------------- gRPC metadata

const metadataSetter: TextMapSetter<Metadata> = {
  set(carrier, key, value) {
    carrier.set(key, value);
  },
};

const metadataGetter: TextMapGetter<Metadata> = {
  get(carrier, key) {
    const values = carrier.get(key);
    const strings = values.filter((value): value is string => typeof value === "string");
    return strings.length === 0 ? undefined : strings.length === 1 ? strings[0] : strings;
  },
  keys(carrier) {
    return Object.keys(carrier.getMap());
  },
};

/**
 * Starts a gRPC client span as a child of `parent` (the calling request's context) and writes its context into
 * the call's metadata. Under an unsampled caller no span is made (with parent-based sampling it would record
 * nothing): the caller's context is passed on as it is, so the server does not start a trace of its own. Call
 * only when `tracingOn()`.
 */
export function startClientSpan(method: string, metadata: Metadata, parent: Context): Span | undefined {
  if (unsampledParent(parent)) {
    propagation.inject(parent, metadata, metadataSetter);
    return undefined;
  }
  const span = tracer.startSpan(method, { kind: SpanKind.CLIENT, attributes: rpcAttributes(method) }, parent);
  propagation.inject(trace.setSpan(parent, span), metadata, metadataSetter);
  return span;
}

/**
 * `startClientSpan` for a call carried by a session stream (kernel/session-client.ts): the span, and the
 * `traceparent` the frame carries instead of metadata (the caller's own when it did not sample, so the server
 * does not start a trace of its own). Call only when `tracingOn()`.
 */
export function startCarriedClientSpan(
  method: string,
  parent: Context,
): { span: Span | undefined; traceparent: string | undefined } {
  const caller = trace.getSpanContext(parent);
  if (caller !== undefined && (caller.traceFlags & TraceFlags.SAMPLED) === 0) {
    return { span: undefined, traceparent: formatTraceparent(caller) };
  }
  const span = tracer.startSpan(method, { kind: SpanKind.CLIENT, attributes: rpcAttributes(method) }, parent);
  return { span, traceparent: formatTraceparent(span.spanContext()) };
}

const rpcAttributes = (method: string): Attributes => ({ "rpc.system": "grpc", "rpc.method": method });

/** Starts the span of a gRPC server call as a child of `parent` (the caller's). Call only when `tracingOn()`. */
export function startServerSpan(name: string, method: string, parent: Context): Span {
  return tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: rpcAttributes(method) }, parent);
}

/** Ends a gRPC server call's span with its answer: the status code it failed with, an error status unless OK. */
export function endServerSpan(span: Span, error: Partial<StatusObject> | null): void {
  if (error !== null) {
    span.setAttribute("rpc.grpc.status_code", error.code ?? grpcStatus.UNKNOWN);
    if (error.code !== grpcStatus.OK) span.setStatus({ code: SpanStatusCode.ERROR, message: error.details ?? "" });
  }
  span.end();
}

/** The context a gRPC server call continues (the caller's, from its metadata). */
export function contextOfMetadata(metadata: Metadata): Context {
  return propagation.extract(ROOT_CONTEXT, metadata, metadataGetter);
}

/** True when `parent` names a remote caller that decided not to sample (nothing below it is recorded). */
export function unsampledParent(parent: Context): boolean {
  const spanContext = trace.getSpanContext(parent);
  return spanContext !== undefined && (spanContext.traceFlags & TraceFlags.SAMPLED) === 0;
}

// ---------------------------------------------------------------- HTTP

/**
 * The context an HTTP request continues: the client's `traceparent` header, if any, marked untrusted, so its trace
 * id is kept but its sampled flag cannot force sampling (`edgeSampler`).
 */
export function contextOfHeaders(headers: Record<string, string | string[] | undefined>): Context {
  const extracted = propagation.extract(ROOT_CONTEXT, headers);
  return trace.getSpanContext(extracted) === undefined ? extracted : extracted.setValue(UNTRUSTED_PARENT, true);
}

// ---------------------------------------------------------------- log correlation

/** Fields for a log line written while a span is active (pino `mixin`). */
export function traceFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (span === undefined) return {};
  const spanContext = span.spanContext();
  return {
    trace_id: spanContext.traceId,
    span_id: spanContext.spanId,
    trace_flags: `0${(spanContext.traceFlags & TraceFlags.SAMPLED).toString(16)}`,
  };
}
