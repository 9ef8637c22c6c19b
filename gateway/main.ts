// Gateway process: two HTTP listeners translating REST to gRPC, the per-key rate limiter (Redis when
// REDIS_URL is set, in memory otherwise), graceful shutdown that drains in-flight requests.
import http from "node:http";
import type { Logger } from "../kernel/log.js";
import { isEntryPoint, runService } from "../kernel/process.js";
import { createRegistry, scrapeCounter } from "../kernel/metrics.js";
import { RpcMetrics } from "../kernel/rpc-metrics.js";
import { buildApiApp, buildV1App } from "./app.js";
import { createClients, reachable } from "./clients.js";
import { KeyCache } from "../kernel/key-cache.js";
import { KEY_LEASE_MS, KEY_LEASE_PING_MS } from "../kernel/key-lease.js";
import { channelCredentials, outgoingMetadata } from "../kernel/grpc.js";
import { GATEWAY_LISTEN_SECRETS, loadGatewaySettings, type GatewaySettings } from "./config.js";
import { warnInsecureListen } from "../kernel/listen-guard.js";
import { MemoryRateLimiter, RedisRateLimiter, createGatewayRedis, type RateLimiter } from "./ratelimit/index.js";
import { AuthFailureLimiter } from "./v1/auth-failures.js";

export interface RunningGateway {
  httpPort: number;
  walletHttpPort: number;
  stop(): Promise<void>;
}

async function listen(server: http.Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      resolve();
    });
  });
  const address = server.address();
  return typeof address === "object" && address !== null ? address.port : port;
}

async function drain(server: http.Server, graceMs: number): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
    }, graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

