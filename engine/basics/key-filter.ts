// The filter of an account's forgotten `client_id`s (docs/engine.md, "Idempotency"): a set of their 32-bit
// FNV-1a hashes in an open-addressing table (a Uint32Array, 0 for an empty slot, linear probing in Robin Hood
// order: of two hashes competing for a slot, the one farther from its home slot keeps it, the smaller on a tie). A key that was
// added is always found; a key never added is found only when its hash equals one of an added key (about n / 2^32
// per probe with n keys): the shard then reads the table of spent client_ids once and finds nothing. It grows by
// doubling past 3/4 full, so it costs between 5.3 and 10.7 bytes per forgotten id (none at all before the first).
// Robin Hood order makes the table's layout depend only on the hashes held, not on the order they came in: a
// replay and a restored snapshot build equal tables.
import { fnv1a32 } from "../../kernel/partition.js";

const FIRST_CAPACITY = 16;

/** The slot value of a key: its hash, with 0 (the empty slot) read as 1. */
function hashOf(key: string): number {
  return fnv1a32(key) || 1;
}

export class KeyFilter {
  /** The hashes; made on the first key (most accounts never forget a client_id). */
  private slots: Uint32Array | undefined;
  /** Distinct hashes held. */
  size = 0;

  /** A filter holding these hashes (`hashes()` of another). */
  static fromHashes(hashes: Iterable<number>): KeyFilter {
    const filter = new KeyFilter();
    for (const hash of hashes) filter.addHash(hash);
    return filter;
  }

  /** Adds a key (its hash): `mayHold(key)` answers true from now on. */
  add(key: string): void {
    this.addHash(hashOf(key));
  }

  /** False: the key was never added. True: it was, or another key of the same hash was. */
  mayHold(key: string): boolean {
    return this.slots !== undefined && holds(this.slots, hashOf(key));
  }

  /** The hashes held, in slot order. */
  hashes(): number[] {
    const list: number[] = [];
    if (this.slots !== undefined) for (const hash of this.slots) if (hash !== 0) list.push(hash);
    return list;
  }

  private addHash(hash: number): void {
    if (hash === 0 || !Number.isInteger(hash) || hash < 0 || hash > 0xffffffff) {
      throw new Error(`key filter: ${hash} is not a hash`);
    }
    if (this.slots !== undefined && holds(this.slots, hash)) return;
    let slots = this.slots;
    if (slots === undefined || (this.size + 1) * 4 > slots.length * 3) slots = this.grow();
    place(slots, hash);
    this.size++;
  }

  private grow(): Uint32Array {
    const old = this.slots;
    const slots = new Uint32Array(old === undefined ? FIRST_CAPACITY : old.length * 2);
    if (old !== undefined) for (const hash of old) if (hash !== 0) place(slots, hash);
    this.slots = slots;
    return slots;
  }
}

/** Whether the table holds the hash. */
function holds(slots: Uint32Array, hash: number): boolean {
  const mask = slots.length - 1;
  for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
    const held = slots[slot] as number;
    if (held === hash) return true;
    if (held === 0) return false;
  }
}

/** Puts a hash the table does not hold in Robin Hood order (the table has an empty slot). */
function place(slots: Uint32Array, hash: number): void {
  const mask = slots.length - 1;
  let carried = hash;
  let distance = 0;
  for (let slot = hash & mask; ; slot = (slot + 1) & mask, distance++) {
    const held = slots[slot] as number;
    if (held === 0) {
      slots[slot] = carried;
      return;
    }
    const heldDistance = (slot - (held & mask)) & mask;
    if (heldDistance < distance || (heldDistance === distance && held > carried)) {
      slots[slot] = carried;
      carried = held;
      distance = heldDistance;
    }
  }
}
