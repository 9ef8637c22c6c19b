// The webhook parts of the engine process (engine/main.ts): the store the catch-up and delivery-log calls
// read, its metrics, and under WEBHOOKS_ENABLED the dispatcher with the wallet directory, the HTTPS transport
// and the revocations the wallet pushes.
import type { Registry } from "prom-client";
import { joinHostPort } from "../kernel/address.js";
import type { Database } from "../kernel/db.js";
import { channelCredentials } from "../kernel/grpc.js";
import { KeyCache } from "../kernel/key-cache.js";
import { KEY_LEASE_MS, KEY_LEASE_PING_MS } from "../kernel/key-lease.js";
import type { Logger } from "../kernel/log.js";
import { DAY_MS } from "../kernel/time.js";
import type { EngineSettings } from "./config.js";
import { WebhookDispatcher } from "./webhooks/dispatcher.js";
import { webhookMetrics } from "./webhooks/metrics.js";
import { RevokedKeys } from "./webhooks/revoked-keys.js";
import { WebhookStore } from "./webhooks/store.js";
import { httpsTransport } from "./webhooks/transport.js";
import { walletDirectory } from "./webhooks/wallet-directory.js";

export interface WebhookParts {
  store: WebhookStore;
  /** Built, not started; absent unless WEBHOOKS_ENABLED. */
  dispatcher: WebhookDispatcher | undefined;
  /** Closes the revocation feed, the transport and the wallet directory (after the dispatcher stopped). */
  close: () => void;
}

export function webhookParts(settings: EngineSettings, db: Database, registry: Registry, log: Logger): WebhookParts {
  const store = new WebhookStore(db.pool, settings.ENGINE_DB_TIMEOUT_MS);
  const metrics = webhookMetrics(registry, () => store.backlog(Date.now()));
  if (!settings.WEBHOOKS_ENABLED) return { store, dispatcher: undefined, close: () => undefined };
  const directory = walletDirectory(
    settings.WALLET_GRPC_TARGET ?? joinHostPort(settings.HOST, settings.WALLET_GRPC_PORT),
    settings.INTERNAL_TOKEN,
    channelCredentials(settings.GRPC_TLS_CA_FILE),
  );
  const transport = httpsTransport({
    ca: settings.WEBHOOK_CA_FILE?.pem,
    allowPrivate: settings.WEBHOOK_ALLOW_PRIVATE,
    timeoutMs: settings.WEBHOOK_TIMEOUT_MS,
  });
  // Revocations pushed by the wallet: a DELETE returns only once this dispatcher acked it (or its lease ran
  // out, and then every attempt asks the wallet first), so a revoked key never gets a new attempt.
  const revokedKeys = new RevokedKeys({ now: () => performance.now() });
  const revocations = new KeyCache({
    open: () => directory.watch(),
    leaseMs: KEY_LEASE_MS,
    pingMs: KEY_LEASE_PING_MS,
    ttlMs: KEY_LEASE_MS,
    maxEntries: 1,
    now: () => performance.now(),
    wallNow: () => Date.now(),
    onRevoked: (keyId) => {
      revokedKeys.add(keyId);
    },
    log,
  });
  revocations.start();
  const dispatcher = new WebhookDispatcher({
    store,
    keys: directory,
    guard: revokedKeys.guard(() => revocations.trusted),
    send: transport.send,
    schedule: settings.WEBHOOK_RETRY_SCHEDULE_MS,
    log,
    metrics,
    pollMs: settings.WEBHOOK_POLL_MS,
    retentionMs: settings.WEBHOOK_RETENTION_DAYS * DAY_MS,
    timeoutMs: settings.WEBHOOK_TIMEOUT_MS,
  });
  return {
    store,
    dispatcher,
    close: () => {
      revocations.close();
      transport.close();
      directory.close();
    },
  };
}
