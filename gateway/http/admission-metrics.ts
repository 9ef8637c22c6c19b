// The admission control's metrics (docs/overload.md): its bound and what it holds, read at scrape time, and
// the requests it shed by reason (REST requests and stream operations alike); a shed REST answer is counted in
// the HTTP metrics too, as route `shed`.
import type { Registry } from "prom-client";
import { scrapeCounter, scrapeGauge } from "../../kernel/metrics.js";
import type { Admission, ShedReason } from "./admission.js";
import type { GateOptions } from "./admission-gate.js";
import type { HttpMetrics } from "./metrics.js";

/** The admission control of the /v1 listener and the stream's trading operations, with its shed counters. */
export interface GatewayAdmission {
  admission: Admission;
  shed: ShedCounters | undefined;
}

export interface ShedCounters {
  http: NonNullable<GateOptions["onShed"]>;
  stream: (reason: ShedReason) => void;
}

export function admissionMetrics(admission: Admission, registry: Registry, http: HttpMetrics): ShedCounters {
  const gauges = [
    [
      "gateway_admission_limit",
      "Requests /v1 admits in flight (the bound found from their latency).",
      () => admission.limit,
    ],
    ["gateway_admission_in_flight", "Admitted /v1 requests not yet answered.", () => admission.inFlight],
    ["gateway_admission_waiting", "/v1 requests waiting for admission.", () => admission.waiting],
  ] as const;
  for (const [name, help, read] of gauges) scrapeGauge(registry, name, help, read);
  const shed = scrapeCounter<ShedReason>({
    name: "gateway_admission_shed_total",
    help: "/v1 requests and stream operations answered 503 overloaded before any work, by reason.",
    label: "reason",
    values: ["queue_full", "key_queue_full", "queue_timeout"],
    registers: [registry],
  });
  return {
    http: (reason, seconds, method) => {
      shed(reason);
      http.duration.child({ listener: "v1", method, route: "shed", status: "503" }).observe(seconds);
    },
    stream: shed,
  };
}
