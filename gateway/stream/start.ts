// The live stream's part of the gateway process (gateway/main.ts): the engine streams, the shared feeds, the
// sockets' settings, and the paths by which a revocation reaches the open sockets.
import type { Registry } from "prom-client";
import { ServiceError } from "../../kernel/errors.js";
import { loadEngineProto, outgoingMetadata } from "../../kernel/grpc.js";
import type { Logger } from "../../kernel/log.js";
import { scrapeGauge } from "../../kernel/metrics.js";
import type { StopStack } from "../../kernel/stop-stack.js";
import type { AppOptions } from "../app.js";
import type { Clients, WalletApi } from "../clients.js";
import type { GatewaySettings } from "../config.js";
import { untraced } from "../origin.js";
import type { RateLimiter } from "../ratelimit/index.js";
import { AccountFeeds, TickerFeed, engineStreams } from "./feeds.js";
import { StreamServer } from "./server.js";
import type { TradingDeps } from "./trading.js";
import { FastHistogramVec } from "../../kernel/fast-histogram.js";
import { HTTP_BUCKETS } from "../http/metrics.js";
import type { GatewayAdmission } from "../http/admission-metrics.js";
import { holdFor } from "../v1/auth.js";
import { symbolResolver } from "./symbols.js";

/** Revocations the key cache pushes, passed to the stream server once it exists. */
export class RevocationRelay {
  target: { revoke(keyId: string): void } | undefined;
  revoke(keyId: string): void {
    this.target?.revoke(keyId);
  }
}

/**
 * The limiter, telling `target` of every key it answers as revoked (a `consume` refused `revoked`, or
 * `isMarkedRevoked` true): a request of a key that the limiter refuses as revoked closes the key's sockets at
 * once, not at the next revalidation.
 */
export function revokingLimiter(limiter: RateLimiter, target: { revoke(keyId: string): void }): RateLimiter {
  return {
    consume: async (keyId, units) => {
      const decision = await limiter.consume(keyId, units);
      if (decision.revoked) target.revoke(keyId);
      return decision;
    },
    refund: (grant) => limiter.refund(grant),
    markRevoked: (keyId) => limiter.markRevoked(keyId),
    isMarkedRevoked: async (keyId) => {
      const revoked = await limiter.isMarkedRevoked(keyId);
      if (revoked) target.revoke(keyId);
      return revoked;
    },
    close: () => limiter.close(),
  };
}

/**
 * The revalidation pass's question for a key holding sockets: is it marked revoked in the limiter (set by the
 * wallet in Redis, or by this gateway), or, when `wallet` is given, no longer one of its user's active keys at
 * the wallet (`not_found`: revoked or expired)? The wallet is asked when no push tells this gateway of a
 * revocation (`KEY_CACHE=false`, docs/streaming.md), whether or not the limiter could be reached. A wallet that
 * cannot answer counts the key as live for this pass; the next pass asks again.
 */
export function revocationCheck(
  limiter: Pick<RateLimiter, "isMarkedRevoked">,
  wallet: Pick<WalletApi, "getApiKey"> | undefined,
): (keyId: string, userId: string) => Promise<boolean> {
  return async (keyId, userId) => {
    // A limiter that cannot be reached (Redis down) does not keep the wallet from being asked.
    const marked = await limiter.isMarkedRevoked(keyId).catch((error: unknown) => {
      if (wallet === undefined) throw error;
      return false;
    });
    if (marked) return true;
    if (wallet === undefined) return false;
    try {
      await wallet.getApiKey(userId, keyId, untraced("stream"));
      return false;
    } catch (error) {
      return error instanceof ServiceError && error.code === "not_found";
    }
  };
}

/**
 * A revocation through this gateway's /api closes the key's sockets too, and so does a /v1 request of a key the
 * limiter refuses as revoked.
 */
export function withStreamRevocation(options: AppOptions, streams: StreamServer): AppOptions {
  return {
    ...options,
    auth: { ...options.auth, limiter: revokingLimiter(options.auth.limiter, streams) },
    onRevoked: async (keyId) => {
      streams.revoke(keyId);
      await options.onRevoked(keyId);
    },
  };
}

