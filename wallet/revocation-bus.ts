// Revocations reach every wallet replica. The revoking replica applies the revocation to itself first (its
// index and its key watchers, the gateways' caches); with REDIS_URL it then sets the gateway's revoked marker,
// publishes the notice, and waits until every subscribed replica has acknowledged that it applied it, all
// bounded by a timeout. Redis is at most once: a replica that misses the notice (Redis down, a subscriber
// reconnecting) learns of the revocation from the database instead (wallet/reconciler.ts).
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

/** How many applied revocations each replica remembers, so a repeat (bus echo, database poll) is not re-run. */
const REMEMBERED_REVOCATIONS = 100_000;

/**
 * The handlers of one replica, run once per key: a second notice for a key already applied (or being applied)
 * waits for that application instead of running the handlers again. A failed application is forgotten, so a
 * later notice for the key (the next database poll) runs it again.
 */
export class LocalRevocations {
  private readonly handlers: RevocationHandler[] = [];
  private readonly applied = new Map<string, Promise<unknown[]>>();

  onRevoked(handler: RevocationHandler): void {
    this.handlers.push(handler);
  }

  /** Applies the revocation here; resolves with whether this call ran the handlers, and their failures. */
  async apply(notice: RevocationNotice): Promise<{ fresh: boolean; failures: unknown[] }> {
    const known = this.applied.get(notice.keyId);
    if (known !== undefined) return { fresh: false, failures: await known };
    const running = runHandlers(this.handlers, notice);
    this.applied.set(notice.keyId, running);
    if (this.applied.size > REMEMBERED_REVOCATIONS) {
      const oldest = this.applied.keys().next().value;
      if (oldest !== undefined) this.applied.delete(oldest);
    }
    const failures = await running;
    if (failures.length > 0 && this.applied.get(notice.keyId) === running) this.applied.delete(notice.keyId);
    return { fresh: true, failures };
  }
}

export interface RevocationBus {
  /**
   * Applies the revocation on this replica, then tells the others; resolves once this replica has applied it
   * and every other replica reachable through the bus has too (or the bus gave up: see each implementation).
   */
  publish(notice: RevocationNotice): Promise<void>;
  onRevoked(handler: RevocationHandler): void;
  /**
   * Applies a revocation learnt elsewhere (the database) on this replica only, once per key; resolves with
   * whether this call applied it (false: it was already applied, by the bus or an earlier call).
   */
  applyLocally(notice: RevocationNotice): Promise<boolean>;
  /** Resolves when the bus is subscribed and will see every later notice. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

function throwFirst(failures: readonly unknown[]): void {
  const [failure] = failures;
  if (failure !== undefined)
    throw failure instanceof Error ? failure : new Error("revocation handler failed", { cause: failure });
}

/** What every bus does on its own replica: run the handlers, once per key. */
abstract class LocalFirstBus implements RevocationBus {
  protected readonly local = new LocalRevocations();

  abstract publish(notice: RevocationNotice): Promise<void>;
  abstract ready(): Promise<void>;
  abstract close(): Promise<void>;

  onRevoked(handler: RevocationHandler): void {
    this.local.onRevoked(handler);
  }

  async applyLocally(notice: RevocationNotice): Promise<boolean> {
    const { fresh, failures } = await this.local.apply(notice);
    throwFirst(failures);
    return fresh;
  }
}

export class InProcessRevocationBus extends LocalFirstBus {
  async publish(notice: RevocationNotice): Promise<void> {
    throwFirst((await this.local.apply(notice)).failures);
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

export class RedisRevocationBus extends LocalFirstBus {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly waiting = new Map<string, PendingAck>();
  private readonly subscribed: Promise<void>;

  constructor(
    url: string,
    private readonly log: Logger,
    /**
     * Longest `publish` waits for Redis and the other replicas' acks: below the gateway's GRPC_DEADLINE_MS
     * (1.5 s), so a replica that does not answer delays the DELETE, never fails it.
     */
    private readonly ackTimeoutMs = 1_000,
  ) {
    super();
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

  /**
   * Applies the revocation here first, so this replica and its gateways refuse the key whatever Redis does
   * (the index and the watchers' streams see it before anything is published; their acks are awaited
   * alongside the other replicas'). Then sets the marker, publishes, and waits for the acks, for at most
   * `ackTimeoutMs`. Redis failing or not answering is logged, not thrown: the revocation is committed, and the
   * replicas it did not reach apply it from the database (wallet/reconciler.ts).
   */
  async publish(notice: RevocationNotice): Promise<void> {
    const local = this.local.apply(notice);
    const [{ failures }] = await Promise.all([local, this.broadcast(notice)]);
    throwFirst(failures);
  }

  private async broadcast(notice: RevocationNotice): Promise<void> {
    const wire: WireNotice = { ...notice, id: randomUUID() };
    let release = (): void => undefined;
    const acknowledged = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Registered before publishing: acks may arrive before PUBLISH returns its receiver count. This
    // replica's own subscriber receives the notice too; it acks once the local application has settled.
    const pending: PendingAck = { acks: 0, receivers: undefined, done: release };
    this.waiting.set(wire.id, pending);
    let timedOut = false;
    let failed = false;
    const timer = setTimeout(() => {
      timedOut = true;
      release();
    }, this.ackTimeoutMs);
    void Promise.all([
      this.publisher.set(revokedMarkerKey(notice.keyId), "1", "EX", REVOKED_MARKER_TTL_SECONDS),
      this.publisher.publish(REVOCATION_CHANNEL, JSON.stringify(wire)),
    ]).then(
      ([, receivers]) => {
        pending.receivers = receivers;
        if (pending.acks >= receivers) release();
      },
      (error: unknown) => {
        // Not released: the timeout is waited out, as for a replica that does not ack, so the other
        // replicas' database polls (every WALLET_REVOKED_POLL_MS, below the timeout) have normally
        // applied the revocation by the time the DELETE returns.
        this.log.warn(
          { err: error, keyId: notice.keyId },
          "revocation not published on Redis; other replicas apply it from the database",
        );
        failed = true;
      },
    );
    try {
      await acknowledged;
      if (timedOut && !failed) {
        this.log.warn(
          { keyId: notice.keyId, acks: pending.acks, receivers: pending.receivers },
          "revocation not acknowledged by every replica in time; the others apply it from the database",
        );
      }
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
      void this.local
        .apply({ keyId: parsed.keyId, keyHash: parsed.keyHash })
        .then(({ failures }) => {
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

  /** Quits gracefully when Redis answers within the ack timeout; disconnects either way. */
  async close(): Promise<void> {
    this.subscriber.disconnect();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.publisher.quit().catch(() => undefined),
      new Promise((resolve) => {
        timer = setTimeout(resolve, this.ackTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
    this.publisher.disconnect();
  }
}
