import { Metadata, status } from "@grpc/grpc-js";
import {
  type ReadableSpan,
  AlwaysOffSampler,
  AlwaysOnSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  SamplingDecision,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import {
  context,
  contextOfHeaders,
  contextOfMetadata,
  contextOfTraceparent,
  edgeSampler,
  endServerSpan,
  formatTraceparent,
  parseTraceparent,
  ROOT_CONTEXT,
  sampledTraceparent,
  SpanKind,
  SpanStatusCode,
  startClientSpan,
  startServerSpan,
  startSpan,
  startTracing,
  SyncContextManager,
  trace,
  tracingOn,
  tracingRequested,
  unsampledParent,
} from "./tracing.js";

// One file, one process: the first block runs before tracing is started, the second after.
describe("tracing settings", () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: " " }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "none" }, false],
    [{ OTEL_TRACES_EXPORTER: "console" }, true],
    [{ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" }, false],
  ])("turns traces on for %o: %s", (env, on) => {
    expect(tracingRequested(env)).toBe(on);
  });

  it("when no OTEL_* setting asks for traces, starts no SDK and carries no context", async () => {
    expect(await startTracing("unit", {})).toBe(false);
    expect(tracingOn()).toBe(false);
    const span = trace.getTracer("unit").startSpan("anything");
    expect(span.isRecording()).toBe(false);
    context.with(trace.setSpan(context.active(), span), () => {
      expect(sampledTraceparent()).toBeUndefined();
    });
  });
});

describe("tracing on (in-memory exporter)", () => {
  it("carries a sampled span across gRPC metadata and a thread message's traceparent", async () => {
    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor(exporter);
    expect(await startTracing("unit", {}, { spanProcessors: [processor] })).toBe(true);
    expect(tracingOn()).toBe(true);

    const root = startSpan("POST /v1/order", SpanKind.SERVER);
    const metadata = new Metadata();
    const client = startClientSpan("engine.v1.Engine/PlaceOrder", metadata, trace.setSpan(ROOT_CONTEXT, root));
    if (client === undefined) throw new Error("a sampled caller gets a client span");
    expect(metadata.get("traceparent")[0]).toBe(formatTraceparent(client.spanContext()));

    const server = startSpan("engine.v1.Engine/PlaceOrder", SpanKind.SERVER, contextOfMetadata(metadata));
    const traceparent = context.with(trace.setSpan(context.active(), server), sampledTraceparent);
    expect(traceparent).toBe(formatTraceparent(server.spanContext()));
    const inThread = startSpan("shard.command", SpanKind.CONSUMER, contextOfTraceparent(traceparent ?? ""));
    for (const span of [inThread, server, client, root]) span.end();
    // Export waits for the resource's detected attributes.
    await processor.forceFlush();

    const spans = exporter.getFinishedSpans();
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    const byName = (name: string, kind: SpanKind) =>
      spans.find((span) => span.name === name && span.kind === kind)?.spanContext().spanId;
    const parentOf = (name: string, kind: SpanKind) =>
      spans.find((span) => span.name === name && span.kind === kind)?.parentSpanContext?.spanId;
    expect(parentOf("engine.v1.Engine/PlaceOrder", SpanKind.CLIENT)).toBe(byName("POST /v1/order", SpanKind.SERVER));
    expect(parentOf("engine.v1.Engine/PlaceOrder", SpanKind.SERVER)).toBe(
      byName("engine.v1.Engine/PlaceOrder", SpanKind.CLIENT),
    );
    expect(parentOf("shard.command", SpanKind.CONSUMER)).toBe(byName("engine.v1.Engine/PlaceOrder", SpanKind.SERVER));
  });

  it("passes an unsampled caller's context on over gRPC without a span, and nothing across a thread", () => {
    const unsampled = contextOfTraceparent(`00-${"a".repeat(32)}-${"b".repeat(16)}-00`);
    const span = startSpan("POST /v1/order", SpanKind.SERVER, unsampled);
    expect(span.isRecording()).toBe(false);
    const metadata = new Metadata();
    const inside = trace.setSpan(context.active(), span);
    expect(startClientSpan("engine.v1.Engine/PlaceOrder", metadata, inside)).toBeUndefined();
    expect(metadata.get("traceparent")[0]).toBe(formatTraceparent(span.spanContext()));
    expect(String(metadata.get("traceparent")[0])).toMatch(/-00$/);
    expect(unsampledParent(contextOfMetadata(metadata))).toBe(true);
    expect(context.with(inside, sampledTraceparent)).toBeUndefined();
  });

  it("ends a gRPC server span with the status code it failed with, an error status unless OK", () => {
    const served = (error: Parameters<typeof endServerSpan>[1]): ReadableSpan => {
      const span = startServerSpan("engine.v1.Engine/PlaceOrder", "PlaceOrder", ROOT_CONTEXT);
      endServerSpan(span, error);
      return span as unknown as ReadableSpan;
    };
    const ok = served(null);
    expect(ok.kind).toBe(SpanKind.SERVER);
    expect(ok.attributes).toEqual({ "rpc.system": "grpc", "rpc.method": "PlaceOrder" });
    expect(ok.status.code).toBe(SpanStatusCode.UNSET);
    expect(ok.ended).toBe(true);
    const refused = served({ code: status.NOT_FOUND, details: "not_found" });
    expect(refused.attributes["rpc.grpc.status_code"]).toBe(status.NOT_FOUND);
    expect(refused.status).toEqual({ code: SpanStatusCode.ERROR, message: "not_found" });
    const unknown = served({});
    expect(unknown.attributes["rpc.grpc.status_code"]).toBe(status.UNKNOWN);
    expect(unknown.status).toEqual({ code: SpanStatusCode.ERROR, message: "" });
  });

  it("reads only well-formed traceparents", () => {
    expect(parseTraceparent(`00-${"1".repeat(32)}-${"2".repeat(16)}-01`)).toMatchObject({ traceFlags: 1 });
    expect(parseTraceparent(`00-${"0".repeat(32)}-${"2".repeat(16)}-01`)).toBeUndefined();
    expect(parseTraceparent("garbage")).toBeUndefined();
  });
});

