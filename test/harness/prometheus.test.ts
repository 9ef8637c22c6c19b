import { describe, expect, it } from "vitest";
import { anchorOf, exportedNames, metricNamesIn } from "./prometheus.js";

describe("metricNamesIn", () => {
  it.each([
    ['sum by (route) (rate(http_requests_total{job="gateway",status=~"5.."}[5m]))', ["http_requests_total"]],
    [
      "histogram_quantile(0.99, sum by (le, grpc_method) (rate(grpc_server_handling_seconds_bucket[$__rate_interval])))",
      ["grpc_server_handling_seconds_bucket"],
    ],
    [
      "sum(rate(a_total[5m])) / clamp_min(sum(rate(b_total[5m])), 1e-9) > 0.02 and deriv(c[10m]) > 0",
      ["a_total", "b_total", "c"],
    ],
    ['up{job=~"gateway|wallet"} == 0', []],
    ["max(x_seconds) > 300 unless on (instance) y offset 1d", ["x_seconds", "y"]],
  ])("finds the metrics of %s", (expr, names) => {
    expect(metricNamesIn(expr).sort()).toEqual([...names].sort());
  });
});

describe("exposition helpers", () => {
  const page = [
    "# HELP a_total A.",
    "# TYPE a_total counter",
    'a_total{x="1"} 2',
    "# HELP process_cpu_seconds_total CPU.",
    "# TYPE process_cpu_seconds_total counter",
    "process_cpu_seconds_total 1",
    "",
  ].join("\n");

  it("lists the series names", () => {
    expect([...exportedNames(page)]).toEqual(["a_total", "process_cpu_seconds_total"]);
  });

  it("makes GitHub's heading anchors", () => {
    expect(anchorOf("HighErrorRate")).toBe("higherrorrate");
    expect(anchorOf("Rotate the webhook master key")).toBe("rotate-the-webhook-master-key");
  });
});