export async function startGateway(settings: GatewaySettings, log: Logger): Promise<RunningGateway> {
  warnInsecureListen(log, settings, GATEWAY_LISTEN_SECRETS);
  const registry = createRegistry("gateway");
  const metricsOn = settings.METRICS_ENABLED;
  const clients = createClients(
    settings.WALLET_GRPC_TARGET,
    settings.ENGINE_GRPC_TARGETS,
    settings.INTERNAL_TOKEN,
    metricsOn ? new RpcMetrics(registry, "client") : undefined,
    settings.ENGINE_SESSION,
    settings.GRPC_DEADLINE_MS,
    channelCredentials(settings.GRPC_TLS_CA_FILE),
  );
  const noCount = (): void => undefined;
  const decided = metricsOn
    ? scrapeCounter({
        name: "gateway_rate_limit_decisions_total",
        help: "Per-key rate-limit decisions (held: accepted after waiting for a slot that freed within RATE_LIMIT_MAX_DELAY_MS).",
        label: "decision",
        values: ["allowed", "held", "limited", "revoked"] as const,
        registers: [registry],
      })
    : noCount;
  const validated = metricsOn
    ? scrapeCounter({
        name: "gateway_key_validations_total",
        help: "Key validations by where they were answered: the local key cache or the wallet.",
        label: "source",
        values: ["cache", "wallet"] as const,
        registers: [registry],
      })
    : noCount;
  const unavailable = metricsOn
    ? scrapeCounter({
        name: "gateway_backend_unavailable_total",
        help: "Requests answered 503 because a backend (wallet or engine) or its database, or the gateway's Redis, did not answer in time.",
        label: "service",
        values: ["wallet", "engine", "redis"] as const,
        registers: [registry],
      })
    : noCount;
  const addressLimited = metricsOn
    ? scrapeCounter({
        name: "gateway_auth_address_limited_total",
        help: "/v1 requests refused 429 because their source address failed authentication AUTH_FAILURE_LIMIT times.",
        label: "listener",
        values: ["v1"] as const,
        registers: [registry],
      })
    : noCount;
  const redis = settings.REDIS_URL === undefined ? undefined : createGatewayRedis(settings.REDIS_URL);
  redis?.on("error", (error) => {
    log.warn({ err: error }, "redis error");
  });
  const limits = {
    limit: settings.RATE_LIMIT_MAX,
    windowMs: settings.RATE_LIMIT_WINDOW_MS,
    maxDelayMs: settings.RATE_LIMIT_MAX_DELAY_MS,
  };
  const limiter: RateLimiter =
    redis === undefined ? new MemoryRateLimiter(limits) : new RedisRateLimiter({ redis, ...limits });

  const keyCache = settings.KEY_CACHE
    ? new KeyCache({
        open: () => clients.wallet.client.WatchKeys(outgoingMetadata(undefined, settings.INTERNAL_TOKEN)),
        leaseMs: KEY_LEASE_MS,
        pingMs: KEY_LEASE_PING_MS,
        ttlMs: settings.KEY_CACHE_TTL_MS,
        maxEntries: settings.KEY_CACHE_MAX_ENTRIES,
        now: () => performance.now(),
        wallNow: () => Date.now(),
        onRevoked: (keyId) => {
          limiter.markRevoked(keyId).catch((error: unknown) => {
            log.warn({ err: error }, "marking a revoked key in the limiter failed");
          });
        },
        log,
      })
    : undefined;
  keyCache?.start();

  const options = {
    clients,
    registry,
    metricsEnabled: metricsOn,
    log,
    auth: {
      clients,
      keyCache,
      onValidation: validated,
      limiter,
      windowMs: settings.RATE_LIMIT_WINDOW_MS,
      onDecision: decided,
      failures: new AuthFailureLimiter({
        limit: settings.AUTH_FAILURE_LIMIT,
        windowMs: settings.AUTH_FAILURE_WINDOW_MS,
        maxAddresses: settings.AUTH_FAILURE_MAX_ADDRESSES,
      }),
      onAddressLimited: () => {
        addressLimited("v1");
      },
    },
    trustedProxies: settings.TRUSTED_PROXIES,
    adminToken: settings.WALLET_ADMIN_TOKEN,
    bodyLimitBytes: settings.BODY_LIMIT_BYTES,
    ready: async () => {
      // Any engine will do: one engine down makes only its partitions unavailable (503), not this replica.
      // Redis is left out: every replica shares it, and with it down this replica still answers each request
      // itself (503 rate_limiter_unavailable with Retry-After, docs/runbook.md) instead of being taken out of
      // the Service with all the others, leaving clients the ingress's bare 503.
      const engines = Promise.all(clients.engine.engines.map((e) => reachable(e.client, 1_000))).then((up) =>
        up.some(Boolean),
      );
      return (await Promise.all([reachable(clients.wallet.client, 1_000), engines])).every(Boolean);
    },
    // The wallet has applied the revocation (its own index and gateways) and told the other replicas; this
    // makes it visible to this gateway's limiter too, so even a validation answered a moment earlier cannot
    // admit the key again. The revocation is committed either way: a limiter that cannot be reached (Redis
    // down) is logged, not answered as a failed DELETE.
    onRevoked: (keyId: string) =>
      limiter.markRevoked(keyId).catch((error: unknown) => {
        log.warn({ err: error, keyId }, "marking a revoked key in the limiter failed");
      }),
    isRevoked: (keyId: string) => limiter.isMarkedRevoked(keyId),
    onUnavailable: unavailable,
  };

  const v1Server = http.createServer(buildV1App(options));
  const apiServer = http.createServer(buildApiApp(options));
  for (const server of [v1Server, apiServer]) {
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    server.requestTimeout = 30_000;
  }
  const httpPort = await listen(v1Server, settings.HOST, settings.HTTP_PORT);
  const walletHttpPort = await listen(apiServer, settings.HOST, settings.WALLET_HTTP_PORT);
  log.info({ httpPort, walletHttpPort, redis: redis !== undefined }, "gateway listening");

  return {
    httpPort,
    walletHttpPort,
    async stop() {
      await Promise.all([drain(v1Server, 5_000), drain(apiServer, 5_000)]);
      keyCache?.close();
      await limiter.close();
      redis?.disconnect();
      clients.close();
    },
  };
}

// The request's trace context travels with the request (gateway/origin.ts), not through awaits: no
// AsyncLocalStorage and its cost on every promise.
if (isEntryPoint(import.meta.url)) {
  runService("gateway", loadGatewaySettings, startGateway, { asyncContext: false });
}
