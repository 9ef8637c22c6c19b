// The webhook dispatcher (docs/webhooks.md): turns outbox events into deliveries, one per event and webhook
// key of the account's user (fan-out), and works through the due ones. Each key has its own lane: its
// deliveries go one at a time, in sequence order, so a slow or dead receiver only ever delays itself, while
// lanes of different keys run side by side. A failed attempt ends its lane, and keys whose last attempt failed
// ("suspect") hold at most half of the lanes: dead receivers, however many, never take every lane from the
// healthy ones. Every attempt is recorded; failures are retried on the schedule
// (with jitter, honouring Retry-After on 429/503), a 410 Gone disables the key's webhook, and a key the wallet
// no longer lists (revoked, expired) or whose expiry has come gets nothing more. Several engines may dispatch:
// claims are leased, and a key's lane runs in one engine at a time (WebhookStore.claimDue).
import { randomUUID } from "node:crypto";
import { errorText } from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
import { envelopeJson, signedHeaders } from "./envelope.js";
import { DEFAULT_SCHEDULE_MS, nextStep, type Outcome } from "./retry.js";
import type { ClaimedDelivery, NewDelivery, WebhookStore } from "./store.js";
import type { KeyDirectory, RevocationGuard, WebhookTarget } from "./targets.js";
import type { Send } from "./transport.js";

export interface DispatcherMetrics {
  delivered(outcome: Outcome, count?: number): void;
  attempt(seconds: number, outcome: Outcome): void;
}

/** Why deliveries of a key the wallet no longer lists end. */
const NOT_LISTED = "key revoked, expired or its webhook disabled";

/** How often settled events past retention are pruned. */
const PRUNE_EVERY_MS = 60_000;

/** How long a key whose attempt failed stays suspect without being claimed again (ms). */
const SUSPECT_MEMORY_MS = 24 * 3_600_000;

export interface DispatcherOptions {
  store: Pick<
    WebhookStore,
    "unfanned" | "fanOut" | "claimDue" | "releaseLeases" | "recordAttempt" | "endPendingOfKey" | "prune"
  >;
  /** Settled events (and their deliveries) older than this are deleted; the catch-up endpoint reaches this far. */
  retentionMs?: number;
  keys: KeyDirectory;
  /** Without it, every attempt asks the wallet about its key first. */
  guard?: RevocationGuard;
  send: Send;
  /** Delay before attempt n+1 is schedule[n]; its length is the number of attempts. */
  schedule?: readonly number[];
  /** Wall clock, epoch ms. */
  now?: () => number;
  random?: () => number;
  log: Logger;
  metrics?: DispatcherMetrics;
  /** How often the outbox and the due deliveries are polled. */
  pollMs?: number;
  /** The receiver's deadline (the transport enforces it; leases are sized from it). */
  timeoutMs?: number;
  /**
   * Deliveries claimed per poll, per key, and lanes running at most; at most half of the lanes (at least one)
   * run keys whose last attempt failed.
   */
  claimLimit?: number;
  perKey?: number;
  maxLanes?: number;
  fanOutLimit?: number;
}

/** The items by key, each list in the items' order. */
function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  return groups;
}

export class WebhookDispatcher {
  private readonly lanes = new Map<string, Promise<void>>();
  /**
   * Keys whose last attempt in this dispatcher failed (epoch ms of that attempt), until one succeeds: their
   * lanes are capped at `maxSuspectLanes`, so receivers that time out cannot hold every lane.
   */
  private readonly suspects = new Map<string, number>();
  private readonly maxLanes: number;
  private readonly maxSuspectLanes: number;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;
  private readonly schedule: readonly number[];
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly pollMs: number;
  private readonly perKey: number;
  private readonly leaseMs: number;
  private lastWarning = 0;
  private nextPrune = 0;

