// A client's `traceparent` cannot make the gateway trace its requests (docs/tracing.md): with a sampler that starts
// no new trace, requests that arrive with a sampled traceparent record no span, while the request's context keeps
// the client's trace id (its log lines and the calls it makes carry it, unsampled). Driven through the gateway's
// own middleware with the SDK started as the gateway starts it.
import http from "node:http";
import { randomBytes } from "node:crypto";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTracing, stopTracing, trace } from "../../kernel/tracing.js";
import { traceOf, traceRequests } from "./trace.js";

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor(exporter);

describe("the gateway's sampler and a client's traceparent", () => {
  let server: http.Server;
  let base = "";

  beforeAll(async () => {
    // 0: no new trace is sampled. A parent-based sampler (the recommended one) would follow a sampled client.
    const env = { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" };
    expect(await startTracing("gateway", env, { spanProcessors: [processor], asyncContext: false })).toBe(true);
    const app = express();
    app.use(traceRequests());
    app.get("/v1/trace", (_req, res) => {
      const request = traceOf(res);
      const spanContext = request === undefined ? undefined : trace.getSpanContext(request);
      res.json({ traceId: spanContext?.traceId, sampled: (spanContext?.traceFlags ?? 0) & 1 });
    });
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (typeof address !== "object" || address === null) throw new Error("no address");
    base = `http://127.0.0.1:${address.port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await stopTracing();
  });

  it("records no span for requests whose traceparent says sampled, and keeps their trace ids", async () => {
    const traceIds = Array.from({ length: 20 }, () => randomBytes(16).toString("hex"));
    // Trace ids a trace-id-ratio sampler would pick at any ratio above 0, too.
    traceIds.push("00000000000000000000000000000001", "ffffffffffffffff0000000000000001");
    for (const traceId of traceIds) {
      const answer = await fetch(`${base}/v1/trace`, {
        headers: { traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01` },
      });
      expect(await answer.json()).toEqual({ traceId, sampled: 0 });
    }
    await processor.forceFlush();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
