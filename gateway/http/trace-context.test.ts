// The gateway's trace context under the synchronous context manager (docs/tracing.md): no context follows an
// await, so each request's context lives on its response and is handed to every gRPC call and log line. Two
// requests interleaved at their awaits (each resumed while the others wait) must each parent their own client
// spans, on the session stream and on unary calls alike; an unsampled caller's calls carry its context and make
// no span. The context goes with the response (`res.locals`, no registry to empty): a client that hangs up still
// gets its span ended, and a call the handler makes afterwards is still that request's child.
import http from "node:http";
import { randomBytes } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import express from "express";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bindServer, loadEngineProto, shutdownServer, type DirectCall } from "../../kernel/grpc.js";
import { createLogger } from "../../kernel/log.js";
import { ENGINE_SESSION_PATH } from "../../kernel/session-codec.js";
import { sessionServer, type SessionMethod } from "../../kernel/session-server.js";
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  startTracing,
  stopTracing,
  traceFields,
  trace,
} from "../../kernel/tracing.js";
import { createClients, type Clients } from "../clients.js";
import { errorResponder } from "./errors.js";
import { observe } from "./metrics.js";
import { requestId } from "./request.js";
import { originOf, traceRequests } from "./trace.js";

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor(exporter);

/** What the stand-in engine was sent: method, request id and the traceparent (metadata or frame). */
interface Received {
  method: string;
  requestId: string | undefined;
  traceparent: string | undefined;
}
const received: Received[] = [];
/** ListTickers calls held until the test lets them answer. */
const parked: { requestId: string | undefined; answer: () => void }[] = [];

/** The engine's two catalogue calls: ListTickers waits for the test, ListPlans answers at once. */
function handle(
  method: string,
  requestId: string | undefined,
  traceparent: string | undefined,
  answer: () => void,
): void {
  received.push({ method, requestId, traceparent });
  if (method === "ListTickers") parked.push({ requestId, answer });
  else answer();
}

async function startEngine(): Promise<{ server: grpc.Server; port: number }> {
  const service = loadEngineProto().engine.v1.Engine.service;
  const server = new grpc.Server();
  const unaryOf =
    (method: string): grpc.handleUnaryCall<unknown, unknown> =>
    (call, callback) => {
      const id = call.metadata.get("x-request-id")[0];
      const parent = call.metadata.get("traceparent")[0];
      handle(method, typeof id === "string" ? id : undefined, typeof parent === "string" ? parent : undefined, () => {
        callback(null, {});
      });
    };
  server.addService(service, { ListTickers: unaryOf("ListTickers"), ListPlans: unaryOf("ListPlans") });
  const methods = new Map<string, SessionMethod>();
  for (const method of ["ListTickers", "ListPlans"]) {
    const definition = service[method];
    if (definition === undefined) throw new Error(`Engine.${method} is not in the proto`);
    const direct: DirectCall<unknown, unknown> = (_request, id, parent, callback) => {
      handle(method, id, parent === "" ? undefined : parent, () => {
        callback(null, {});
      });
    };
    methods.set(method, {
      direct,
      requestDeserialize: definition.requestDeserialize,
      responseSerialize: definition.responseSerialize,
    });
  }
  const sessions = sessionServer(ENGINE_SESSION_PATH, methods, {
    internalToken: undefined,
    log: createLogger("engine", "silent"),
  });
  server.addService(sessions.definition, sessions.implementation);
  return { server, port: await bindServer(server, "127.0.0.1", 0) };
}