  constructor(private readonly options: DispatcherOptions) {
    this.schedule = options.schedule ?? DEFAULT_SCHEDULE_MS;
    if (this.schedule.length === 0) throw new Error("the webhook retry schedule needs at least one attempt");
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.pollMs = options.pollMs ?? 200;
    this.perKey = options.perKey ?? 5;
    this.maxLanes = options.maxLanes ?? 64;
    this.maxSuspectLanes = Math.max(1, Math.floor(this.maxLanes / 2));
    // A lane may spend its whole claim waiting on a dead receiver: the lease covers that and then some.
    this.leaseMs = this.perKey * (options.timeoutMs ?? 10_000) + 30_000;
  }

  start(): void {
    const loop = (): void => {
      if (this.stopped) return;
      this.ticking = this.tick().finally(() => {
        this.ticking = undefined;
        if (!this.stopped) this.timer = setTimeout(loop, this.pollMs);
      });
    };
    this.timer = setTimeout(loop, 0);
  }

  /** Stops polling and waits for the attempts in flight (each bounded by the receiver deadline). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    await Promise.allSettled([...this.lanes.values()]);
  }

  /** One round: fan out new events, then start lanes for due deliveries, now and then prune. Never throws. */
  async tick(): Promise<void> {
    try {
      await this.fanOut();
      await this.claim();
      await this.pruneNowAndThen();
    } catch (error) {
      // The wallet or the database is away: the outbox keeps everything, the next round tries again.
      const at = this.now();
      if (at - this.lastWarning > 10_000) {
        this.lastWarning = at;
        this.options.log.warn({ err: errorText(error) }, "webhook dispatch round failed; retrying");
      }
    }
  }

  /** Waits until every lane started so far has finished (tests). */
  async idle(): Promise<void> {
    while (this.lanes.size > 0) await Promise.allSettled([...this.lanes.values()]);
  }

  private async pruneNowAndThen(): Promise<void> {
    const retention = this.options.retentionMs;
    const at = this.now();
    if (retention === undefined || at < this.nextPrune) return;
    this.nextPrune = at + PRUNE_EVERY_MS;
    // A bounded slice per round: a large first prune never holds the database for long.
    const pruned = await this.options.store.prune(at - retention, 10_000);
    if (pruned > 0) this.options.log.info({ events: pruned }, "pruned settled webhook events past retention");
  }

  private async fanOut(): Promise<void> {
    for (;;) {
      const events = await this.options.store.unfanned(this.options.fanOutLimit ?? 500);
      if (events.length === 0) return;
      const userIds = [...new Set(events.map((event) => event.userId))];
      const targets = await this.options.keys.targets({ userIds });
      const byUser = groupBy(targets, (target) => target.userId);
      const deliveries: NewDelivery[] = [];
      for (const event of events) {
        for (const target of byUser.get(event.userId) ?? []) {
          deliveries.push({
            deliveryId: randomUUID(),
            eventId: event.eventId,
            apiKeyId: target.apiKeyId,
            userId: target.userId,
            url: target.url,
          });
        }
      }
      await this.options.store.fanOut(events, deliveries, this.now());
      if (events.length < (this.options.fanOutLimit ?? 500)) return;
    }
  }

  private async claim(): Promise<void> {
    const free = this.maxLanes - this.lanes.size;
    if (free <= 0 || this.stopped) return;
    this.forgetOldSuspects();
    let suspectSlots = this.maxSuspectLanes;
    for (const keyId of this.lanes.keys()) if (this.suspects.has(keyId)) suspectSlots--;
    const claimedAt = this.now();
    const claimed = await this.claimDue(claimedAt, free, suspectSlots);
    if (claimed.length === 0) return;
    const byKey = await this.admit(
      groupBy(claimed, (delivery) => delivery.apiKeyId),
      free,
      suspectSlots,
      claimedAt,
    );
    if (byKey.size === 0) return;
    // The keys as the wallet sees them now: a revoked or expired key is no longer listed.
    const targets = new Map(
      (await this.options.keys.targets({ keyIds: [...byKey.keys()] })).map((t) => [t.apiKeyId, t] as const),
    );
    for (const [keyId, deliveries] of byKey) {
      const lane = this.runLane(keyId, deliveries, targets.get(keyId), claimedAt + this.leaseMs)
        .catch((error: unknown) => {
          this.options.log.warn({ err: errorText(error), apiKeyId: keyId }, "webhook lane failed; leases will expire");
        })
        .finally(() => {
          this.lanes.delete(keyId);
        });
      this.lanes.set(keyId, lane);
    }
  }

