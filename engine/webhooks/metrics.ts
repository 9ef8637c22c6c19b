// Webhook metrics (docs/webhooks.md, "Metrics"): deliveries by outcome, attempt latency, and the outbox
// backlog with the age of its oldest event, read from the database at scrape time.
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { DispatcherMetrics } from "./dispatcher.js";
import type { Outcome } from "./retry.js";
import type { Backlog } from "./store.js";

export function webhookMetrics(registry: Registry, backlog: () => Promise<Backlog>): DispatcherMetrics {
  const deliveries = new Counter({
    name: "webhook_deliveries_total",
    help: "Webhook delivery outcomes: succeeded, retry (an attempt failed, another is scheduled), failed (out of attempts), disabled (410 Gone), canceled (key revoked or expired).",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const attempts = new Histogram({
    name: "webhook_attempt_duration_seconds",
    help: "Duration of one webhook delivery attempt, by outcome.",
    labelNames: ["outcome"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  let last: Promise<Backlog> | undefined;
  // Both gauges read one query per scrape.
  const read = (): Promise<Backlog> => (last ??= backlog().finally(() => setTimeout(() => (last = undefined), 0)));
  new Gauge({
    name: "webhook_outbox_backlog",
    help: "Webhook events not yet fanned out plus deliveries still pending.",
    registers: [registry],
    async collect() {
      this.set((await read()).size);
    },
  });
  new Gauge({
    name: "webhook_outbox_oldest_age_seconds",
    help: "Age of the oldest event not yet delivered to every target (0 when there is none).",
    registers: [registry],
    async collect() {
      this.set((await read()).oldestMs / 1000);
    },
  });
  for (const outcome of ["succeeded", "retry", "failed", "disabled", "canceled"] satisfies Outcome[]) {
    deliveries.inc({ outcome }, 0);
  }
  return {
    delivered(outcome, count = 1) {
      if (count > 0) deliveries.inc({ outcome }, count);
    },
    attempt(seconds, outcome) {
      attempts.observe({ outcome }, seconds);
    },
  };
}
