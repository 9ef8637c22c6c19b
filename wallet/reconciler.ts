// Every wallet replica reads the recent revocations from the database every `pollMs` and applies the ones it
// has not applied yet (its index, its key watchers: the gateways' caches). The Redis bus is at most once: a
// replica whose subscriber was disconnected, or that ran while Redis was down, misses the notice; this poll
// is what bounds how long such a replica can still admit a revoked key (docs/runbook.md, "Revocation").
//
// `revoked_at` is the revoking replica's clock, written before its statement commits, so rows do not become
// visible in `revoked_at` order. Each poll therefore reads every revocation newer than the newest one seen so
// far minus `overlapMs`; rows applied before are skipped (the bus remembers them). A revocation is missed only
// if it became visible more than `overlapMs` after a newer one was seen: a revoke statement is bounded by
// WALLET_DB_TIMEOUT_MS, so `overlapMs` must exceed that plus the clock skew between wallet hosts.
import type { Logger } from "../kernel/log.js";
import type { RevocationNotice } from "./revocation-bus.js";

export interface RevokedRow {
  id: string;
  keyHash: Buffer;
  revokedAt: Date;
}

export interface ReconcilerDeps {
  /** Revocations with `revoked_at` after `since`, oldest first. */
  read: (since: Date) => Promise<RevokedRow[]>;
  /** Applies a revocation on this replica once per key; resolves true when this call applied it. */
  apply: (notice: RevocationNotice) => Promise<boolean>;
  pollMs: number;
  overlapMs: number;
  /** Wall-clock Unix milliseconds (the clock `revoked_at` is written with). */
  now: () => number;
  log: Logger;
  /** A revocation this replica learnt from the database, not from the bus (a message the bus lost). */
  onReconciled?: () => void;
}

export class RevocationReconciler {
  /** Newest `revoked_at` seen (ms), never ahead of this replica's clock; starts when the replica starts. */
  private newest: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private failing = false;

  constructor(private readonly deps: ReconcilerDeps) {
    // Set before the index is loaded: a revocation committed while it loads is read by the first poll.
    this.newest = deps.now();
  }

  /** Polls every `pollMs` (the next poll is scheduled when one ends, so polls never overlap). */
  start(): void {
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.poll().finally(() => {
        this.running = undefined;
        this.schedule();
      });
    }, this.deps.pollMs);
    this.timer.unref();
  }

  /**
   * One poll: reads the recent revocations and starts applying the new ones. The index is updated before
   * this resolves; the watchers' acks are not waited for (a slow gateway must not delay the next poll).
   */
  async poll(): Promise<void> {
    let rows: RevokedRow[];
    try {
      rows = await this.deps.read(new Date(this.newest - this.deps.overlapMs));
    } catch (error) {
      if (!this.failing) this.deps.log.warn({ err: error }, "revocation poll failed; retrying");
      this.failing = true;
      return;
    }
    if (this.failing) this.deps.log.info("revocation poll recovered");
    this.failing = false;
    const now = this.deps.now();
    for (const row of rows) {
      this.newest = Math.max(this.newest, Math.min(row.revokedAt.getTime(), now));
      const notice = { keyId: row.id, keyHash: row.keyHash.toString("base64") };
      this.deps.apply(notice).then(
        (fresh) => {
          if (!fresh) return;
          this.deps.onReconciled?.();
          this.deps.log.info({ keyId: row.id }, "revocation applied from the database (the bus did not deliver it)");
        },
        (error: unknown) => {
          this.deps.log.warn({ err: error, keyId: row.id }, "applying a revocation from the database failed");
        },
      );
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
