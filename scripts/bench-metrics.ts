// `npm run bench:metrics`: what recording the request-path metrics costs per request, in process: the
// gateway's HTTP histogram (route template labels), one gRPC client and one server observation, a rate-limit
// decision, and the engine's tally of one order event, against prom-client's own labelled Histogram.observe.
// Prints ns per operation (median of interleaved rounds); measures, never fails.
import { status } from "@grpc/grpc-js";
import { Histogram, Registry } from "prom-client";
import { FastHistogramVec } from "../kernel/fast-histogram.js";
import { scrapeCounter } from "../kernel/metrics.js";
import { RpcMetrics } from "../kernel/rpc-metrics.js";
import { HTTP_BUCKETS } from "../gateway/http/metrics.js";

const OPS = 1_000_000;
const ROUNDS = 7;
const registry = new Registry();
const LABELS = ["listener", "method", "route", "status"] as const;
const routes = ["/v1/order", "/v1/account/:account_id", "/v1/tickers", "/v1/order/:order_id"];

const vec = new FastHistogramVec({
  name: "h_seconds",
  help: "h",
  labelNames: LABELS,
  buckets: HTTP_BUCKETS,
  registers: [registry],
});
const reference = new Histogram({
  name: "p_seconds",
  help: "p",
  labelNames: [...LABELS],
  buckets: [...HTTP_BUCKETS],
  registers: [registry],
});
const client = new RpcMetrics(registry, "client").method("PlaceOrder");
const decided = scrapeCounter({
  name: "d_total",
  help: "d",
  label: "decision",
  values: ["allowed", "limited"] as const,
  registers: [registry],
});
const tallies = new Map<string, number>();
const count = (key: string): void => {
  tallies.set(key, (tallies.get(key) ?? 0) + 1);
};

const cases: Record<string, (i: number) => void> = {
  "prom-client Histogram.observe (4 labels)": (i) => {
    reference.observe({ listener: "v1", method: "POST", route: routes[i & 3] ?? "", status: "201" }, 0.003);
  },
  "HTTP: FastHistogramVec child + observe (4 labels)": (i) => {
    vec.child({ listener: "v1", method: "POST", route: routes[i & 3] ?? "", status: "201" }).observe(0.003);
  },
  "gRPC: two clock reads + observer": () => {
    const started = performance.now();
    client(status.OK, (performance.now() - started) / 1000);
  },
  "rate-limit decision (scrape-time counter)": () => {
    decided("allowed");
  },
  "engine tally of one event": () => {
    count("orders|LIMIT|accepted|none");
  },
};

function nsPerOp(fn: (i: number) => void): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < OPS; i++) fn(i);
  return Number(process.hrtime.bigint() - started) / OPS;
}

const results = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, fn] of Object.entries(cases)) results.get(name)?.push(nsPerOp(fn));
}
for (const [name, samples] of results) {
  const sorted = [...samples].sort((a, b) => a - b);
  console.log(`${name.padEnd(52)} ${(sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(0).padStart(6)} ns`);
}
