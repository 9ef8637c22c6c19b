// A shard's time and its wake clock. The time a decision is made at never goes backwards: not within the
// shard, whatever the wall clock does, and not before an event it replayed from the journal.
//
// An account may need a decision although nobody writes to it (a GTD order whose expire_at came). The clock
// keeps each such account's wake time (`core.wakeAt`, asked after every event applied to it) and one timer on
// the earliest; when it fires, a `clock` request joins the mailbox and `core.onClock` decides the accounts
// whose time came, through the same batch, journal and outbox as a price update. No account with a wake time,
// no timer: nothing runs.
import { MAX_TIMER_MS } from "../../kernel/time.js";
import type { ActorCore, CoreTypes } from "./core-contract.js";
import type { ShardResponse } from "./protocol.js";

/** After a clock request that failed (its commit), the next one waits this long (ms): no loop on a dead database. */
export const CLOCK_RETRY_MS = 1_000;

export interface ShardClockOptions<T extends CoreTypes> {
  core: Pick<ActorCore<T>, "wakeAt">;
  /** The raw wall clock (epoch ms). */
  wall: () => number;
  /** Queues a clock request in the shard's mailbox; resolves with its response. */
  request: () => Promise<ShardResponse<T>>;
  log: (level: "warn", message: string, fields: Record<string, unknown>) => void;
}

export class ShardClock<T extends CoreTypes> {
  /**
   * The latest time `now` answered, or of an event replayed from the journal (`core.eventTime`): `now` never
   * answers less, across restarts too.
   */
  private latest = 0;
  /** Accounts with a wake time (`core.wakeAt`, epoch ms); only those (accounts with a GTD order), never all. */
  private readonly wakes = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  /** When the timer fires (Infinity when none is set). */
  private timerAt = Number.POSITIVE_INFINITY;
  /** A clock request is in the mailbox: the timer is set again once it was answered. */
  private queued = false;
  /** No clock request before this (epoch ms): spaces the retries after a failed one. */
  private floor = 0;
  private stopped = false;
  /** A standby's shard notes wake times but decides nothing: no timer until `release`. */
  private held = false;
  private readonly core: Pick<ActorCore<T>, "wakeAt">;
  private readonly wall: () => number;

  constructor(private readonly options: ShardClockOptions<T>) {
    this.core = options.core;
    this.wall = options.wall;
  }

  /** The time a decision is made at: the wall clock, never less than an earlier answer or a replayed event. */
  now(): number {
    return (this.latest = Math.max(this.latest, this.wall()));
  }

  /** The wall clock as it reads (a caller's deadline is a time on it), without the floor `now` keeps. */
  wallTime(): number {
    return this.wall();
  }

  /** The latest time `now` answered or the journal showed, without reading the wall clock. */
  latestTime(): number {
    return this.latest;
  }

  /** A time the journal showed (a replayed event's, a snapshot's): `now` never answers less. */
  saw(at: number): void {
    if (at > this.latest) this.latest = at;
  }

  /** When an evicted account is woken to be decided again at the current market; undefined when none is. */
  retryAt(): number | undefined {
    return this.core.wakeAt === undefined ? undefined : this.wall() + CLOCK_RETRY_MS;
  }

  /** Records the account's wake time after its state changed, and brings the timer forward if it is earlier. */
  note(accountId: string, state: T["state"] | undefined): void {
    if (this.core.wakeAt === undefined) return;
    const at = state === undefined ? undefined : this.core.wakeAt(state);
    if (at === undefined) {
      if (this.wakes.size > 0) this.wakes.delete(accountId);
      return;
    }
    this.noteAt(accountId, at);
  }

  /** `note` for every account (a rebuild); nothing when the core keeps no wake times. */
  noteAll(accounts: Iterable<[string, { state: T["state"] }]>): void {
    if (this.core.wakeAt === undefined) return;
    for (const [id, entry] of accounts) this.note(id, entry.state);
  }

  /**
   * `note` for an account parked at `parkedAt`: only a wake time still to come then is kept. One that had come
   * is what its decision threw on (or passed with it), and deciding it again would throw again.
   */
  noteLater(accountId: string, state: T["state"] | undefined, parkedAt: number): void {
    const at = state === undefined || this.core.wakeAt === undefined ? undefined : this.core.wakeAt(state);
    if (at === undefined || at <= parkedAt) this.drop(accountId);
    else this.noteAt(accountId, at);
  }

  /** Drops the account's wake time unless it is still to come (a parked account keeps a later one). */
  dropUnlessLater(accountId: string): void {
    const at = this.wakes.get(accountId);
    if (at !== undefined && at <= this.latest) this.wakes.delete(accountId);
  }

  noteAt(accountId: string, at: number): void {
    this.wakes.set(accountId, at);
    if (at < this.timerAt) this.arm(at);
  }

  wakeOf(accountId: string): number | undefined {
    return this.wakes.get(accountId);
  }

  drop(accountId: string): void {
    this.wakes.delete(accountId);
  }

  clear(): void {
    this.wakes.clear();
  }

  /** The accounts whose wake time is at or before `now`. */
  due(now: number): string[] {
    const due: string[] = [];
    for (const [accountId, at] of this.wakes) if (at <= now) due.push(accountId);
    return due;
  }

  /** No timer until `release` (a standby's shard, which follows the journal and decides nothing). */
  hold(): void {
    this.held = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  /** The timer runs again, for the earliest wake time noted meanwhile (a wake time already past fires at once). */
  release(): void {
    this.held = false;
    const earliest = this.earliest();
    if (earliest !== undefined) this.arm(earliest);
  }

  /** No timer from now on (the shard stopped). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** The earliest wake time of the shard's accounts (a walk of the accounts that have one), if any. */
  private earliest(): number | undefined {
    let earliest: number | undefined;
    for (const at of this.wakes.values()) if (earliest === undefined || at < earliest) earliest = at;
    return earliest;
  }

  /** Sets the timer for `at` (not before `floor`); none while a clock request is queued. */
  private arm(at: number): void {
    if (this.stopped || this.queued || this.held) return;
    clearTimeout(this.timer);
    const fireAt = Math.max(at, this.floor);
    this.timerAt = fireAt;
    this.timer = setTimeout(
      () => {
        this.fire();
      },
      Math.min(MAX_TIMER_MS, Math.max(0, fireAt - this.wall())),
    );
    // The shard's thread lives as long as its pool; a pending wake must not hold a process open (tests).
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    if (this.stopped) return;
    const earliest = this.earliest();
    if (earliest === undefined) return;
    // A timer may fire a little early (or a long wait went in steps), and wake times may have moved on.
    if (earliest > this.now()) {
      this.arm(earliest);
      return;
    }
    this.queued = true;
    void this.options.request().then((response) => {
      this.queued = false;
      if (response.kind === "failed") {
        this.floor = this.wall() + CLOCK_RETRY_MS;
        this.options.log("warn", "clock request failed; retrying", { err: response.error.message });
      }
      const next = this.earliest();
      if (next !== undefined) this.arm(next);
    });
  }
}