describe("the synchronous context manager (engine, wallet, shard threads)", () => {
  it("makes a context active for the synchronous run of `with` only", async () => {
    const manager = new SyncContextManager();
    const span = trace.wrapSpanContext({ traceId: "1".repeat(32), spanId: "2".repeat(16), traceFlags: 1 });
    const inside = trace.setSpan(manager.active(), span);
    const seen = manager.with(inside, (a: number, b: number) => [manager.active(), a + b] as const, undefined, 1, 2);
    expect(seen).toEqual([inside, 3]);
    expect(trace.getSpan(manager.active())).toBeUndefined();
    const afterAwait = await manager.with(inside, async () => {
      await Promise.resolve();
      return manager.active();
    });
    expect(trace.getSpan(afterAwait)).toBeUndefined();
    const bound = manager.bind(inside, () => trace.getSpan(manager.active()));
    expect(bound()).toBe(span);
    expect(() =>
      manager.with(inside, () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(trace.getSpan(manager.active())).toBeUndefined();
  });
});

describe("edgeSampler: a client's traceparent cannot force sampling", () => {
  const sdk = { AlwaysOnSampler, AlwaysOffSampler, ParentBasedSampler, TraceIdRatioBasedSampler, SamplingDecision };
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  const header = (flags: "00" | "01") => ({ traceparent: `00-${traceId}-00f067aa0ba902b7-${flags}` });
  const decide = (env: NodeJS.ProcessEnv, parent: ReturnType<typeof contextOfHeaders>) =>
    edgeSampler(env, sdk).shouldSample(parent, traceId, "GET /v1/account", SpanKind.SERVER, {}, []).decision;
  const SAMPLED = SamplingDecision.RECORD_AND_SAMPLED;
  const DROPPED = SamplingDecision.NOT_RECORD;
  const none = { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" };

  it("keeps the client's trace id and parent span on the request's context", () => {
    expect(trace.getSpanContext(contextOfHeaders(header("01")))).toMatchObject({
      traceId,
      spanId: "00f067aa0ba902b7",
      isRemote: true,
    });
    expect(contextOfHeaders({})).toBe(ROOT_CONTEXT);
  });

  it.each<[string, NodeJS.ProcessEnv, "00" | "01", SamplingDecision]>([
    ["a sampled client under a sampler that samples no new trace", none, "01", DROPPED],
    [
      "a sampled client under plain traceidratio 0",
      { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" },
      "01",
      DROPPED,
    ],
    ["a sampled client under parentbased_always_off", { OTEL_TRACES_SAMPLER: "parentbased_always_off" }, "01", DROPPED],
    ["a sampled client under the default (every new trace sampled)", {}, "01", SAMPLED],
    ["an unsampled client under a parent-based sampler (it may opt out)", {}, "00", DROPPED],
    ["an unsampled client under always_on (not parent-based)", { OTEL_TRACES_SAMPLER: "always_on" }, "00", SAMPLED],
  ])("decides %s as for a new trace", (_case, env, flags, decision) => {
    expect(decide(env, contextOfHeaders(header(flags)))).toBe(decision);
  });

  it("follows an internal caller's decision (gRPC metadata, shard messages) as the parent-based setting says", () => {
    const metadata = new Metadata();
    metadata.set("traceparent", `00-${traceId}-00f067aa0ba902b7-01`);
    expect(decide(none, contextOfMetadata(metadata))).toBe(SAMPLED);
    expect(decide(none, contextOfTraceparent(`00-${traceId}-00f067aa0ba902b7-01`))).toBe(SAMPLED);
  });

  it("follows the request's own span below it (a local parent), sampled or not", () => {
    const request = contextOfHeaders(header("01"));
    const local = (flags: number) =>
      trace.setSpanContext(request, { traceId, spanId: "1111111111111111", traceFlags: flags, isRemote: false });
    expect(decide(none, local(1))).toBe(SAMPLED);
    expect(decide({}, local(0))).toBe(DROPPED);
  });
});