/** The gateway's middleware in app.ts order, and one route that makes two engine calls, awaiting each. */
function gatewayApp(clients: Clients, lines: Record<string, unknown>[]): express.Express {
  const log = pino(
    { level: "debug", mixin: traceFields },
    {
      write(line: string) {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  const app = express();
  app.use(traceRequests());
  app.use(requestId());
  app.use(observe("v1", undefined, log));
  app.get("/catalogue", async (req, res) => {
    const origin = originOf(res);
    await clients.engine.listTickers(origin);
    await clients.engine.listPlans(origin);
    if (req.query.fail !== undefined) throw new Error("failed after both calls");
    res.json({ ok: true });
  });
  app.use(errorResponder(log));
  return app;
}

async function eventually<T>(read: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const parkedCalls = (count: number) => eventually(() => (parked.length >= count ? true : undefined), `${count} calls`);
const newTraceId = (): string => randomBytes(16).toString("hex");
const newSpanId = (): string => randomBytes(8).toString("hex");
const ofTrace = (traceId: string, kind: SpanKind): ReadableSpan[] =>
  exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId && span.kind === kind);

describe("the gateway's request context without async propagation", () => {
  let engine: { server: grpc.Server; port: number };
  const servers: http.Server[] = [];
  const opened: Clients[] = [];

  beforeAll(async () => {
    expect(await startTracing("gateway", {}, { spanProcessors: [processor], asyncContext: false })).toBe(true);
    engine = await startEngine();
  });
  afterEach(async () => {
    for (const { answer } of parked.splice(0)) answer();
    for (const clients of opened.splice(0)) clients.close();
    await Promise.all(
      servers.splice(0).map(
        (server) =>
          new Promise((resolve) => {
            server.close(resolve);
            server.closeAllConnections();
          }),
      ),
    );
    received.length = 0;
    exporter.reset();
  });
  afterAll(async () => {
    await shutdownServer(engine.server, 1_000);
    await stopTracing();
  });

  async function gateway(session: boolean, lines: Record<string, unknown>[] = []): Promise<string> {
    const clients = createClients("127.0.0.1:9", [`127.0.0.1:${engine.port}`], undefined, undefined, session);
    opened.push(clients);
    const server = http.createServer(gatewayApp(clients, lines));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (typeof address !== "object" || address === null) throw new Error("no address");
    return `http://127.0.0.1:${address.port}`;
  }

  it("runs under a context manager that forgets the context at the first await", async () => {
    const inside = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: newTraceId(),
      spanId: newSpanId(),
      traceFlags: 1,
    });
    await context.with(inside, async () => {
      expect(context.active()).toBe(inside);
      await Promise.resolve();
      expect(context.active()).toBe(ROOT_CONTEXT);
    });
  });

  it.each([
    ["the engine session stream", true],
    ["unary calls", false],
  ])(
    "gives each of three interleaved requests its own parent on %s, and its own trace ids on its log lines",
    async (_transport, session) => {
      const lines: Record<string, unknown>[] = [];
      const base = await gateway(session, lines);
      const callers = {
        a: { traceId: newTraceId(), spanId: newSpanId(), flags: "01", path: "/catalogue" },
        b: { traceId: newTraceId(), spanId: newSpanId(), flags: "01", path: "/catalogue?fail=1" },
        c: { traceId: newTraceId(), spanId: newSpanId(), flags: "00", path: "/catalogue" },
      };
      const send = (name: keyof typeof callers) => {
        const caller = callers[name];
        return fetch(`${base}${caller.path}`, {
          headers: {
            traceparent: `00-${caller.traceId}-${caller.spanId}-${caller.flags}`,
            "x-request-id": `req-${name}`,
          },
        });
      };
      // Each request is let in while the ones before it wait in their first call; they resume last in, first
      // out, each making its second call while an earlier one still waits.
      const a = send("a");
      await parkedCalls(1);
      const b = send("b");
      await parkedCalls(2);
      const c = send("c");
      await parkedCalls(3);
      for (const { answer } of parked.splice(0).reverse()) {
        answer();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect((await a).status).toBe(200);
      expect((await b).status).toBe(500);
      expect((await c).status).toBe(200);
      await processor.forceFlush();

      for (const name of ["a", "b"] as const) {
        const { traceId, spanId } = callers[name];
        const [request, ...others] = ofTrace(traceId, SpanKind.SERVER);
        expect(others).toEqual([]);
        expect(request?.parentSpanContext?.spanId).toBe(spanId);
        const calls = ofTrace(traceId, SpanKind.CLIENT);
        expect(calls.map((span) => span.name).sort()).toEqual([
          "engine.v1.Engine/ListPlans",
          "engine.v1.Engine/ListTickers",
        ]);
        for (const call of calls) expect(call.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
        // What the engine was sent names each client span as its parent.
        expect(
          received
            .filter((entry) => entry.requestId === `req-${name}`)
            .map((entry) => entry.traceparent)
            .sort(),
        ).toEqual(calls.map((call) => `00-${traceId}-${call.spanContext().spanId}-01`).sort());
        // The request's log lines are written inside its span.
        const logged = lines.filter((line) => line.request_id === `req-${name}`);
        expect(logged.map((line) => line.msg).sort()).toEqual(
          name === "a" ? ["request"] : ["request", "request failed"],
        );
        for (const line of logged) {
          expect(line).toMatchObject({ trace_id: traceId, span_id: request?.spanContext().spanId, trace_flags: "01" });
        }
      }

      // The unsampled caller: no span anywhere, its decision passed on with each call, and its log line still
      // names its trace.
      const unsampled = callers.c.traceId;
      expect(exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === unsampled)).toEqual([]);
      const sentForC = received.filter((entry) => entry.requestId === "req-c");
      expect(sentForC).toHaveLength(2);
      for (const entry of sentForC) expect(entry.traceparent).toMatch(new RegExp(`^00-${unsampled}-[0-9a-f]{16}-00$`));
      expect(lines.find((line) => line.request_id === "req-c")).toMatchObject({
        msg: "request",
        trace_id: unsampled,
        trace_flags: "00",
      });

      // No call lost its request and started a trace of its own.
      const roots = exporter
        .getFinishedSpans()
        .filter((span) => span.kind === SpanKind.CLIENT && span.parentSpanContext === undefined);
      expect(roots).toEqual([]);
    },
  );

  it("ends the request's span when the client hangs up, and a call made after that is still its child", async () => {
    const base = await gateway(true);
    const traceId = newTraceId();
    const hangUp = new AbortController();
    const answer = fetch(`${base}/catalogue`, {
      headers: { traceparent: `00-${traceId}-${newSpanId()}-01` },
      signal: hangUp.signal,
    }).catch((error: unknown) => error);
    await parkedCalls(1);
    hangUp.abort();
    expect(await answer).toBeInstanceOf(Error);

    // The response closed: its span ended, while the handler still waits for its first call.
    const [request] = await eventually(() => {
      const ended = ofTrace(traceId, SpanKind.SERVER);
      return ended.length === 1 ? ended : undefined;
    }, "the request's span");
    expect(ofTrace(traceId, SpanKind.CLIENT)).toEqual([]);

    for (const { answer: release } of parked.splice(0)) release();
    const calls = await eventually(() => {
      const ended = ofTrace(traceId, SpanKind.CLIENT);
      return ended.length === 2 ? ended : undefined;
    }, "both client spans");
    for (const call of calls) expect(call.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
  });
});