  /**
   * Suspect keys first, only them and only in the suspect lanes free (at most half of the lanes), so healthy
   * traffic never shuts them out; then the healthy keys in every lane left, in a claim that leaves every
   * suspect key out, so failing keys whose deliveries have been due the longest never fill it.
   */
  private async claimDue(claimedAt: number, free: number, suspectSlots: number): Promise<ClaimedDelivery[]> {
    const limit = this.options.claimLimit ?? 200;
    const busy = [...this.lanes.keys()];
    const claimed: ClaimedDelivery[] = [];
    const suspectRoom = Math.min(suspectSlots, free);
    if (suspectRoom > 0 && this.suspects.size > 0) {
      const idle = [...this.suspects.keys()].filter((keyId) => !this.lanes.has(keyId));
      if (idle.length > 0) {
        const room = Math.min(limit, suspectRoom * this.perKey);
        claimed.push(...(await this.options.store.claimDue(claimedAt, room, this.perKey, this.leaseMs, busy, idle)));
      }
    }
    const healthyRoom = free - new Set(claimed.map((delivery) => delivery.apiKeyId)).size;
    if (healthyRoom > 0) {
      const room = Math.min(limit, healthyRoom * this.perKey);
      const skipped = this.suspects.size === 0 ? busy : [...busy, ...this.suspects.keys()];
      claimed.push(...(await this.options.store.claimDue(claimedAt, room, this.perKey, this.leaseMs, skipped)));
    }
    return claimed;
  }

  /**
   * The claimed keys that get a lane. Keys beyond the free lanes (a claim limits deliveries, not keys), and
   * suspect keys beyond the free suspect slots, go back unattempted: they are claimed again at a later poll.
   */
  private async admit(
    byKey: Map<string, ClaimedDelivery[]>,
    free: number,
    suspectSlots: number,
    claimedAt: number,
  ): Promise<Map<string, ClaimedDelivery[]>> {
    const over: string[] = [];
    for (const [keyId, deliveries] of byKey) {
      const suspect = this.suspects.has(keyId);
      if (free > 0 && (!suspect || suspectSlots > 0)) {
        free--;
        if (suspect) suspectSlots--;
        continue;
      }
      for (const delivery of deliveries) over.push(delivery.deliveryId);
      byKey.delete(keyId);
    }
    if (over.length > 0) await this.options.store.releaseLeases(over, claimedAt + this.leaseMs);
    return byKey;
  }

  private async runLane(
    keyId: string,
    deliveries: ClaimedDelivery[],
    target: WebhookTarget | undefined,
    leaseUntil: number,
  ): Promise<void> {
    if (target === undefined) {
      await this.cancelKey(keyId);
      return;
    }
    for (const [i, delivery] of deliveries.entries()) {
      if (this.stopped) {
        // Stopping: the rest of the lane goes back now (the key's lane may start in another engine at once),
        // rather than when the leases run out.
        const rest = deliveries.slice(i).map((d) => d.deliveryId);
        await this.options.store.releaseLeases(rest, leaseUntil);
        return;
      }
      // Expiry is never pushed: the clock decides it, right before the attempt (nothing is awaited in between).
      if (!(await this.stillListed(keyId)) || this.expired(target)) {
        await this.cancelKey(keyId);
        return;
      }
      const outcome = await this.attempt(delivery, target);
      if (outcome === "succeeded") {
        this.suspects.delete(keyId);
        continue;
      }
      if (outcome === "disabled") {
        this.suspects.delete(keyId);
        return;
      }
      // A failed attempt ends the lane: a receiver that times out would hold it for the whole claim. The rest
      // goes back unattempted (still due, in order) and the key counts as suspect until an attempt succeeds.
      this.suspects.set(keyId, this.now());
      await this.options.store.releaseLeases(
        deliveries.slice(i + 1).map((d) => d.deliveryId),
        leaseUntil,
      );
      return;
    }
  }

