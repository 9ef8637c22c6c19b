// Revocations reach every wallet replica before DELETE returns. In one process the index is updated in
// place; with REDIS_URL the revoking replica sets the gateway's revoked marker, publishes the notice, and
// waits until every subscribed replica has acknowledged that it evicted the key (bounded by a timeout).
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import {
  REVOCATION_ACK_CHANNEL,
  REVOCATION_CHANNEL,
  REVOKED_MARKER_TTL_SECONDS,
  revokedMarkerKey,
} from "../kernel/redis-keys.js";
import type { Logger } from "../kernel/log.js";

export interface RevocationNotice {
  keyId: string;
  /** base64 SHA-256 of the public key. */
  keyHash: string;
}

/** Applies a revocation locally; a promise delays the acknowledgement until it settles. */
export type RevocationHandler = (notice: RevocationNotice) => void | Promise<void>;

/** Runs every handler; resolves when all have settled (a failing handler is reported, not fatal). */
async function runHandlers(handlers: readonly RevocationHandler[], notice: RevocationNotice): Promise<unknown[]> {
  const failures: unknown[] = [];
  await Promise.all(
    handlers.map(async (handler) => {
      try {
        await handler(notice);
      } catch (error) {
        failures.push(error);
      }
    }),
  );
  return failures;
}

export interface RevocationBus {
  /** Resolves once every live replica has applied the revocation (its handlers settled). */
  publish(notice: RevocationNotice): Promise<void>;
  onRevoked(handler: RevocationHandler): void;
  /** Resolves when the bus is subscribed and will see every later notice. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export class InProcessRevocationBus implements RevocationBus {
  private readonly handlers: RevocationHandler[] = [];
  async publish(notice: RevocationNotice): Promise<void> {
    const [failure] = await runHandlers(this.handlers, notice);
    if (failure !== undefined)
      throw failure instanceof Error ? failure : new Error("revocation handler failed", { cause: failure });
  }
  onRevoked(handler: RevocationHandler): void {
    this.handlers.push(handler);
  }
  ready(): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

interface WireNotice extends RevocationNotice {
  id: string;
}

interface PendingAck {
  acks: number;
  /** Subscribers that received the notice (PUBLISH's answer); unknown until it returns. */
  receivers: number | undefined;
  done: () => void;
}

export class RedisRevocationBus implements RevocationBus {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly handlers: RevocationHandler[] = [];
  private readonly waiting = new Map<string, PendingAck>();
  private readonly subscribed: Promise<void>;

  constructor(
    url: string,
    private readonly log: Logger,
    private readonly ackTimeoutMs = 2_000,
  ) {
    this.publisher = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
    this.subscriber = new Redis(url, { lazyConnect: false });
    this.publisher.on("error", (error) => {
      log.warn({ err: error }, "redis publisher error");
    });
    this.subscriber.on("error", (error) => {
      log.warn({ err: error }, "redis subscriber error");
    });
    this.subscriber.on("message", (channel: string, message: string) => {
      this.onMessage(channel, message);
    });
    this.subscribed = this.subscriber.subscribe(REVOCATION_CHANNEL, REVOCATION_ACK_CHANNEL).then(() => undefined);
  }

  ready(): Promise<void> {
    return this.subscribed;
  }

  onRevoked(handler: RevocationHandler): void {
    this.handlers.push(handler);
  }

  async publish(notice: RevocationNotice): Promise<void> {
    const wire: WireNotice = { ...notice, id: randomUUID() };
    let release = (): void => undefined;
    const acknowledged = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Registered before publishing: acks may arrive before PUBLISH returns its receiver count.
    const pending: PendingAck = { acks: 0, receivers: undefined, done: release };
    this.waiting.set(wire.id, pending);
    const timer = setTimeout(() => {
      this.log.warn({ keyId: notice.keyId, acks: pending.acks }, "revocation not acknowledged by every replica");
      release();
    }, this.ackTimeoutMs);
    try {
      const [, receivers] = await Promise.all([
        this.publisher.set(revokedMarkerKey(notice.keyId), "1", "EX", REVOKED_MARKER_TTL_SECONDS),
        this.publisher.publish(REVOCATION_CHANNEL, JSON.stringify(wire)),
      ]);
      pending.receivers = receivers;
      if (pending.acks >= receivers) release();
      await acknowledged;
    } finally {
      clearTimeout(timer);
      this.waiting.delete(wire.id);
    }
  }

  private onMessage(channel: string, message: string): void {
    let parsed: WireNotice;
    try {
      parsed = JSON.parse(message) as WireNotice;
    } catch {
      return;
    }
    if (channel === REVOCATION_CHANNEL) {
      // Acknowledged once applied here and passed on to this replica's key watchers (the gateways' caches).
      void runHandlers(this.handlers, { keyId: parsed.keyId, keyHash: parsed.keyHash })
        .then((failures) => {
          for (const error of failures) this.log.warn({ err: error }, "revocation handler failed");
          return this.publisher.publish(REVOCATION_ACK_CHANNEL, JSON.stringify({ id: parsed.id }));
        })
        .catch((error: unknown) => {
          this.log.warn({ err: error }, "revocation ack failed");
        });
      return;
    }
    const pending = this.waiting.get(parsed.id);
    if (pending === undefined) return;
    pending.acks += 1;
    if (pending.receivers !== undefined && pending.acks >= pending.receivers) pending.done();
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
    await this.publisher.quit().catch(() => undefined);
  }
}
