// The engine's side of the live account stream (docs/streaming.md): each WatchAccount call is one watch, a
// Sequencer (kernel/sequencer.ts) between the committed outbox (read in pages) and the rows the account's shard
// posts as each batch commits. The shard posts rows only while its account has a watch (`WatchSource.watch`),
// so an engine nobody watches pays nothing. A batch of a watched account whose commit failed may still land
// (a commit that timed out): its watches read the outbox again at once and twice more later.
import type { Logger } from "../../kernel/log.js";
import { Sequencer } from "../../kernel/sequencer.js";
import type { OutboxRow } from "../store/journal.js";
import type { OutboxEvent } from "./delivery-log.js";

/** The shards: starts or stops one watch of an account (the shard counts them). */
export interface WatchSource {
  watch(accountId: string, on: boolean): Promise<void>;
}

/** What a watch reads: the owner check, the last sequence and pages of the outbox. */
export interface WatchStore {
  checkOwner(userId: string, accountId: string): Promise<void>;
  lastSequence(accountId: string): Promise<number>;
  listEvents(
    userId: string,
    accountId: string,
    after: number,
    limit: number,
  ): Promise<{ events: OutboxEvent[]; hasMore: boolean }>;
}

export interface AccountWatchesOptions {
  source: WatchSource;
  store: WatchStore;
  log: Logger;
  /** Live events a watch holds while it reads the outbox (more are read again later). */
  maxHeld?: number;
  /** Outbox page size of a watch's reads. */
  pageSize?: number;
  /** Delays (ms) of the extra outbox reads after a failed commit of a watched account. */
  recheckDelaysMs?: readonly number[];
}

export interface WatchHandlers {
  send(event: OutboxEvent): void;
  /** The watch cannot go on (its outbox read failed); it is closed. */
  fail(error: unknown): void;
}

export interface Watch {
  /** The sequence the watch started after. */
  readonly after: number;
  close(): void;
}

/** A live outbox row as the outbox reads it back (`data` is a `json` column: the text as written). */
export function liveEvent(row: OutboxRow): OutboxEvent {
  return {
    eventId: row.eventId,
    type: row.type,
    accountId: row.accountId,
    sequence: row.sequence,
    createdAt: row.at,
    data: row.data,
  };
}

export class AccountWatches {
  private readonly byAccount = new Map<string, Set<Sequencer<OutboxEvent>>>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly options: AccountWatchesOptions) {}

  /** Watches open now. */
  get size(): number {
    let size = 0;
    for (const set of this.byAccount.values()) size += set.size;
    return size;
  }

  /**
   * Opens a watch of the user's account after `after` (from the last committed event when undefined): not_found
   * for someone else's account, engine_unavailable when this engine does not own it.
   */
  async open(userId: string, accountId: string, after: number | undefined, handlers: WatchHandlers): Promise<Watch> {
    const { store, source } = this.options;
    await store.checkOwner(userId, accountId);
    await source.watch(accountId, true);
    let start: number;
    try {
      // Read after the shard took the watch: every event after it reaches the watch live.
      start = after ?? (await store.lastSequence(accountId));
    } catch (error) {
      this.unwatch(accountId);
      throw error;
    }
    const pageSize = this.options.pageSize ?? 1000;
    let closed = false;
    const sequencer: Sequencer<OutboxEvent> = new Sequencer<OutboxEvent>({
      after: start,
      fetch: (from) => store.listEvents(userId, accountId, from, pageSize),
      deliver: (event) => {
        handlers.send(event);
      },
      fail: (error) => {
        close();
        handlers.fail(error);
      },
      maxHeld: this.options.maxHeld ?? 10_000,
    });
    const close = (): void => {
      if (closed) return;
      closed = true;
      sequencer.stop();
      const set = this.byAccount.get(accountId);
      set?.delete(sequencer);
      if (set?.size === 0) this.byAccount.delete(accountId);
      this.unwatch(accountId);
    };
    let set = this.byAccount.get(accountId);
    if (set === undefined) this.byAccount.set(accountId, (set = new Set()));
    set.add(sequencer);
    // Read after `start` even when it is the last committed sequence: an event committed while that was read,
    // whose notice came before this watch was listed, is in the outbox (a live one meanwhile is held).
    sequencer.start();
    return { after: start, close };
  }

  /** Rows a shard committed (watched accounts only), in commit order. */
  committed(rows: readonly OutboxRow[]): void {
    for (const row of rows) {
      const set = this.byAccount.get(row.accountId);
      if (set === undefined) continue;
      const event = liveEvent(row);
      for (const sequencer of set) sequencer.live(event);
    }
  }

  /** A batch of these watched accounts failed to commit: read their outbox again now and later. */
  uncertain(accounts: readonly string[]): void {
    const recheck = (): void => {
      for (const accountId of accounts)
        for (const sequencer of this.byAccount.get(accountId) ?? []) sequencer.recheck();
    };
    recheck();
    for (const delay of this.options.recheckDelaysMs ?? [1_000, 5_000]) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        recheck();
      }, delay);
      timer.unref();
      this.timers.add(timer);
    }
  }

  /** Stops the recheck timers (the watches end with their calls). */
  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private unwatch(accountId: string): void {
    this.options.source.watch(accountId, false).catch((error: unknown) => {
      this.options.log.warn({ err: error, accountId }, "stopping an account watch on its shard failed");
    });
  }
}
