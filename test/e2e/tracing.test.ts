// Traces through the real processes: the wallet, engine and gateway export their spans over OTLP/HTTP (JSON)
// to a receiver in this test, which keeps them in memory. One POST /v1/order must be one trace: the gateway's
// request span, the gRPC client and server spans of ValidateApiKey and PlaceOrder, the shard thread's spans
// and the journal commit, each the child of the one before. The gateway's log line for it carries the trace.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type CreatedKey } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../harness/otlp.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

async function eventually<T>(read: () => T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("traces and logs with OTEL_EXPORTER_OTLP_ENDPOINT set", () => {
  let receiver: OtlpReceiver;
  let stack: TestStack;
  let market: Market;
  let base: string;
  let trader: CreatedKey;
  let accountId: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    stack = await stackOn("postgres", {
      redis: true,
      env: {
        PRICE_FEED: "push",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_TRACES_SAMPLER: "parentbased_always_on",
        OTEL_BSP_SCHEDULE_DELAY: "100",
      },
      // Every request asks the wallet (no key cache), and the per-request log line is written (debug).
      gatewayEnv: { KEY_CACHE: "false", LOG_LEVEL: "debug" },
    });
    market = marketClient(stack.engineGrpc);
    base = stack.gateways[0]?.v1 ?? "";
    trader = await newKey(stack.gateways[0]?.api ?? "", "tracer", { label: "t", permissions: ["READ_ONLY", "TRADE"] });
    await market.push({ "BTC-USD": 50_000 });
    const created = await v1(base, "/v1/account", trader, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ plan_id: PLAN_10K, label: "traced" }),
    });
    expect(created.status).toBe(201);
    accountId = String(created.body.account_id);
  });
  afterAll(async () => {
    market?.close();
    await stack?.stop();
    await receiver?.stop();
  });

  const placeOrder = (clientId: string, headers: Record<string, string> = {}) =>
    v1(base, "/v1/order", trader, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({
        account_id: accountId,
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: "0.01",
        limit_price: "40000",
        client_id: clientId,
      }),
    });

  it("follows one POST /v1/order from the gateway through both gRPC hops into the shard thread and its commit", async () => {
    const traceId = randomBytes(16).toString("hex");
    const callerSpanId = randomBytes(8).toString("hex");
    const placed = await placeOrder("traced-1", { traceparent: `00-${traceId}-${callerSpanId}-01` });
    expect(placed.status).toBe(201);

    const names = [
      "POST /v1/order",
      "wallet.v1.Wallet/ValidateApiKey",
      "engine.v1.Engine/PlaceOrder",
      "shard.command",
      "shard.decide",
      "journal.append",
    ];
    const spans = await eventually(() => {
      const ofTrace = receiver.spans().filter((span) => span.traceId === traceId);
      const complete =
        names.every((name) => ofTrace.some((span) => span.name === name)) &&
        ofTrace.filter((span) => span.name === "wallet.v1.Wallet/ValidateApiKey").length === 2 &&
        ofTrace.filter((span) => span.name === "engine.v1.Engine/PlaceOrder").length === 2;
      return complete ? ofTrace : undefined;
    }, "every span of the order's trace");

    const one = (service: string, name: string, kind: number): ReceivedSpan => {
      const found = spans.filter((span) => span.service === service && span.name === name && span.kind === kind);
      expect(found, `${service} ${name} kind ${kind}`).toHaveLength(1);
      return found[0] as ReceivedSpan;
    };
    const request = one("gateway", "POST /v1/order", SERVER);
    const validateClient = one("gateway", "wallet.v1.Wallet/ValidateApiKey", CLIENT);
    const validateServer = one("wallet", "wallet.v1.Wallet/ValidateApiKey", SERVER);
    const placeClient = one("gateway", "engine.v1.Engine/PlaceOrder", CLIENT);
    const placeServer = one("engine", "engine.v1.Engine/PlaceOrder", SERVER);
    const inShard = one("engine", "shard.command", CONSUMER);
    const decide = spans.find((span) => span.name === "shard.decide");
    const commit = spans.find((span) => span.name === "journal.append");

    // The caller's traceparent is the request's parent; each hop is the child of the one before.
    expect(request.parentSpanId).toBe(callerSpanId);
    expect(request.attributes).toMatchObject({ "http.route": "/v1/order", "http.response.status_code": 201 });
    expect(request.attributes.request_id).toBe(placed.headers.get("x-request-id"));
    expect(validateClient.parentSpanId).toBe(request.spanId);
    expect(validateServer.parentSpanId).toBe(validateClient.spanId);
    expect(placeClient.parentSpanId).toBe(request.spanId);
    expect(placeServer.parentSpanId).toBe(placeClient.spanId);
    expect(inShard.parentSpanId).toBe(placeServer.spanId);
    expect(decide?.parentSpanId).toBe(inShard.spanId);
    expect(commit?.parentSpanId).toBe(inShard.spanId);
    expect(commit?.attributes).toMatchObject({ "db.system.name": "postgresql" });
    expect(commit?.attributes["journal.events"]).toBeGreaterThan(0);
  });

  it("starts a trace at the gateway when the client sends none, and writes it with the request id on the log line", async () => {
    const placed = await placeOrder("traced-2");
    expect(placed.status).toBe(201);
    const requestId = placed.headers.get("x-request-id") ?? "";
    expect(requestId).not.toBe("");

    const line = await eventually(() => {
      for (const text of stack.output().split("\n")) {
        if (!text.includes(requestId)) continue;
        const parsed = JSON.parse(text) as Record<string, unknown>;
        if (parsed.service === "gateway" && parsed.msg === "request") return parsed;
      }
      return undefined;
    }, "the gateway's log line of the request");
    expect(line).toMatchObject({ request_id: requestId, route: "/v1/order", status: "201" });
    expect(line.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);

    // The line's trace is the request's: its gateway span and the engine's spans share the id.
    const traceId = String(line.trace_id);
    const spans = await eventually(() => {
      const ofTrace = receiver.spans().filter((span) => span.traceId === traceId);
      return ofTrace.some((span) => span.name === "journal.append") ? ofTrace : undefined;
    }, "the spans of the logged trace");
    const request = spans.find((span) => span.name === "POST /v1/order");
    expect(request?.parentSpanId).toBe("");
    expect(request?.attributes.request_id).toBe(requestId);
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(["gateway", "wallet", "engine"]));
  });

  it("records nothing anywhere below a caller that did not sample, and starts no trace of its own downstream", async () => {
    const unsampledTrace = randomBytes(16).toString("hex");
    const placed = await placeOrder("unsampled-1", {
      traceparent: `00-${unsampledTrace}-${randomBytes(8).toString("hex")}-00`,
    });
    expect(placed.status).toBe(201);
    // A sampled request sent after it: once its commit span arrived, every process has exported past the first.
    const markerTrace = randomBytes(16).toString("hex");
    expect(
      (await placeOrder("after-unsampled", { traceparent: `00-${markerTrace}-${"1".repeat(16)}-01` })).status,
    ).toBe(201);
    await eventually(
      () =>
        receiver.spans().some((span) => span.traceId === markerTrace && span.name === "journal.append")
          ? true
          : undefined,
      "the marker request's commit span",
    );
    expect(receiver.spans().filter((span) => span.traceId === unsampledTrace)).toEqual([]);
    // Had a hop lost the caller's decision, the next one would have started a sampled root of its own. (Roots
    // of background work, like the test's price pushes and the webhook dispatcher's wallet calls, are fine.)
    const requestPath = new Set(["wallet.v1.Wallet/ValidateApiKey", "engine.v1.Engine/PlaceOrder", "shard.command"]);
    const orphans = receiver.spans().filter((span) => span.parentSpanId === "" && requestPath.has(span.name));
    expect(orphans).toEqual([]);
  });

  it("never puts a key or secret on a span", () => {
    const text = JSON.stringify(receiver.spans());
    expect(text).not.toContain(trader.secret);
    expect(text).not.toContain(trader.key);
  });
});