  /** A key that failed a day ago and was never claimed since (revoked, or nothing more due) is forgotten. */
  private forgetOldSuspects(): void {
    const before = this.now() - SUSPECT_MEMORY_MS;
    for (const [keyId, at] of this.suspects) if (at < before) this.suspects.delete(keyId);
  }

  /** Whether the key has expired by now (the wallet's rule: active while expires_at > now). */
  private expired(target: WebhookTarget): boolean {
    return target.expiresAt !== null && target.expiresAt <= this.now();
  }

  /** The wallet no longer lists the key (or it expired): its pending deliveries end without an attempt. */
  private async cancelKey(keyId: string): Promise<void> {
    this.suspects.delete(keyId);
    const ended = await this.options.store.endPendingOfKey(keyId, "canceled", NOT_LISTED, this.now());
    this.options.metrics?.delivered("canceled", ended);
  }

  /**
   * Whether the key may still receive, judged right before an attempt: from the pushed revocations while their
   * lease holds, else by asking the wallet again (a revocation made while the stream was down completed
   * without this dispatcher's ack).
   */
  private async stillListed(keyId: string): Promise<boolean> {
    const guard = this.options.guard;
    if (guard?.revoked(keyId) === true) return false;
    if (guard?.trusted() === true) return true;
    const targets = await this.options.keys.targets({ keyIds: [keyId] });
    return targets.some((t) => t.apiKeyId === keyId);
  }

  /** One attempt and its outcome ("disabled": the key's webhook was disabled, its lane must stop). */
  private async attempt(delivery: ClaimedDelivery, target: WebhookTarget): Promise<Outcome> {
    const attempt = delivery.attempts + 1;
    const startedAt = this.now();
    const body = envelopeJson(delivery.event, delivery.apiKeyId);
    const headers = signedHeaders(target.secret, delivery.event.eventId, Math.floor(startedAt / 1000), body);
    const result = await this.options.send({ url: delivery.url, headers, body });
    const step = nextStep(result, attempt, this.schedule, this.random);
    // The cause stays with the operator; the delivery log gets the generic `error` (engine/webhooks/transport.ts).
    if (!result.ok && result.detail !== undefined) {
      this.options.log.warn(
        {
          apiKeyId: delivery.apiKeyId,
          deliveryId: delivery.deliveryId,
          attempt,
          error: result.error,
          detail: result.detail,
        },
        "webhook attempt failed",
      );
    }
    this.options.metrics?.attempt(result.latencyMs / 1000, step.outcome);
    await this.options.store.recordAttempt({
      deliveryId: delivery.deliveryId,
      attempt,
      startedAt,
      statusCode: step.statusCode,
      error: step.error,
      latencyMs: result.latencyMs,
      status: step.outcome === "retry" ? "pending" : step.outcome,
      nextAttemptAt: step.nextDelayMs === null ? null : startedAt + result.latencyMs + step.nextDelayMs,
    });
    this.options.metrics?.delivered(step.outcome);
    if (step.outcome !== "disabled") return step.outcome;
    await this.options.keys.disable(delivery.apiKeyId);
    const ended = await this.options.store.endPendingOfKey(
      delivery.apiKeyId,
      "disabled",
      "the receiver answered 410 Gone",
      this.now(),
    );
    this.options.metrics?.delivered("disabled", ended);
    this.options.log.info({ apiKeyId: delivery.apiKeyId }, "webhook disabled: the receiver answered 410 Gone");
    return "disabled";
  }
}
