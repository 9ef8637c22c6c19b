// The in-memory index that answers ValidateApiKey without touching the database: keys by the hash of their
// public part. Misses fall through to the database once (concurrent misses share one query); revoked hashes
// are remembered as tombstones so a database read that raced a revocation can never re-insert the key.
import type { AllowList } from "../kernel/ip.js";
import { compileAllowList } from "../kernel/ip.js";
import type { Scope } from "../kernel/scopes.js";
import type { KeyRow } from "./store.js";
import { keyAnswers, type KeyAnswers } from "./validation.js";
import { looksLikeKey, sha256Base64 } from "./keys/material.js";

export interface IndexedKey {
  id: string;
  userId: string;
  secretHash: Buffer;
  permissions: readonly Scope[];
  allow: AllowList;
  /** The allow-list as stored, for callers that judge addresses themselves (the gateways' key caches). */
  ipWhitelist: readonly string[];
  expiresAtMs: number | null;
  /** What a validation of this key answers, built once (frozen, like the lists above). */
  answers: KeyAnswers;
}

/** Answers remembered per key: a key is used from few addresses, and a BlockList check costs ~1.5 µs. */
const REMEMBERED_ADDRESSES = 8;
/** Longer strings are not addresses (they answer false anyway) and are not worth remembering. */
const MAX_REMEMBERED_LENGTH = 64;

/** Wraps an allow-list with a small answer cache; the list of a key never changes, so answers never go stale. */
function remembering(list: AllowList): AllowList {
  const answers = new Map<string, boolean>();
  return {
    allows(address: string): boolean {
      const known = answers.get(address);
      if (known !== undefined) return known;
      const answer = list.allows(address);
      if (address.length <= MAX_REMEMBERED_LENGTH) {
        if (answers.size >= REMEMBERED_ADDRESSES) {
          const oldest = answers.keys().next().value;
          if (oldest !== undefined) answers.delete(oldest);
        }
        answers.set(address, answer);
      }
      return answer;
    },
  };
}

export function toIndexed(row: KeyRow): IndexedKey {
  const list = compileAllowList(row.ipWhitelist);
  // Frozen copies: the answers (and the response bytes encoded from them) must never see a list change.
  const permissions = Object.freeze([...row.permissions]);
  const ipWhitelist = Object.freeze([...row.ipWhitelist]);
  const expiresAtMs = row.expiresAt?.getTime() ?? null;
  return {
    id: row.id,
    userId: row.userId,
    secretHash: row.secretHash,
    permissions,
    allow: row.ipWhitelist.length === 0 ? list : remembering(list),
    ipWhitelist,
    expiresAtMs,
    answers: keyAnswers({ id: row.id, userId: row.userId, permissions, ipWhitelist, expiresAtMs }),
  };
}

/** How often (at most) entering a key also drops the expired ones. */
export const SWEEP_EVERY_MS = 10_000;

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
  /**
   * Indexed keys by their public part (not a secret), for keys a validation has found: a repeat validation
   * then hashes only the secret. `publicKeyOf` maps a hash id back, so a revocation or a replacement removes
   * the entry with the key it names.
   */
  private readonly byPublicKey = new Map<string, IndexedKey>();
  private readonly publicKeyOf = new Map<string, string>();
  private readonly inFlight = new Map<string, Promise<IndexedKey | undefined>>();
  private readonly tombstones = new BoundedSet(200_000);
  private readonly misses = new BoundedSet(100_000);
  private readonly negativeTtlMs: number;
  /** Indexed keys that expire, by hash id: what the sweep looks at (keys without an expiry never leave by it). */
  private readonly expiring = new Map<string, number>();
  private nextSweepAt = 0;

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
    this.forgetPublicKey(id);
    this.index(id, toIndexed(row));
  }

  /**
   * Enters a key, and at most every SWEEP_EVERY_MS drops the keys that have expired: an expired key never
   * validates again (a validation answers it as unknown), so it leaves memory, and entries are added only
   * here, so what the index holds stays bounded by the active keys plus those that expired since the last sweep.
   */
  private index(id: string, indexed: IndexedKey): void {
    this.byHash.set(id, indexed);
    if (indexed.expiresAtMs === null) this.expiring.delete(id);
    else this.expiring.set(id, indexed.expiresAtMs);
    const now = this.options.now();
    if (now >= this.nextSweepAt) {
      this.nextSweepAt = now + SWEEP_EVERY_MS;
      this.sweepExpired(now);
    }
  }

  /** Drops every indexed key whose expiry has passed at `now`. */
  sweepExpired(now: number): void {
    for (const [id, expiresAtMs] of this.expiring) {
      if (expiresAtMs > now) continue;
      this.expiring.delete(id);
      this.byHash.delete(id);
      this.forgetPublicKey(id);
    }
  }

  /** Forgets a revoked key for good. Synchronous: it takes effect before the caller continues. */
  revoke(hash: Buffer): void {
    const id = hash.toString("base64");
    this.byHash.delete(id);
    this.expiring.delete(id);
    this.forgetPublicKey(id);
    this.tombstones.add(id, Number.MAX_SAFE_INTEGER);
  }

  private forgetPublicKey(id: string): void {
    const publicKey = this.publicKeyOf.get(id);
    if (publicKey === undefined) return;
    this.publicKeyOf.delete(id);
    this.byPublicKey.delete(publicKey);
  }

  /**
   * `lookup` by the key itself (its public part, as presented): undefined when it is not well formed, else
   * the entry of its SHA-256. A key found once is then found without hashing (`byPublicKey`).
   */
  lookupKey(key: string): IndexedKey | Promise<IndexedKey | undefined> | undefined {
    const known = this.byPublicKey.get(key);
    if (known !== undefined) return known;
    if (!looksLikeKey(key)) return undefined;
    const id = sha256Base64(key);
    const found = this.lookupBase64(id);
    // Only a synchronous hit is remembered: it is the current entry of `id` at this moment.
    if (found !== undefined && !(found instanceof Promise)) {
      this.byPublicKey.set(key, found);
      this.publicKeyOf.set(id, key);
    }
    return found;
  }

  /** The indexed key, loading it on a miss; the fast path is synchronous. */
  lookup(hash: Buffer): IndexedKey | Promise<IndexedKey | undefined> | undefined {
    return this.lookupBase64(hash.toString("base64"));
  }

  /**
   * `lookup` by the base64 form of the hash (what `sha256Base64` returns), so the hit path allocates no
   * Buffer; one is decoded only to load a miss.
   */
  lookupBase64(id: string): IndexedKey | Promise<IndexedKey | undefined> | undefined {
    const hit = this.byHash.get(id);
    if (hit !== undefined) return hit;
    const now = this.options.now();
    if (this.tombstones.has(id, now) || this.misses.has(id, now)) return undefined;
    let pending = this.inFlight.get(id);
    if (pending === undefined) {
      pending = this.options.load(Buffer.from(id, "base64")).then(
        (row) => {
          this.inFlight.delete(id);
          if (this.tombstones.has(id, this.options.now())) return undefined;
          const now = this.options.now();
          if (row === undefined) {
            this.misses.add(id, now + this.negativeTtlMs);
            return undefined;
          }
          // Expired: it never validates again, so it is remembered as a miss (bounded) and not indexed.
          if (row.expiresAt !== null && row.expiresAt.getTime() <= now) {
            this.misses.add(id, Number.MAX_SAFE_INTEGER);
            return undefined;
          }
          const indexed = toIndexed(row);
          this.index(id, indexed);
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
