// RED metrics of the HTTP listeners (http_request_duration_seconds, http_requests_total) and a debug log line
// per request.
import type { RequestHandler } from "express";
import { Counter, type Registry } from "prom-client";
import { FastHistogramVec } from "../../kernel/fast-histogram.js";
import type { Logger } from "../../kernel/log.js";
import { requestIdOf, routeOf } from "./request.js";
import { inTraceOf } from "./trace.js";

type HttpLabel = "listener" | "method" | "route" | "status";

export interface HttpMetrics {
  /** Latency by listener, method, route template and status; its _count is `http_requests_total`. */
  duration: FastHistogramVec<HttpLabel>;
}

export const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5] as const;

export function createHttpMetrics(registry: Registry): HttpMetrics {
  const duration = new FastHistogramVec<HttpLabel>({
    name: "http_request_duration_seconds",
    help: "HTTP request latency by listener, route template and status.",
    labelNames: ["listener", "method", "route", "status"],
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  // Counted at scrape time from the histogram's counts: nothing more per request.
  new Counter({
    name: "http_requests_total",
    help: "HTTP requests by listener, route template and status.",
    labelNames: ["listener", "method", "route", "status"],
    registers: [registry],
    collect() {
      this.reset();
      for (const child of duration.all()) this.inc(child.labels, child.count);
    },
  });
  return { duration };
}

/** RED metrics and a debug log line per request; route labels are templates, never ids. */
export function observe(listener: string, metrics: HttpMetrics | undefined, log: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.on("finish", () => {
      const seconds = (performance.now() - started) / 1000;
      const debug = log.isLevelEnabled("debug");
      if (metrics === undefined && !debug) return;
      const labels = { listener, method: req.method, route: routeOf(req), status: String(res.statusCode) };
      metrics?.duration.child(labels).observe(seconds);
      if (debug) {
        inTraceOf(res, () => {
          log.debug({ request_id: requestIdOf(res), ...labels, ms: seconds * 1000 }, "request");
        });
      }
    });
    next();
  };
}