export function startStreams(
  settings: GatewaySettings,
  options: AppOptions,
  clients: Clients,
  parts: { limiter: RateLimiter; gate: GatewayAdmission },
  log: Logger,
  stack: StopStack,
): StreamServer {
  const { limiter, gate } = parts;
  const definitions = loadEngineProto().engine.v1.Engine.service;
  const upstream = engineStreams(
    clients.engine,
    { WatchAccount: definitions.WatchAccount, WatchTickers: definitions.WatchTickers },
    () => outgoingMetadata(undefined, settings.INTERNAL_TOKEN),
  );
  const feeds = new AccountFeeds(upstream, log);
  const tickers = new TickerFeed(upstream, log);
  // An upgrade or operation of a key the limiter refuses as revoked closes the key's sockets.
  const relay = new RevocationRelay();
  const revoking = revokingLimiter(limiter, relay);
  const streams = new StreamServer({
    auth: { ...options.auth, limiter: revokingLimiter(options.auth.limiter, relay) },
    trustedProxies: settings.TRUSTED_PROXIES,
    settings: {
      maxSocketsPerKey: settings.STREAM_MAX_SOCKETS_PER_KEY,
      pingIntervalMs: settings.STREAM_PING_INTERVAL_MS,
      revalidateMs: settings.STREAM_REVALIDATE_MS,
      maxMessageBytes: 16 * 1024,
    },
    session: {
      feeds,
      tickers,
      listEvents: async (userId, accountId, after) => {
        const reply = await clients.engine.listEvents(
          { user_id: userId, account_id: accountId, after, limit: 1000 },
          untraced("stream"),
        );
        return { events: reply.events, hasMore: reply.has_more };
      },
      charge: async (keyId) => {
        // A key refused as revoked here has all its sockets closed (4001), this one too.
        const decision = await revoking.consume(keyId);
        if (decision.revoked) throw new ServiceError("unauthorized");
        if (!decision.allowed) return decision.retryAfterMs;
        return undefined;
      },
      symbolOf: symbolResolver(() => clients.engine.listTickers(untraced("stream"))),
      trading: {
        engine: clients.engine,
        admission: gate.admission,
        limiter: revoking,
        hold: options.auth.hold ?? holdFor,
        failures: { log, onUnavailable: options.onUnavailable },
        onDecision: options.auth.onDecision,
        onShed: gate.shed?.stream,
        onAnswered: operationMetrics(options.registry, options.metricsEnabled),
      },
      maxBufferedBytes: settings.STREAM_MAX_BUFFERED_BYTES,
      maxAccounts: settings.STREAM_MAX_ACCOUNTS_PER_SOCKET,
      log,
    },
    isRevoked: revocationCheck(limiter, settings.KEY_CACHE ? undefined : clients.wallet),
    log,
  });
  relay.target = streams;
  streamMetrics(options.registry, options.metricsEnabled, streams, feeds);
  stack.push(() => {
    feeds.close();
    tickers.close();
  });
  return streams;
}

/** The stream's trading operations by op and status, and their latency from turn to answer. */
function operationMetrics(registry: Registry, on: boolean): TradingDeps["onAnswered"] {
  if (!on) return undefined;
  const duration = new FastHistogramVec<"op" | "status">({
    name: "gateway_stream_operation_duration_seconds",
    help: "Trading operations on GET /v1/stream by op and status: latency from their turn to their answer.",
    labelNames: ["op", "status"],
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  return (op, status, seconds) => {
    duration.child({ op, status: String(status) }).observe(seconds);
  };
}

/** Gauges read at scrape time: open sockets, their unsent bytes, open account feeds. */
function streamMetrics(registry: Registry, on: boolean, streams: StreamServer, feeds: AccountFeeds): void {
  if (!on) return;
  const gauge = (name: string, help: string, read: () => number): void => {
    scrapeGauge(registry, name, help, read);
  };
  gauge("gateway_stream_sockets", "Open sockets of GET /v1/stream.", () => streams.sockets);
  gauge("gateway_stream_buffered_bytes", "Bytes the stream sockets hold unsent.", () => streams.bufferedBytes);
  gauge("gateway_stream_account_feeds", "Engine WatchAccount streams open, shared by sockets.", () => feeds.size);
}
