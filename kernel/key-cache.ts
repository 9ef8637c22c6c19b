// The gateways' key cache (docs/decisions.md, "Gateway key cache"), in the kernel because the engine's webhook
// dispatcher follows revocations through it too (docs/webhooks.md): answers key validations without a
// gRPC hop, and stays exact because the wallet pushes every revocation to it over WatchKeys and waits for
// the ack (or for this cache's lease to run out) before the revocation returns.
//
// The cache is trusted only while the lease runs: LEASE from the send time of the newest ping the wallet
// has answered. A broken stream ends trust at once (the cache is emptied and a new generation starts);
// entries are re-validated at the wallet at least every `ttlMs`. An answer fetched from the wallet is kept
// only when no revocation arrived and no stream change happened while it was in flight (`Ticket`), so an
// answer computed before a revocation can never outlive it here.
import { createHash, timingSafeEqual } from "node:crypto";
import { compileAllowList, type AllowList } from "./ip.js";
import type { Logger } from "./log.js";
import { isScope, satisfies, type Scope } from "./scopes.js";
import type { ValidateApiKeyResponse__Output } from "../proto/gen/wallet/v1/ValidateApiKeyResponse.js";
import type { WatchKeysEvent__Output } from "../proto/gen/wallet/v1/WatchKeysEvent.js";
import type { WatchKeysRequest } from "../proto/gen/wallet/v1/WatchKeysRequest.js";

/** What the cache needs of the wallet stream (a grpc-js duplex stream, or a test double). */
export interface WatchStream {
  write(request: WatchKeysRequest): unknown;
  end(): unknown;
  cancel(): void;
  on(event: "data", listener: (event: WatchKeysEvent__Output) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "end" | "close", listener: () => void): unknown;
}

export interface KeyCacheDeps {
  /** Opens a WatchKeys stream to the wallet. */
  open: () => WatchStream;
  leaseMs: number;
  pingMs: number;
  /** An entry is re-validated at the wallet after this long. */
  ttlMs: number;
  maxEntries: number;
  /** Monotonic milliseconds (leases, ttl). */
  now: () => number;
  /** Wall-clock Unix milliseconds (key expiry, last-used reports). */
  wallNow: () => number;
  /** A revocation pushed by the wallet (the limiter marks the key too, belt and braces). */
  onRevoked: (keyId: string) => void;
  log: Logger;
  /** First reconnect delay after a broken stream; doubles while it keeps failing, up to 16×. */
  retryMs?: number;
}

interface Entry {
  secretDigest: Buffer;
  userId: string;
  keyId: string;
  permissions: readonly Scope[];
  allow: AllowList;
  expiresAtMs: number | null;
  validUntil: number;
}

/** Taken before asking the wallet; the answer may be cached only if the ticket is still current. */
export interface Ticket {
  readonly generation: number;
  readonly revocations: number;
  /**
   * Whether the lease ran when the ticket was taken. Without it the wallet may not have attached this
   * stream yet: a revocation made before the attach would never reach it, and an answer computed before
   * that revocation could arrive after the first pong.
   */
  readonly trusted: boolean;
}

export type Validation = Pick<
  ValidateApiKeyResponse__Output,
  "valid" | "code" | "user_id" | "key_id" | "permissions" | "expires_at_ms"
>;

const sha256 = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest();

/** Pings remembered while unanswered; older ones are forgotten (their pongs can only shorten nothing). */
const MAX_PENDING_PINGS = 64;