describe("traces off (OTEL_SDK_DISABLED=true wins over an endpoint)", () => {
  let receiver: OtlpReceiver;
  let stack: TestStack;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    stack = await stackOn("pglite", {
      env: {
        OTEL_SDK_DISABLED: "true",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_BSP_SCHEDULE_DELAY: "100",
      },
      gatewayEnv: { LOG_LEVEL: "debug" },
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.stop();
  });

  it("exports nothing and writes request lines without trace ids", async () => {
    const key = await newKey(stack.gateways[0]?.api ?? "", "untraced");
    const base = stack.gateways[0]?.v1 ?? "";
    const traceId = randomBytes(16).toString("hex");
    const answer = await v1(base, "/v1/plans", key, {
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01` },
    });
    expect(answer.status).toBe(200);
    const requestId = answer.headers.get("x-request-id") ?? "";
    const line = await eventually(() => {
      for (const text of stack.output().split("\n")) {
        if (!text.includes(requestId)) continue;
        const parsed = JSON.parse(text) as Record<string, unknown>;
        if (parsed.msg === "request") return parsed;
      }
      return undefined;
    }, "the gateway's log line of the request");
    expect(line.request_id).toBe(requestId);
    expect(line).not.toHaveProperty("trace_id");
    expect(stack.output()).not.toContain(traceId);
    // Longer than the batch delay of an exporter, had one started.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.requests()).toBe(0);
  });
});
