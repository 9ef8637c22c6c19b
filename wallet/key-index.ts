// The in-memory index that answers ValidateApiKey without touching the database: keys by the hash of their
// public part. Misses fall through to the database once (concurrent misses share one query); revoked hashes
// are remembered as tombstones so a database read that raced a revocation can never re-insert the key.
import type { AllowList } from "./keys/ip-allowlist.js";
import { compileAllowList } from "./keys/ip-allowlist.js";
import type { Scope } from "./keys/scopes.js";
import type { KeyRow } from "./store.js";

export interface IndexedKey {
  id: string;
  userId: string;
  secretHash: Buffer;
  permissions: readonly Scope[];
  allow: AllowList;
  expiresAtMs: number | null;
}

export function toIndexed(row: KeyRow): IndexedKey {
  return {
    id: row.id,
    userId: row.userId,
    secretHash: row.secretHash,
    permissions: row.permissions,
    allow: compileAllowList(row.ipWhitelist),
    expiresAtMs: row.expiresAt?.getTime() ?? null,
  };
}

/** A bounded set with insertion-order eviction (enough for tombstones and negative entries). */
class BoundedSet {
  private readonly items = new Map<string, number>();
  constructor(private readonly capacity: number) {}
  add(item: string, untilMs: number): void {
    this.items.delete(item);
    this.items.set(item, untilMs);
    if (this.items.size > this.capacity) {
      const oldest = this.items.keys().next().value;
      if (oldest !== undefined) this.items.delete(oldest);
    }
  }
  has(item: string, nowMs: number): boolean {
    const until = this.items.get(item);
    if (until === undefined) return false;
    if (until < nowMs) {
      this.items.delete(item);
      return false;
    }
    return true;
  }
  delete(item: string): void {
    this.items.delete(item);
  }
}

export interface KeyIndexOptions {
  /** Loads a non-revoked key by hash from the database. */
  load: (hash: Buffer) => Promise<KeyRow | undefined>;
  now: () => number;
  negativeTtlMs?: number;
}

export class KeyIndex {
  private readonly byHash = new Map<string, IndexedKey>();
  private readonly inFlight = new Map<string, Promise<IndexedKey | undefined>>();
  private readonly tombstones = new BoundedSet(200_000);
  private readonly misses = new BoundedSet(100_000);
  private readonly negativeTtlMs: number;

  constructor(private readonly options: KeyIndexOptions) {
    this.negativeTtlMs = options.negativeTtlMs ?? 30_000;
  }

  get size(): number {
    return this.byHash.size;
  }

  /** Adds a key known to be active (just created, or loaded at start). */
  put(hash: Buffer, row: KeyRow): void {
    const id = hash.toString("base64");
    if (this.tombstones.has(id, this.options.now())) return;
    this.misses.delete(id);
    this.byHash.set(id, toIndexed(row));
  }

  /** Forgets a revoked key for good. Synchronous: it takes effect before the caller continues. */
  revoke(hash: Buffer): void {
    const id = hash.toString("base64");
    this.byHash.delete(id);
    this.tombstones.add(id, Number.MAX_SAFE_INTEGER);
  }

  /** The indexed key, loading it on a miss; the fast path is synchronous and allocation-free. */
  lookup(hash: Buffer): IndexedKey | Promise<IndexedKey | undefined> | undefined {
    const id = hash.toString("base64");
    const hit = this.byHash.get(id);
    if (hit !== undefined) return hit;
    const now = this.options.now();
    if (this.tombstones.has(id, now) || this.misses.has(id, now)) return undefined;
    let pending = this.inFlight.get(id);
    if (pending === undefined) {
      pending = this.options.load(hash).then(
        (row) => {
          this.inFlight.delete(id);
          if (this.tombstones.has(id, this.options.now())) return undefined;
          if (row === undefined) {
            this.misses.add(id, this.options.now() + this.negativeTtlMs);
            return undefined;
          }
          const indexed = toIndexed(row);
          this.byHash.set(id, indexed);
          return indexed;
        },
        (error: unknown) => {
          this.inFlight.delete(id);
          throw error;
        },
      );
      this.inFlight.set(id, pending);
    }
    return pending;
  }
}
