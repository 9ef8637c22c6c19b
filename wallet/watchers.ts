// The wallet side of WatchKeys: the gateways' key caches (docs/decisions.md, "Gateway key cache").
//
// A gateway may answer validations from its cache only while it holds a lease: the time it SENT its newest
// ping that the wallet has answered, plus LEASE. Every revocation is pushed to every watcher on the same
// ordered stream as the pongs, so a pong the gateway reads after a revocation can only extend a lease for a
// cache that has already evicted the key. A revocation therefore waits, for each watcher, until that
// watcher acknowledges it, or until the lease it could still be holding has run out: the newest ping the
// wallet had received when it pushed the revocation was sent no later than it arrived, so that lease ends
// no later than (arrival + LEASE). Either way, once `revoked` resolves no gateway can admit the key from
// its cache. Durations are measured on monotonic clocks on both sides.
import * as grpc from "@grpc/grpc-js";
import { internalTokenCheck } from "../kernel/grpc.js";
import type { Logger } from "../kernel/log.js";
import type { WatchKeysEvent } from "../proto/gen/wallet/v1/WatchKeysEvent.js";
import type { WatchKeysRequest__Output } from "../proto/gen/wallet/v1/WatchKeysRequest.js";
import type { RevocationNotice } from "./revocation-bus.js";

/** How the registry talks to one connected gateway: the transport (a gRPC stream, or a test double). */
export interface WatcherLink {
  send(event: WatchKeysEvent): void;
  /** Ends the stream (shutdown); the gateway then stops trusting its cache. */
  end(): void;
}

export interface KeyUseReport {
  keyId: string;
  atMs: number;
}

export interface KeyWatchersDeps {
  /** Lease length the gateways use; must be at least theirs (see `kernel/key-cache.ts`). */
  leaseMs: number;
  /** Monotonic milliseconds. */
  now: () => number;
  onUsed: (uses: readonly KeyUseReport[]) => void;
  log: Logger;
}

interface PendingAck {
  seq: number;
  resolve: () => void;
  timer: NodeJS.Timeout;
}

class Watcher {
  private seq = 0;
  /** Arrival time of the newest ping; -Infinity before the first (no lease can exist yet). */
  private lastPingAt = Number.NEGATIVE_INFINITY;
  private readonly pending: PendingAck[] = [];
  /** Set when the stream ended: revocations can no longer reach it, only outwait its lease. */
  detached = false;

  constructor(
    readonly link: WatcherLink,
    private readonly deps: KeyWatchersDeps,
  ) {}

  onMessage(message: WatchKeysRequest__Output): void {
    switch (message.kind) {
      case "ping":
        this.lastPingAt = this.deps.now();
        this.link.send({ pong: message.ping ?? 0 });
        return;
      case "ack":
        this.acknowledge(message.ack ?? 0);
        return;
      case "used":
        this.deps.onUsed((message.used?.uses ?? []).map((use) => ({ keyId: use.key_id, atMs: use.at_ms })));
        return;
      default:
        return;
    }
  }

  /** Pushes the revocation; resolves on the watcher's ack or when its possible lease has run out. */
  revoke(notice: RevocationNotice): Promise<void> {
    const seq = ++this.seq;
    const leaseEnd = this.lastPingAt + this.deps.leaseMs;
    const wait = leaseEnd - this.deps.now();
    if (!this.detached) this.link.send({ revoked: { seq, key_id: notice.keyId, key_hash: notice.keyHash } });
    if (wait <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const entry: PendingAck = {
        seq,
        resolve,
        timer: setTimeout(() => {
          this.settle(entry);
        }, Math.ceil(wait)),
      };
      this.pending.push(entry);
    });
  }

  /** Acks are cumulative: the stream is ordered, so acking `seq` covers every earlier revocation too. */
  private acknowledge(seq: number): void {
    for (const entry of [...this.pending]) if (entry.seq <= seq) this.settle(entry);
  }

  private settle(entry: PendingAck): void {
    const at = this.pending.indexOf(entry);
    if (at === -1) return;
    this.pending.splice(at, 1);
    clearTimeout(entry.timer);
    entry.resolve();
  }

  /**
   * The stream ended, perhaps without the gateway noticing yet: nothing more can be delivered or acked, but
   * the lease it may hold keeps running. Returns how long that lease can still last (ms, ≤ 0 when none).
   */
  detach(): number {
    this.detached = true;
    return this.lastPingAt + this.deps.leaseMs - this.deps.now();
  }
}

export class KeyWatchers {
  private readonly watchers = new Set<Watcher>();

  constructor(private readonly deps: KeyWatchersDeps) {}

  get size(): number {
    return this.watchers.size;
  }

  /** Registers a connected gateway; returns the handlers its transport feeds. */
  attach(link: WatcherLink): { message(request: WatchKeysRequest__Output): void; closed(): void } {
    const watcher = new Watcher(link, this.deps);
    this.watchers.add(watcher);
    this.deps.log.info({ watchers: this.watchers.size }, "key watcher attached");
    return {
      message: (request) => {
        watcher.onMessage(request);
      },
      closed: () => {
        if (!this.watchers.has(watcher) || watcher.detached) return;
        // Kept until its last possible lease has run out, so a revocation meanwhile still outwaits it.
        const remaining = watcher.detach();
        const forget = (): void => {
          this.watchers.delete(watcher);
        };
        if (remaining > 0) setTimeout(forget, Math.ceil(remaining)).unref();
        else forget();
        this.deps.log.info({ watchers: this.watchers.size }, "key watcher detached");
      },
    };
  }

  /** Tells every watcher; resolves when no watcher's cache can still admit the key. */
  async revoked(notice: RevocationNotice): Promise<void> {
    await Promise.all([...this.watchers].map((watcher) => watcher.revoke(notice)));
  }

  /**
   * Shutdown: ends every stream, so each gateway drops its cache. A revocation still waiting keeps waiting
   * for its ack or lease (at most one lease length): a gateway that misses the end keeps its lease that long.
   */
  close(): void {
    for (const watcher of this.watchers) if (!watcher.detached) watcher.link.end();
    this.watchers.clear();
  }
}

/** The gRPC binding: one watcher per WatchKeys stream, internal token required like every other call. */
export function watchKeysHandler(
  watchers: KeyWatchers,
  internalToken: string | undefined,
): grpc.handleBidiStreamingCall<WatchKeysRequest__Output, WatchKeysEvent> {
  const authorized = internalTokenCheck(internalToken);
  return (call) => {
    if (!authorized(call.metadata)) {
      // grpc-js turns an emitted error into the call's status and ends it.
      call.emit("error", { code: grpc.status.UNAUTHENTICATED, details: "internal token required" });
      return;
    }
    const watcher = watchers.attach({
      send(event) {
        if (!call.writableEnded && !call.destroyed) call.write(event);
      },
      end() {
        if (!call.writableEnded && !call.destroyed) call.end();
      },
    });
    call.on("data", (request: WatchKeysRequest__Output) => {
      watcher.message(request);
    });
    const closed = (): void => {
      watcher.closed();
    };
    call.on("end", () => {
      closed();
      call.end();
    });
    call.on("cancelled", closed);
    call.on("error", closed);
    call.on("close", closed);
  };
}
