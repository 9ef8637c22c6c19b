// Prometheus metrics (prom-client): one registry per process, default process metrics, and a small admin
// HTTP listener for processes without a public HTTP surface (wallet, engine): /metrics, /healthz, /readyz.
import http from "node:http";
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";

export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  renameDefaultGauges(registry);
  return registry;
}

/**
 * prom-client's default gauges `nodejs_active_{handles,requests,resources}_total` end in `_total`, a suffix
 * Prometheus keeps for counters (`promtool check metrics` refuses them): they are exported as
 * `nodejs_active_…_all` instead, the count of every type where `nodejs_active_…` counts per type.
 */
function renameDefaultGauges(registry: Registry): void {
  for (const what of ["handles", "requests", "resources"]) {
    const name = `nodejs_active_${what}_total`;
    const original = registry.getSingleMetric(name);
    if (original === undefined) continue;
    registry.removeSingleMetric(name);
    new Gauge({
      name: `nodejs_active_${what}_all`,
      help: `Number of active ${what} of every type (the sum of nodejs_active_${what}).`,
      registers: [registry],
      async collect() {
        const { values } = await original.get();
        this.set(values[0]?.value ?? 0);
      },
    });
  }
}

export interface ScrapeCounterConfig<V extends string> {
  name: string;
  help: string;
  label: string;
  /** Every value the label can take (a fixed set: the label's cardinality). */
  values: readonly V[];
  registers: readonly Registry[];
}

/**
 * A counter with one label for per-request paths: counting adds 1 to a plain number, and prom-client gets the
 * sums when it is collected (at scrape time). Every value is exported from the start, at 0.
 */
export function scrapeCounter<V extends string>(config: ScrapeCounterConfig<V>): (value: V) => void {
  const pending = new Map<V, number>(config.values.map((v) => [v, 0]));
  const counter = new Counter({
    name: config.name,
    help: config.help,
    labelNames: [config.label],
    registers: [...config.registers],
    collect() {
      for (const [value, count] of pending) {
        if (count === 0) continue;
        pending.set(value, 0);
        this.inc({ [config.label]: value }, count);
      }
    },
  });
  for (const value of config.values) counter.inc({ [config.label]: value }, 0);
  return (value) => {
    pending.set(value, (pending.get(value) ?? 0) + 1);
  };
}

/** A gauge set from `read()` when it is collected (at scrape time): nothing to update on the request path. */
export function scrapeGauge(registry: Registry, name: string, help: string, read: () => number): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.set(read());
    },
  });
}

export interface AdminServer {
  port: number;
  close(): Promise<void>;
}

/** `ready` answers whether the process can serve (database and dependencies reachable). */
export async function startAdminServer(
  registry: Registry,
  host: string,
  port: number,
  ready: () => Promise<boolean>,
): Promise<AdminServer> {
  const server = http.createServer((req, res) => {
    const url = req.url ?? "/";
    if (req.method === "GET" && url === "/metrics") {
      registry.metrics().then(
        (text) => {
          res.writeHead(200, { "content-type": registry.contentType });
          res.end(text);
        },
        () => {
          res.writeHead(500).end();
        },
      );
      return;
    }
    if (req.method === "GET" && url === "/healthz") {
      res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
      return;
    }
    if (req.method === "GET" && url === "/readyz") {
      ready().then(
        (ok) => {
          res.writeHead(ok ? 200 : 503, { "content-type": "application/json" });
          res.end(JSON.stringify({ status: ok ? "ready" : "not_ready" }));
        },
        () => {
          res.writeHead(503, { "content-type": "application/json" }).end('{"status":"not_ready"}');
        },
      );
      return;
    }
    res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not_found"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      resolve();
    });
  });
  const address = server.address();
  const boundPort = typeof address === "object" && address !== null ? address.port : port;
  return {
    port: boundPort,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}
