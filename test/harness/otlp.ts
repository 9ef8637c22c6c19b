// A tiny OTLP/HTTP trace receiver for tests and benchmarks: accepts POST /v1/traces (JSON bodies, as the
// exporter sends with OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json) and keeps the spans, or, with `discard`,
// reads and drops any body (protobuf included) like a collector that is never the bottleneck.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
}

export interface OtlpReceiver {
  /** Base URL for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans(): ReceivedSpan[];
  /** Export requests received so far. */
  requests(): number;
  stop(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value?: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
  links?: { traceId: string; spanId: string }[];
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

function valueOf(value: OtlpValue | undefined): unknown {
  if (value === undefined) return undefined;
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.doubleValue ?? value.boolValue;
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const attribute of list ?? []) out[attribute.key] = valueOf(attribute.value);
  return out;
}

export async function startOtlpReceiver(options: { discard?: boolean } = {}): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  let requests = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => {
      if (options.discard !== true) chunks.push(chunk);
    });
    req.on("end", () => {
      requests++;
      if (options.discard !== true && req.url === "/v1/traces") {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport;
          for (const resourceSpans of body.resourceSpans ?? []) {
            const serviceName = attributesOf(resourceSpans.resource?.attributes)["service.name"];
            const service = typeof serviceName === "string" ? serviceName : "";
            for (const scope of resourceSpans.scopeSpans ?? []) {
              for (const span of scope.spans ?? []) {
                received.push({
                  service,
                  traceId: span.traceId,
                  spanId: span.spanId,
                  parentSpanId: span.parentSpanId ?? "",
                  name: span.name,
                  kind: span.kind,
                  attributes: attributesOf(span.attributes),
                  links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
                });
              }
            }
          }
        } catch {
          res.writeHead(400).end();
          return;
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => {
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    requests: () => requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
