// Gateway process: two HTTP listeners translating REST to gRPC, the per-key rate limiter (Redis when
// REDIS_URL is set, in memory otherwise), graceful shutdown that drains in-flight requests.
import http from "node:http";
import type { Logger } from "../kernel/log.js";
import { isEntryPoint, runService } from "../kernel/process.js";
import { createRegistry, scrapeCounter } from "../kernel/metrics.js";
import { RpcMetrics } from "../kernel/rpc-metrics.js";
import type { Registry } from "prom-client";
import type { Redis } from "ioredis";
import { buildApiApp, buildV1App, createHttpMetricsOnce, type AppOptions } from "./app.js";
import { Admission } from "./http/admission.js";
import { admissionGate } from "./http/admission-gate.js";
import { DrainPhase, drain } from "./http/drain.js";
import { admissionMetrics, type GatewayAdmission } from "./http/admission-metrics.js";
import { createClients, reachable, serving, type Clients } from "./clients.js";
import { holdMetrics } from "./engine-hold.js";
import { KeyCache } from "../kernel/key-cache.js";
import { KEY_LEASE_MS, KEY_LEASE_PING_MS } from "../kernel/key-lease.js";
import { channelCredentials, outgoingMetadata } from "../kernel/grpc.js";
import { GATEWAY_LISTEN_SECRETS, loadGatewaySettings, type GatewaySettings } from "./config.js";
import { warnInsecureListen } from "../kernel/listen-guard.js";
import { startParts, type StopStack } from "../kernel/stop-stack.js";
import { MemoryRateLimiter, RedisRateLimiter, createGatewayRedis, type RateLimiter } from "./ratelimit/index.js";
import { AuthFailureLimiter } from "./v1/auth-failures.js";
import { RedisFailureCount } from "./v1/auth-failures-redis.js";
import { RevocationRelay, startStreams, withStreamRevocation } from "./stream/start.js";
import { CatalogueCache, catalogueStreams } from "./v1/catalogue-cache.js";
import type { StreamServer } from "./stream/server.js";

export interface RunningGateway {
  httpPort: number;
  walletHttpPort: number;
  stop(): Promise<void>;
}

/**
 * Connections the kernel holds for the gateway to accept (capped by net.core.somaxconn). Node's default, 511,
 * overflows under a burst of new connections while the event loop is busy: the kernel drops the handshakes'
 * last step, and a client that already sent its request is reset (ECONNRESET) instead of being served or shed.
 */
const LISTEN_BACKLOG = 8_192;

async function listen(server: http.Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      resolve();
    });
  });
  const address = server.address();
  return typeof address === "object" && address !== null ? address.port : port;
}

