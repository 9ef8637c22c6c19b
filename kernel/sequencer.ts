// One subscriber's view of an account's event sequence (docs/streaming.md): what it has seen so far (`last`), the
// events committed since then read from the durable log in pages (`fetch`), and the live events pushed as they
// commit, merged into one delivery in sequence order with no gap and no duplicate. The engine uses it between
// the outbox and the shards' commit notices (engine/webhooks/watch.ts), the gateway between ListEvents and the
// engine's WatchAccount stream shared by its sockets (gateway/stream/).
//
// The rules: a live event at or below `last` is dropped (already delivered); the next one (`last + 1`) is
// delivered at once unless a fetch is running; anything else is held and a fetch fills the gap from the log.
// Live events that arrive while a fetch runs are held too, at most `maxHeld` of them: past that they are
// dropped and fetched again (every live event was committed before it was pushed, so the log has it). A gap the
// log does not fill either (a complete read begun after the event past the hole arrived found nothing: events
// pruned by retention) is skipped, so a subscriber never stalls on it.

export interface Sequenced {
  sequence: number;
}

export interface Page<E extends Sequenced> {
  /** Events with a sequence above the one asked for, oldest first. */
  events: readonly E[];
  hasMore: boolean;
}

export interface SequencerOptions<E extends Sequenced> {
  /** The sequence the subscriber has seen (0: none). */
  after: number;
  /** Reads the log after a sequence. */
  fetch: (after: number) => Promise<Page<E>>;
  deliver: (event: E) => void;
  /** A fetch failed: the sequencer stops (its owner ends the subscription). */
  fail: (error: unknown) => void;
  /** Live events held while a fetch runs, at most. */
  maxHeld: number;
}

export class Sequencer<E extends Sequenced> {
  private lastDelivered: number;
  /** Held live events by sequence, each with the number of log reads begun before it arrived. */
  private readonly held = new Map<number, { event: E; reads: number }>();
  /** Log reads begun so far. */
  private reads = 0;
  /** Live events were dropped for room since the last fetch began: fetch again. */
  private dropped = false;
  private fetching = false;
  private stopped = false;

  constructor(private readonly options: SequencerOptions<E>) {
    this.lastDelivered = options.after;
  }

  /** The highest sequence delivered. */
  get last(): number {
    return this.lastDelivered;
  }

  /** Live events held now (bounded by `maxHeld`). */
  get heldCount(): number {
    return this.held.size;
  }

  /** Reads the log from `after` to its end, then delivers live events (held meanwhile) in order. */
  start(): void {
    void this.fill(true);
  }

  /**
   * Reads the log again (now, or once the read in flight ended): events may have been committed without their
   * live notice (a commit that timed out and landed late).
   */
  recheck(): void {
    if (this.stopped) return;
    if (this.fetching) this.dropped = true;
    else void this.fill(true);
  }

  /** Delivers no more; a fetch in flight is ignored when it answers. */
  stop(): void {
    this.stopped = true;
    this.held.clear();
  }

  /** A live event, just committed. */
  live(event: E): void {
    if (this.stopped || event.sequence <= this.lastDelivered) return;
    if (!this.fetching && event.sequence === this.lastDelivered + 1) {
      this.emit(event);
      return;
    }
    if (this.held.size < this.options.maxHeld || this.held.has(event.sequence)) {
      this.held.set(event.sequence, { event, reads: this.reads });
    } else this.dropped = true;
    if (!this.fetching) void this.fill(false);
  }

  private emit(event: E): void {
    this.lastDelivered = event.sequence;
    this.options.deliver(event);
  }

  /** Delivers the held events that follow `last` without a hole; forgets those at or below it. */
  private flush(): void {
    for (const sequence of [...this.held.keys()].sort((a, b) => a - b)) {
      if (sequence <= this.lastDelivered) {
        this.held.delete(sequence);
        continue;
      }
      if (sequence !== this.lastDelivered + 1) return;
      const entry = this.held.get(sequence);
      this.held.delete(sequence);
      if (entry !== undefined) this.emit(entry.event);
      if (this.stopped) return;
    }
  }

  /**
   * The lowest held event arrived before the read that just ended began (so the events before it were committed
   * by then) and that read did not find them: the log does not have them. Delivers it over the hole.
   */
  private skipHole(read: number): void {
    const lowest = Math.min(...this.held.keys());
    const entry = this.held.get(lowest);
    if (entry === undefined || entry.reads >= read) return;
    this.held.delete(lowest);
    this.emit(entry.event);
  }

  /** Reads the log until it is complete and nothing held waits on a hole (`force`: at least one whole read). */
  private async fill(force: boolean): Promise<void> {
    this.fetching = true;
    let mustRead = force;
    try {
      for (;;) {
        this.flush();
        if (this.stopped) return;
        if (!mustRead && this.held.size === 0 && !this.dropped) return;
        const read = ++this.reads;
        const progressed = await this.readToEnd();
        if (this.stopped) return;
        mustRead = false;
        this.flush();
        if (!progressed && this.held.size > 0 && !this.dropped) this.skipHole(read);
      }
    } catch (error) {
      if (!this.stopped) {
        this.stopped = true;
        this.held.clear();
        this.options.fail(error);
      }
    } finally {
      this.fetching = false;
    }
  }

  /** Pages through the log from `last` to its end; true when it delivered anything. */
  private async readToEnd(): Promise<boolean> {
    this.dropped = false;
    let progressed = false;
    for (;;) {
      const page = await this.options.fetch(this.lastDelivered);
      if (this.stopped) return progressed;
      for (const event of page.events) {
        if (event.sequence <= this.lastDelivered) continue;
        this.emit(event);
        progressed = true;
        if (this.stopped) return progressed;
      }
      if (!page.hasMore || page.events.length === 0) return progressed;
    }
  }
}
