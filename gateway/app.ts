// Builds the gateway's two Express apps: /api (key management, internal) and /v1 (trading, public).
import express, { type Express, type RequestHandler } from "express";
import type { Registry } from "prom-client";
import { compileAllowList } from "../kernel/ip.js";
import type { Dependency } from "../kernel/errors.js";
import type { Logger } from "../kernel/log.js";
import type { Clients } from "./clients.js";
import { adminToken, apiRouter, identifiedCaller } from "./api/router.js";
import { jsonBody } from "./http/body.js";
import { errorResponder, notFound } from "./http/errors.js";
import { createHttpMetrics, observe } from "./http/metrics.js";
import { requestId } from "./http/request.js";
import { traceRequests } from "./http/trace.js";
import { tracingOn } from "../kernel/tracing.js";
import type { AuthDeps } from "./v1/auth.js";
import { v1Router } from "./v1/router.js";

export interface AppOptions {
  clients: Clients;
  auth: AuthDeps;
  registry: Registry;
  /** Record HTTP metrics (METRICS_ENABLED); /metrics answers either way. */
  metricsEnabled: boolean;
  log: Logger;
  trustedProxies: string[];
  adminToken: string | undefined;
  bodyLimitBytes: number;
  ready: () => Promise<boolean>;
  onRevoked: (keyId: string) => Promise<void>;
  /** Whether a key is marked revoked in the limiter (`/api/api-keys/validate` checks it like `/v1`). */
  isRevoked?: (keyId: string) => Promise<boolean>;
  /** Counts a request answered 503 because the wallet, the engine or Redis did not answer. */
  onUnavailable?: (dependency: Dependency) => void;
}

function base(options: AppOptions, listener: string): Express {
  // (The /v1 listener reads bodies per route, after authentication: an anonymous caller cannot make it parse.)
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // X-Forwarded-For counts only when the socket peer is a trusted proxy (walked right to left).
  const trusted = compileAllowList(options.trustedProxies);
  app.set("trust proxy", options.trustedProxies.length === 0 ? false : (address: string) => trusted.allows(address));
  if (tracingOn()) app.use(traceRequests());
  app.use(requestId());
  app.use(observe(listener, options.metricsEnabled ? createHttpMetricsOnce(options.registry) : undefined, options.log));
  app.get("/healthz", (_req, res) => {
    res.status(200).json({ status: "ok" });
  });
  app.get("/readyz", readiness(options.ready));
  return app;
}

const metricsByRegistry = new WeakMap<Registry, ReturnType<typeof createHttpMetrics>>();
export function createHttpMetricsOnce(registry: Registry): ReturnType<typeof createHttpMetrics> {
  let metrics = metricsByRegistry.get(registry);
  if (metrics === undefined) {
    metrics = createHttpMetrics(registry);
    metricsByRegistry.set(registry, metrics);
  }
  return metrics;
}

function readiness(ready: () => Promise<boolean>): RequestHandler {
  return async (_req, res) => {
    const ok = await ready().catch(() => false);
    res.status(ok ? 200 : 503).json({ status: ok ? "ready" : "not_ready" });
  };
}

export function buildApiApp(options: AppOptions): Express {
  const app = base(options, "api");
  // The metrics page, like the probes, reads no body (docs/openapi.yaml documents no 4XX for it).
  app.get("/metrics", async (_req, res) => {
    res.type(options.registry.contentType).send(await options.registry.metrics());
  });
  // Who asks comes first: the admin token and the caller's identity are checked before the body is read.
  app.use("/api", adminToken(options.adminToken), identifiedCaller());
  app.use(jsonBody(options.bodyLimitBytes));
  app.use(
    "/api",
    apiRouter(options.clients, {
      onRevoked: options.onRevoked,
      isRevoked: options.isRevoked,
    }),
  );
  app.use(notFound());
  app.use(errorResponder(options.log, { backend: "wallet", onUnavailable: options.onUnavailable }));
  return app;
}

export function buildV1App(options: AppOptions): Express {
  const app = base(options, "v1");
  app.use(
    "/v1",
    v1Router(options.clients, options.auth, jsonBody(options.bodyLimitBytes), {
      log: options.log,
      onUnavailable: options.onUnavailable,
    }),
  );
  app.use(notFound());
  app.use(errorResponder(options.log, { backend: "engine", onUnavailable: options.onUnavailable }));
  return app;
}