/** The gateway's counters (all no-ops with metrics off), each read at scrape time. */
function gatewayCounters(registry: Registry, metricsOn: boolean) {
  const noCount = (): void => undefined;
  const decided = metricsOn
    ? scrapeCounter({
        name: "gateway_rate_limit_decisions_total",
        help: "Per-key rate-limit decisions (held: accepted after waiting for a slot that freed within RATE_LIMIT_MAX_DELAY_MS; refunded: an accepted request answered 503 whose units were given back).",
        label: "decision",
        values: ["allowed", "held", "limited", "revoked", "refunded"] as const,
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
  return { decided, validated, unavailable, addressLimited };
}

/** The per-key rate limiter: in Redis when REDIS_URL is set (shared by every replica), else in memory. */
function startLimiter(
  settings: GatewaySettings,
  log: Logger,
  stack: StopStack,
): { limiter: RateLimiter; redis: Redis | undefined } {
  const redis = settings.REDIS_URL === undefined ? undefined : createGatewayRedis(settings.REDIS_URL);
  if (redis !== undefined) {
    redis.on("error", (error) => {
      log.warn({ err: error }, "redis error");
    });
    stack.push(() => {
      redis.disconnect();
    });
  }
  const limits = {
    limit: settings.RATE_LIMIT_MAX,
    windowMs: settings.RATE_LIMIT_WINDOW_MS,
    maxDelayMs: settings.RATE_LIMIT_MAX_DELAY_MS,
  };
  const limiter: RateLimiter =
    redis === undefined ? new MemoryRateLimiter(limits) : new RedisRateLimiter({ redis, ...limits });
  stack.push(() => limiter.close());
  return { limiter, redis };
}

/** The local key cache (KEY_CACHE): validations answered while the wallet's lease runs; revocations pushed. */
function startKeyCache(
  settings: GatewaySettings,
  clients: Clients,
  limiter: RateLimiter,
  log: Logger,
  stack: StopStack,
  revoked: RevocationRelay,
): KeyCache | undefined {
  if (!settings.KEY_CACHE) return undefined;
  const keyCache = new KeyCache({
    open: () => clients.wallet.client.WatchKeys(outgoingMetadata(undefined, settings.INTERNAL_TOKEN)),
    leaseMs: KEY_LEASE_MS,
    pingMs: KEY_LEASE_PING_MS,
    ttlMs: settings.KEY_CACHE_TTL_MS,
    maxEntries: settings.KEY_CACHE_MAX_ENTRIES,
    now: () => performance.now(),
    wallNow: () => Date.now(),
    onRevoked: (keyId) => {
      revoked.revoke(keyId);
      limiter.markRevoked(keyId).catch((error: unknown) => {
        log.warn({ err: error }, "marking a revoked key in the limiter failed");
      });
    },
    log,
  });
  keyCache.start();
  stack.push(() => {
    keyCache.close();
  });
  return keyCache;
}

/** Ready when the wallet can be reached and any engine serves (gRPC health SERVING). */
function readiness(clients: Clients): () => Promise<boolean> {
  return async () => {
    // Any engine will do: one engine down makes only its partitions unavailable (503), not this replica.
    // Redis is left out: every replica shares it, and with it down this replica still answers each request
    // itself (503 rate_limiter_unavailable with Retry-After, docs/runbook.md) instead of being taken out of
    // the Service with all the others, leaving clients the ingress's bare 503.
    const engines = Promise.all(clients.engine.targets.flat().map((e) => serving(e.client, 1_000))).then((up) =>
      up.some(Boolean),
    );
    return (await Promise.all([reachable(clients.wallet.client, 1_000), engines])).every(Boolean);
  };
}

/**
 * The /v1 listener's admission control (docs/overload.md), from the ADMISSION_* settings, shared by REST requests
 * and the stream's trading operations; and its metrics.
 */
function startAdmission(settings: GatewaySettings, options: AppOptions): GatewayAdmission {
  const admission = new Admission({
    limit: {
      initial: settings.ADMISSION_LIMIT_MIN,
      min: settings.ADMISSION_LIMIT_MIN,
      max: settings.ADMISSION_LIMIT_MAX,
    },
    perKey: settings.ADMISSION_PER_KEY,
    maxQueue: settings.ADMISSION_QUEUE,
    perKeyQueue: settings.ADMISSION_PER_KEY_QUEUE,
    queueTimeoutMs: settings.ADMISSION_QUEUE_TIMEOUT_MS,
    burstTimeoutMs: settings.ADMISSION_BURST_TIMEOUT_MS,
  });
  const shed = options.metricsEnabled
    ? admissionMetrics(admission, options.registry, createHttpMetricsOnce(options.registry))
    : undefined;
  return { admission, shed };
}

/**
 * Both listeners, stopped together: first the drain phase (GATEWAY_DRAIN_DELAY_MS of serving with /readyz 503
 * and `Connection: close`, gateway/http/drain.ts), then stream sockets closed 1001 and the listeners drained.
 */
async function listenBoth(
  settings: GatewaySettings,
  options: AppOptions,
  gate: GatewayAdmission,
  streams: StreamServer,
  stack: StopStack,
  phase: DrainPhase,
): Promise<{ httpPort: number; walletHttpPort: number }> {
  const v1 = admissionGate(gate.admission, buildV1App(options), { onShed: gate.shed?.http });
  const v1Server = http.createServer(phase.closing(v1));
  const apiServer = http.createServer(phase.closing(buildApiApp(options)));
  v1Server.on("upgrade", streams.upgrade);
  for (const server of [v1Server, apiServer]) {
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    server.requestTimeout = 30_000;
  }
  stack.push(async () => {
    await phase.begin(settings.GATEWAY_DRAIN_DELAY_MS);
    await Promise.all([streams.stop(), drain(v1Server, 5_000), drain(apiServer, 5_000)]);
  });
  const httpPort = await listen(v1Server, settings.HOST, settings.HTTP_PORT);
  const walletHttpPort = await listen(apiServer, settings.HOST, settings.WALLET_HTTP_PORT);
  return { httpPort, walletHttpPort };
}

/**
 * The gateway from its parts, each stopped by one last-in-first-out stack (kernel/stop-stack.ts): the
 * listeners drain first, then the key cache, the limiter, Redis and the gRPC clients.
 */
export async function startGateway(settings: GatewaySettings, log: Logger): Promise<RunningGateway> {
  warnInsecureListen(log, settings, GATEWAY_LISTEN_SECRETS);
  const { started, stop } = await startParts(async (stack) => {
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
      {
        holdMs: settings.HANDOVER_HOLD_MS,
        maxHeld: settings.HANDOVER_HOLD_MAX,
        ...(metricsOn ? { metrics: holdMetrics(registry) } : {}),
      },
    );
    stack.push(() => {
      clients.close();
    });
    // GET /v1/tickers, /v1/plans and /v1/calendar from memory (docs/engine.md, "Catalogue reads").
    const catalogueChannels = catalogueStreams(
      settings.ENGINE_GRPC_TARGETS.flatMap((entry) => entry.split("|").map((target) => target.trim())),
      channelCredentials(settings.GRPC_TLS_CA_FILE),
      () => outgoingMetadata(undefined, settings.INTERNAL_TOKEN),
    );
    const catalogue = new CatalogueCache(catalogueChannels.open, log);
    catalogue.start();
    clients.catalogue = catalogue;
    stack.push(() => {
      catalogue.close();
      catalogueChannels.close();
    });
    const counters = gatewayCounters(registry, metricsOn);
    const { limiter, redis } = startLimiter(settings, log, stack);
    const revoked = new RevocationRelay();
    const keyCache = startKeyCache(settings, clients, limiter, log, stack, revoked);
    const failures = authFailures(settings, redis, log);
    const phase = new DrainPhase();
    const options = appOptions(settings, log, registry, clients, { limiter, keyCache, failures }, counters);
    options.ready = phase.ready(options.ready);
    const gate = startAdmission(settings, options);
    const streams = startStreams(settings, options, clients, { limiter, gate }, log, stack);
    revoked.target = streams;
    const ports = await listenBoth(settings, withStreamRevocation(options, streams), gate, streams, stack, phase);
    log.info({ ...ports, redis: redis !== undefined }, "gateway listening");
    return ports;
  });
  return { ...started, stop };
}

/**
 * Failed authentications per source: counted in Redis too when REDIS_URL is set, so every gateway refuses a
 * source that failed too often on any of them; this gateway's own count decides while Redis does not answer.
 */
function authFailures(settings: GatewaySettings, redis: Redis | undefined, log: Logger): AuthFailureLimiter {
  return new AuthFailureLimiter({
    limit: settings.AUTH_FAILURE_LIMIT,
    windowMs: settings.AUTH_FAILURE_WINDOW_MS,
    maxAddresses: settings.AUTH_FAILURE_MAX_ADDRESSES,
    shared: redis === undefined ? undefined : new RedisFailureCount(redis),
    onSharedError: (error) => {
      log.debug({ err: error }, "shared failed-authentication count unavailable; the local count decides");
    },
  });
}

/** What both apps are built from. */
function appOptions(
  settings: GatewaySettings,
  log: Logger,
  registry: Registry,
  clients: Clients,
  auth: { limiter: RateLimiter; keyCache: KeyCache | undefined; failures: AuthFailureLimiter },
  counters: ReturnType<typeof gatewayCounters>,
): AppOptions {
  const { limiter, keyCache, failures } = auth;
  return {
    clients,
    registry,
    metricsEnabled: settings.METRICS_ENABLED,
    log,
    auth: {
      clients,
      keyCache,
      onValidation: counters.validated,
      limiter,
      windowMs: settings.RATE_LIMIT_WINDOW_MS,
      onDecision: counters.decided,
      failures,
      onAddressLimited: () => {
        counters.addressLimited("v1");
      },
    },
    trustedProxies: settings.TRUSTED_PROXIES,
    adminToken: settings.WALLET_ADMIN_TOKEN,
    bodyLimitBytes: settings.BODY_LIMIT_BYTES,
    ready: readiness(clients),
    // The wallet has applied the revocation (its own index and gateways) and told the other replicas; this
    // makes it visible to this gateway's limiter too, so even a validation answered a moment earlier cannot
    // admit the key again. The revocation is committed either way: a limiter that cannot be reached (Redis
    // down) is logged, not answered as a failed DELETE.
    onRevoked: (keyId: string) =>
      limiter.markRevoked(keyId).catch((error: unknown) => {
        log.warn({ err: error, keyId }, "marking a revoked key in the limiter failed");
      }),
    isRevoked: (keyId: string) => limiter.isMarkedRevoked(keyId),
    onUnavailable: counters.unavailable,
  };
}

// The request's trace context travels with the request (gateway/origin.ts), not through awaits: no
// AsyncLocalStorage and its cost on every promise.
if (isEntryPoint(import.meta.url)) {
  runService("gateway", loadGatewaySettings, startGateway, { asyncContext: false });
}