export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  /** keyId → cached key strings (a key id has one key; a map keeps eviction cheap). */
  private readonly byKeyId = new Map<string, string>();
  private stream: WatchStream | undefined;
  private generation = 0;
  private revocations = 0;
  private leaseUntil = Number.NEGATIVE_INFINITY;
  private pingSeq = 0;
  private readonly pings = new Map<number, number>();
  private uses = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  /** Consecutive broken streams without a pong in between (backoff and log throttle). */
  private failures = 0;

  constructor(private readonly deps: KeyCacheDeps) {}

  start(): void {
    this.connect();
    this.timer = setInterval(() => {
      this.tick();
    }, this.deps.pingMs);
    this.timer.unref();
  }

  /** True while the lease runs: cached answers may be used. */
  get trusted(): boolean {
    return this.deps.now() < this.leaseUntil;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The cached answer for these credentials, or undefined when the wallet must be asked (no lease, no entry,
   * entry too old, unknown scope). A wrong secret for a cached key is refused here: a key's secret never
   * changes.
   */
  lookup(key: string, secret: string, ip: string, scope: string): Validation | undefined {
    if (!this.trusted) return undefined;
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.validUntil <= this.deps.now()) {
      this.forget(key, entry);
      return undefined;
    }
    if (scope !== "" && !isScope(scope)) return undefined;
    if (!timingSafeEqual(sha256(secret), entry.secretDigest)) return deny("unauthorized");
    const nowMs = this.deps.wallNow();
    if (entry.expiresAtMs !== null && entry.expiresAtMs <= nowMs) {
      this.forget(key, entry);
      return deny("unauthorized");
    }
    this.noteUse(entry.keyId, nowMs);
    if (!entry.allow.allows(ip)) return deny("ip_not_whitelisted", entry);
    if (scope !== "" && !satisfies(entry.permissions, scope)) return deny("permission_denied", entry);
    return {
      valid: true,
      code: "",
      user_id: entry.userId,
      key_id: entry.keyId,
      permissions: entry.permissions as string[],
      expires_at_ms: entry.expiresAtMs ?? 0,
    };
  }

  ticket(): Ticket {
    return { generation: this.generation, revocations: this.revocations, trusted: this.trusted };
  }

  /** Keeps a valid answer from the wallet, unless anything that could make it stale happened meanwhile. */
  remember(ticket: Ticket, key: string, secret: string, answer: ValidateApiKeyResponse__Output): void {
    if (!answer.valid || !ticket.trusted || !this.trusted) return;
    if (ticket.generation !== this.generation || ticket.revocations !== this.revocations) return;
    const permissions = answer.permissions.filter(isScope);
    const existing = this.entries.get(key);
    if (existing !== undefined) this.forget(key, existing);
    while (this.entries.size >= this.deps.maxEntries) {
      const oldest = this.entries.entries().next();
      if (oldest.done === true) break;
      this.forget(oldest.value[0], oldest.value[1]);
    }
    const entry: Entry = {
      secretDigest: sha256(secret),
      userId: answer.user_id,
      keyId: answer.key_id,
      permissions,
      allow: compileAllowList(answer.ip_whitelist),
      expiresAtMs: answer.expires_at_ms === 0 ? null : answer.expires_at_ms,
      validUntil: this.deps.now() + this.deps.ttlMs,
    };
    this.entries.set(key, entry);
    this.byKeyId.set(entry.keyId, key);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.retry);
    this.flushUses();
    this.drop();
    const stream = this.stream;
    this.stream = undefined;
    stream?.end();
    stream?.cancel();
  }

  private connect(): void {
    if (this.closed) return;
    const stream = this.deps.open();
    this.stream = stream;
    this.drop();
    stream.on("data", (event) => {
      if (this.stream === stream) this.onEvent(stream, event);
    });
    const broken = (error?: Error): void => {
      if (this.stream !== stream) return;
      this.stream = undefined;
      this.drop();
      if (this.closed) return;
      if (this.failures === 0) {
        this.deps.log.warn({ err: error }, "key cache stream lost; validating at the wallet until it is back");
      }
      const delay = (this.deps.retryMs ?? 250) * 2 ** Math.min(this.failures, 4);
      this.failures += 1;
      this.retry = setTimeout(() => {
        this.connect();
      }, delay);
      this.retry.unref();
    };
    stream.on("error", broken);
    stream.on("end", () => {
      broken();
    });
    stream.on("close", () => {
      broken();
    });
    this.ping();
  }

  private onEvent(stream: WatchStream, event: WatchKeysEvent__Output): void {
    if (event.kind === "pong") {
      const sentAt = this.pings.get(event.pong ?? -1);
      if (sentAt === undefined) return;
      this.pings.delete(event.pong ?? -1);
      this.failures = 0;
      this.leaseUntil = Math.max(this.leaseUntil, sentAt + this.deps.leaseMs);
      return;
    }
    if (event.kind === "revoked" && event.revoked) {
      const { seq, key_id: keyId } = event.revoked;
      this.revocations += 1;
      const key = this.byKeyId.get(keyId);
      if (key !== undefined) {
        const entry = this.entries.get(key);
        if (entry !== undefined) this.forget(key, entry);
      }
      this.uses.delete(keyId);
      this.deps.onRevoked(keyId);
      stream.write({ ack: seq });
    }
  }

  private tick(): void {
    this.ping();
    this.flushUses();
  }

  private ping(): void {
    const stream = this.stream;
    if (stream === undefined) return;
    const seq = ++this.pingSeq;
    this.pings.set(seq, this.deps.now());
    if (this.pings.size > MAX_PENDING_PINGS) {
      const oldest = this.pings.keys().next();
      if (oldest.done !== true) this.pings.delete(oldest.value);
    }
    stream.write({ ping: seq });
  }

  private noteUse(keyId: string, atMs: number): void {
    this.uses.set(keyId, atMs);
  }

  private flushUses(): void {
    const stream = this.stream;
    if (stream === undefined || this.uses.size === 0) return;
    const batch = [...this.uses].map(([keyId, atMs]) => ({ key_id: keyId, at_ms: atMs }));
    this.uses = new Map();
    stream.write({ used: { uses: batch } });
  }

  /** Forgets every entry and ends trust: a new generation starts. */
  private drop(): void {
    this.generation += 1;
    this.leaseUntil = Number.NEGATIVE_INFINITY;
    this.pings.clear();
    this.entries.clear();
    this.byKeyId.clear();
  }

  private forget(key: string, entry: Entry): void {
    this.entries.delete(key);
    if (this.byKeyId.get(entry.keyId) === key) this.byKeyId.delete(entry.keyId);
  }
}

function deny(code: "unauthorized"): Validation;
function deny(code: "ip_not_whitelisted" | "permission_denied", entry: Entry): Validation;
function deny(code: string, entry?: Entry): Validation {
  return {
    valid: false,
    code,
    user_id: entry?.userId ?? "",
    key_id: entry?.keyId ?? "",
    permissions: [],
    expires_at_ms: 0,
  };
}
