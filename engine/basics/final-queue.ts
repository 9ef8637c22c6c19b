// The queue of an account's final orders awaiting forgetting (accounts/retention.ts): order ids and the times
// they became final, oldest first. Every order that ends is appended, and the forgetting takes from the front,
// so both are array ends: no hash table is written per order (a Map's insert misses the cache on an account the
// shard has not touched for a while, which on a busy shard is every account). Taking a bracket off the queue
// again (a new child joins a final parent) is a scan, and rare.

/** Ids the queue gave up; past this many, and more than half of its slots, the slots are compacted. */
const COMPACT_FROM = 64;

export class FinalQueue {
  /** Order ids from `head`, oldest first; null where an id was taken off the queue. */
  private ids: (string | null)[] = [];
  /** The time each id became final (epoch ms), slot for slot. */
  private ats: number[] = [];
  private head = 0;
  /** Ids queued (taken-off slots not counted). */
  size = 0;

  /** The queue of `entries` ([order id, time] pairs, oldest first), as `entries()` gives them. */
  static from(entries: Iterable<readonly [string, number]>): FinalQueue {
    const queue = new FinalQueue();
    for (const [id, at] of entries) queue.push(id, at);
    return queue;
  }

  /** Appends an id that is not queued (an order becomes final once). */
  push(id: string, at: number): void {
    this.ids.push(id);
    this.ats.push(at);
    this.size++;
  }

  /** Takes `id` off the queue; false when it was not queued. */
  delete(id: string): boolean {
    const slot = this.slotOf(id);
    if (slot < 0) return false;
    this.ids[slot] = null;
    this.size--;
    return true;
  }

  /** When the oldest queued id became final, or undefined when the queue is empty. */
  oldestAt(): number | undefined {
    this.skipGaps();
    return this.head < this.ids.length ? this.ats[this.head] : undefined;
  }

  /** Removes the oldest queued id and returns it (undefined when the queue is empty). */
  shift(): string | undefined {
    this.skipGaps();
    const id = this.ids[this.head];
    if (id === undefined || id === null) return undefined;
    this.head++;
    this.size--;
    if (this.head >= COMPACT_FROM && this.head * 2 >= this.ids.length) this.compact();
    return id;
  }

  /** [order id, time] of every queued id, oldest first. */
  entries(): [string, number][] {
    const entries: [string, number][] = [];
    for (let slot = this.head; slot < this.ids.length; slot++) {
      const id = this.ids[slot];
      if (id !== null && id !== undefined) entries.push([id, this.ats[slot] as number]);
    }
    return entries;
  }

  private slotOf(id: string): number {
    for (let slot = this.head; slot < this.ids.length; slot++) if (this.ids[slot] === id) return slot;
    return -1;
  }

  private skipGaps(): void {
    while (this.head < this.ids.length && this.ids[this.head] === null) this.head++;
  }

  private compact(): void {
    this.ids = this.ids.slice(this.head);
    this.ats = this.ats.slice(this.head);
    this.head = 0;
  }
}
