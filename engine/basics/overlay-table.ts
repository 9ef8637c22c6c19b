// Copy-on-write tables for a decision's draft of the account state (basics/account-state.ts, `forkState`): the
// writes of one decision over the live Maps, which stay untouched.

/** The part of Map the state uses; a live state holds Maps, a draft holds overlays. */
export interface Table<K, V> extends Iterable<[K, V]> {
  readonly size: number;
  get(key: K): V | undefined;
  has(key: K): boolean;
  set(key: K, value: V): unknown;
  delete(key: K): boolean;
  keys(): Iterable<K>;
  values(): Iterable<V>;
  /** Each entry in order, as Map's: a walk that allocates no list (hot paths read drafts this way). */
  forEach(each: (value: V, key: K) => void): void;
}

/** A deleted slot of a ChangeLog. */
const GONE: unique symbol = Symbol("gone");
/** Past this many slots a ChangeLog indexes its keys (a large price update rewrites many orders). */
const INDEX_FROM = 8;

/**
 * The writes of one decision to one table, with a Map's semantics (insertion order; a deleted key set again
 * goes last; iteration sees writes made meanwhile) over one flat array `[key, value, key, value, …]` with
 * tombstones. A decision writes a handful of keys: a scan comparing with `===` (keys are ids) and one small
 * array cost less than a Map per table per decision; past INDEX_FROM keys an index Map keeps lookups O(1).
 */
class ChangeLog<K, V> {
  private readonly slots: unknown[];
  private index: Map<K, number> | undefined;
  size = 1;

  constructor(key: K, value: V) {
    this.slots = [key, value];
  }

  /** The slot of `key`, or -1. */
  find(key: K): number {
    if (this.index !== undefined) return this.index.get(key) ?? -1;
    const slots = this.slots;
    for (let i = 0; i < slots.length; i += 2) if (slots[i] === key) return i;
    return -1;
  }

  valueAt(slot: number): V {
    return this.slots[slot + 1] as V;
  }

  set(key: K, value: V): void {
    const slot = this.find(key);
    if (slot >= 0) {
      this.slots[slot + 1] = value;
      return;
    }
    this.index?.set(key, this.slots.length);
    this.slots.push(key, value);
    this.size++;
    if (this.index === undefined && this.slots.length > 2 * INDEX_FROM) this.buildIndex();
  }

  delete(key: K): boolean {
    const slot = this.find(key);
    if (slot < 0) return false;
    this.index?.delete(key);
    this.slots[slot] = GONE;
    this.slots[slot + 1] = undefined;
    this.size--;
    return true;
  }

  /** One past the last slot: slots are 0, 2, … below it. */
  get end(): number {
    return this.slots.length;
  }

  /** The key of a slot, or GONE for a deleted one. */
  keyAt(slot: number): K | typeof GONE {
    return this.slots[slot] as K | typeof GONE;
  }

  /** Calls `visit` for each live slot, in insertion order. */
  forEach(visit: (key: K, value: V) => void): void {
    const slots = this.slots;
    for (let i = 0; i < slots.length; i += 2) {
      const key = slots[i];
      if (key !== GONE) visit(key as K, slots[i + 1] as V);
    }
  }

  private buildIndex(): void {
    const index = new Map<K, number>();
    for (let i = 0; i < this.slots.length; i += 2) if (this.slots[i] !== GONE) index.set(this.slots[i] as K, i);
    this.index = index;
  }
}

/**
 * A copy-on-write table over a base: reads fall through to the base, writes and deletes stay here. Iteration
 * follows the base's order with overrides in place, then the new keys (a base key deleted and set again among
 * them, in the order they were set), as a Map would after the same writes.
 */
export class OverlayTable<K, V> implements Table<K, V> {
  private changed: ChangeLog<K, V> | undefined;
  private removed: ChangeLog<K, true> | undefined;

  constructor(private readonly base: Table<K, V>) {}

  get size(): number {
    let size = this.base.size - (this.removed?.size ?? 0);
    const changed = this.changed;
    if (changed === undefined) return size;
    // A walk over the slots (no callback): `size` is read on hot paths (an account's positions, its working orders).
    for (let slot = 0; slot < changed.end; slot += 2) {
      const key = changed.keyAt(slot);
      if (key !== GONE && this.atTheEnd(key)) size++;
    }
    return size;
  }

  get(key: K): V | undefined {
    if (this.changed !== undefined) {
      const slot = this.changed.find(key);
      if (slot >= 0) return this.changed.valueAt(slot);
    }
    if (this.removed !== undefined && this.removed.find(key) >= 0) return undefined;
    return this.base.get(key);
  }

  has(key: K): boolean {
    if (this.changed !== undefined && this.changed.find(key) >= 0) return true;
    if (this.removed !== undefined && this.removed.find(key) >= 0) return false;
    return this.base.has(key);
  }

  set(key: K, value: V): this {
    // A removed base key stays marked removed: set again, it walks among the new keys, not in its old place.
    if (this.changed === undefined) this.changed = new ChangeLog(key, value);
    else this.changed.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    const changed = this.changed?.delete(key) === true;
    if (this.removed !== undefined && this.removed.find(key) >= 0) return changed;
    if (!this.base.has(key)) return changed;
    if (this.removed === undefined) this.removed = new ChangeLog<K, true>(key, true);
    else this.removed.set(key, true);
    return true;
  }

  // Iteration: while the draft has not touched the table (most tables of most decisions), the base's own
  // iterators. Otherwise a list made at once (no generator, no iterator result per step): a decision reads
  // small tables (its positions) several times, and every caller that changes the state while it walks a table
  // collects ids first, so a list taken at the call sees what a live walk would.
  [Symbol.iterator](): Iterator<[K, V]> {
    if (this.changed === undefined && this.removed === undefined) return this.base[Symbol.iterator]();
    const entries: [K, V][] = [];
    this.forEach((value, key) => entries.push([key, value]));
    return entries[Symbol.iterator]();
  }

  keys(): Iterable<K> {
    if (this.changed === undefined && this.removed === undefined) return this.base.keys();
    const keys: K[] = [];
    this.forEach((_value, key) => keys.push(key));
    return keys;
  }

  values(): Iterable<V> {
    if (this.changed === undefined && this.removed === undefined) return this.base.values();
    const values: V[] = [];
    this.forEach((value) => values.push(value));
    return values;
  }

  /** Every entry as a Map would hold it: the base's order with overrides in place, then the new keys. */
  forEach(each: (value: V, key: K) => void): void {
    const changed = this.changed;
    const removed = this.removed;
    if (changed === undefined && removed === undefined) {
      this.base.forEach(each);
      return;
    }
    for (const key of this.base.keys()) {
      if (removed !== undefined && removed.find(key) >= 0) continue;
      const slot = changed === undefined ? -1 : changed.find(key);
      each(slot < 0 || changed === undefined ? (this.base.get(key) as V) : changed.valueAt(slot), key);
    }
    changed?.forEach((key, value) => {
      if (this.atTheEnd(key)) each(value, key);
    });
  }

  /** A written key that walks after the base's: a new one, or a base key deleted and set again. */
  private atTheEnd(key: K): boolean {
    return !this.base.has(key) || (this.removed !== undefined && this.removed.find(key) >= 0);
  }
}
