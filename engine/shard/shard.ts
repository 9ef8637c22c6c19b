// One shard: the accounts of its partitions in memory, a FIFO mailbox, and group commit. A batch is decided
// in arrival order (each command sees the events of the ones before it), journaled in one transaction, and
// only then answered. A failed commit answers the whole batch with engine_error (engine_unavailable when the
// database did not answer in time or could not be reached) and evicts the accounts it touched; they are
// reloaded from the journal before they are used again, so no uncommitted event survives. A commit that timed
// out may still land on the server: the reload then finds its events, and a batch decided before it landed
// collides with it on (account_id, seq) and is refused whole, so nothing is applied twice.
//
// The clock: an account may need a decision although nobody writes to it (a GTD order whose expire_at came).
// The shard keeps each such account's wake time (`core.wakeAt`, asked after every event applied to it) and one
// timer on the earliest; when it fires, a `clock` request joins the mailbox and `core.onClock` decides the
// accounts whose time came, through the same batch, journal and outbox as a price update. No account with a
// wake time, no timer: nothing runs.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { threadId } from "node:worker_threads";
import { isDatabaseUnavailable } from "../../kernel/db-deadline.js";
import { ServiceError, errorText } from "../../kernel/errors.js";
import type {
  EventRow,
  NewAccountRow,
  OutboxRow,
  ReadCounts,
  SnapshotRow,
  StoredEvent,
  StoredSnapshot,
} from "../store/journal.js";
import { isDuplicateSeq } from "../store/journal.js";
import { isFenced } from "../store/leases.js";
import type { ActorCore, CoreTypes, DecideContext } from "./actor.js";
import { BatchStatsCounter, type BatchStats } from "./batch-stats.js";
import { idInPartition, mintIdInPartition, partitionOf, partitionsOfShard } from "../../kernel/partition.js";
import type {
  Address,
  ClockRequest,
  MailboxRequest,
  ShardNotice,
  ShardRequest,
  ShardResponse,
  WireError,
} from "./protocol.js";
import { MAX_TIMER_MS } from "../../kernel/time.js";
import { endSpan } from "../../kernel/tracing.js";
import { endShardSpan, startCommitSpan, startDecideSpan } from "./tracing.js";

/** What a shard needs of the journal (engine/store/journal.ts in production). */
export interface ShardJournal {
  append(accounts: readonly NewAccountRow[], events: readonly EventRow[], outbox: readonly OutboxRow[]): Promise<void>;
  /**
   * Streams the accounts' latest snapshots (`onSnapshot`, when given) and then their events after them (all of
   * them without `onSnapshot`), in (account, seq) order.
   */
  readPartitions(
    partitions: readonly number[],
    onEvent: (event: StoredEvent) => void,
    onSnapshot?: (snapshot: StoredSnapshot) => void,
  ): Promise<ReadCounts>;
  readAccounts(
    accountIds: readonly string[],
    onEvent: (event: StoredEvent) => void,
    onSnapshot?: (snapshot: StoredSnapshot) => void,
  ): Promise<ReadCounts>;
  /** Stores snapshots (a newer one replaces an older one of the same account; an older one changes nothing). */
  saveSnapshots?(rows: readonly SnapshotRow[]): Promise<void>;
}

export interface ShardOptions<T extends CoreTypes> {
  shard: number;
  shards: number;
  /** This engine's index and the number of engines (default 0 of 1): which partitions the shard loads. */
  engine?: number;
  engines?: number;
  core: ActorCore<T>;
  journal: ShardJournal;
  /** The initial market view. */
  market?: T["market"] | undefined;
  /** Most messages decided and committed together. */
  maxBatch: number;
  /** Called once, after the mailbox drained on a `stop` request (closes the database pool). */
  close: () => Promise<void>;
  /** Log lines for the main thread. */
  notify?: (notice: ShardNotice) => void;
  /** Count committed events through the core's `tally` (metrics on). */
  tally?: boolean;
  /**
   * Snapshot an account once this many events were journaled for it since its last snapshot (docs/engine.md,
   * "Snapshots"); never when absent or when the core or the journal cannot.
   */
  snapshotEvery?: number;
  /** The wall clock (epoch ms); the shard never lets it go backwards. */
  now?: () => number;
  nextId?: () => string;
}

interface Entry<State> {
  state: State;
  /** Events journaled for the account (its last seq). */
  seq: number;
  /** Its last outbox sequence (webhook events, numbered per account). */
  outbox: number;
  /** When it entered the shard's memory: market updates decide accounts in this order. */
  readonly ordinal: number;
  /** The seq of its latest snapshot (0: none). */
  snapshotSeq: number;
  /** The size (JSON characters) of the latest snapshot this shard wrote of it (0: none yet). */
  snapshotSize?: number;
  /** JSON characters of the events journaled for it since that snapshot (or since it was loaded). */
  journaledSince?: number;
  /** While it is replayed: the time of its last replayed event (`core.eventTime`). */
  replayedAt?: number | undefined;
}

const NO_SYMBOLS: readonly string[] = Object.freeze([]);

interface Item<T extends CoreTypes> {
  request: MailboxRequest<T>;
  resolve: (response: ShardResponse<T>) => void;
}

/** What deciding a batch collects for the journal. */
interface Pending {
  events: EventRow[];
  outbox: OutboxRow[];
  accounts: NewAccountRow[];
  touched: Set<string>;
  /** The event lists handed to `core.onDecided`, given back through `core.onUndecided` if the batch fails. */
  decided: (readonly unknown[])[];
  /** The account whose events are being applied (so a throwing `apply` names the account it threw for). */
  applying: string | undefined;
  /** The batch's tallies, added to the shard's once it committed. */
  tallies: Map<string, number> | undefined;
}

/** What `takeStats` reports (the `stats` notice without the thread's event-loop figures). */
export interface ShardStats {
  tallies: Record<string, number>;
  states: Record<string, number>;
  batches: BatchStats;
}

function toWireError(error: unknown): WireError {
  if (error instanceof ServiceError) return { code: error.code, message: error.message, fields: error.fields };
  return { code: "engine_error", message: error instanceof Error ? error.message : String(error), fields: {} };
}

function failed(requestId: number, error: WireError): ShardResponse<never> {
  return { kind: "failed", requestId, error };
}

const STOPPED: WireError = { code: "engine_error", message: "shard stopped", fields: {} };

/** After a clock request that failed (its commit), the next one waits this long (ms): no loop on a dead database. */
const CLOCK_RETRY_MS = 1_000;

const nextMacrotask = (): Promise<void> =>
  new Promise((resolve) => {
    setImmediate(resolve);
  });

export class Shard<T extends CoreTypes> {
  private readonly accounts = new Map<string, Entry<T["state"]>>();
  /**
   * Ids made addressable by events (`core.keys`) → their account. Ids never move; an id leaves when the core
   * forgets its order (`core.forget`).
   */
  private readonly byKey = new Map<string, string>();
  /** symbol → the accounts whose `core.symbolsOf` names it (market updates visit only those). */
  private readonly bySymbol = new Map<string, Set<string>>();
  /** account → the symbols it is listed under in `bySymbol`. */
  private readonly interests = new Map<string, readonly string[]>();
  private ordinals = 0;
  /** The snapshot writes in flight (a stop waits for them before it closes the pool). */
  private snapshotWrites: Promise<void> = Promise.resolve();
  /** Accounts whose in-memory state may differ from the journal: reloaded before the next batch. */
  private readonly stale = new Set<string>();
  /**
   * Accounts whose events the core threw applying: the clock leaves them alone (no retry, and not their own
   * wake time either) until a command or a price decides them again.
   */
  private readonly parked = new Set<string>();
  private mailbox: Item<T>[] = [];
  private draining = false;
  private rebuilt: ReadCounts | undefined;
  private stopped = false;
  private market: T["market"] | undefined;
  private readonly core: ActorCore<T>;
  /** Committed tallies since the last `takeStats`; undefined when not counting. */
  private tallies: Map<string, number> | undefined;
  /** Batch figures since the last `takeStats` (a few additions per batch: always counted). */
  private readonly batchStats = new BatchStatsCounter();
  private readonly now: () => number;
  private readonly nextId: () => string;
  /** One id minter per partition, made on first use: a decision's context then allocates no closure. */
  private readonly minters: (() => string)[] = [];
  /**
   * The latest time `now` answered, or of an event replayed from the journal (`core.eventTime`): `now` never
   * answers less, across restarts too.
   */
  private lastNow = 0;
  /** The raw wall clock (`now` is it, never decreasing). */
  private readonly clock: () => number;
  /** Accounts with a wake time (`core.wakeAt`, epoch ms); only those (accounts with a GTD order), never all. */
  private readonly wakes = new Map<string, number>();
  private clockTimer: NodeJS.Timeout | undefined;
  /** When the clock timer fires (Infinity when none is set). */
  private clockAt = Number.POSITIVE_INFINITY;
  /** A clock request is in the mailbox: the timer is set again once it was answered. */
  private clockQueued = false;
  /** No clock request before this (epoch ms): spaces the retries after a failed one. */
  private clockFloor = 0;

  constructor(private readonly options: ShardOptions<T>) {
    this.core = options.core;
    this.market = options.market;
    this.tallies = options.tally === true && options.core.tally !== undefined ? new Map() : undefined;
    const clock = options.now ?? Date.now;
    this.clock = clock;
    // Never decreasing within the shard, whatever the wall clock does, and never before an event it replayed.
    this.now = () => (this.lastNow = Math.max(this.lastNow, clock()));
    this.nextId = options.nextId ?? randomUUID;
  }

  /** Queues a request (synchronously, so arrival order is kept) and resolves with its response. */
  enqueue(request: ShardRequest<T>): Promise<ShardResponse<T>> {
    return this.push(request);
  }

  private push(request: MailboxRequest<T>): Promise<ShardResponse<T>> {
    if (this.stopped) {
      return Promise.resolve(failed(request.requestId, STOPPED));
    }
    return new Promise((resolve) => {
      this.mailbox.push({ request, resolve });
      if (!this.draining) {
        this.draining = true;
        // Start on the next macrotask, so the messages already waiting on the port join the first batch.
        setImmediate(() => {
          void this.drain();
        });
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.mailbox.length > 0) {
      const depth = this.mailbox.length;
      const batch = depth <= this.options.maxBatch ? this.mailbox : this.mailbox.slice(0, this.options.maxBatch);
      this.mailbox = depth <= this.options.maxBatch ? [] : this.mailbox.slice(this.options.maxBatch);
      try {
        await this.runBatch(batch, depth);
      } catch (error) {
        // runBatch answers every item itself; this is a bug in the shell, never leave a caller hanging.
        this.log("error", "shard batch crashed", { err: errorText(error) });
        for (const item of batch) item.resolve(failed(item.request.requestId, toWireError(error)));
      }
      // Let the replies reach the port before the next batch mutates state, and let new messages arrive.
      await nextMacrotask();
    }
    this.draining = false;
  }

  private async runBatch(items: Item<T>[], depth: number): Promise<void> {
    if (this.stopped) {
      this.answerAll(items, new ServiceError("engine_error", {}, "shard stopped"));
      return;
    }
    const responses = await this.decideAndCommit(items, depth);
    const stopAt = items.findIndex((item) => item.request.kind === "stop");
    items.forEach((item, index) => {
      if (index !== stopAt) item.resolve(responses[index] ?? failed(item.request.requestId, STOPPED));
    });
    const stopItem = items[stopAt];
    if (stopItem !== undefined) {
      this.stopped = true;
      clearTimeout(this.clockTimer);
      await this.snapshotWrites;
      try {
        await this.options.close();
      } catch (error) {
        this.log("warn", "closing the shard's database pool failed", { err: errorText(error) });
      }
      stopItem.resolve({ kind: "stopped", requestId: stopItem.request.requestId, shard: this.options.shard });
    }
  }

  /** The responses of a batch, in order; all of them failures when the batch could not be committed. */
  private async decideAndCommit(items: readonly Item<T>[], depth: number): Promise<ShardResponse<T>[]> {
    const failAll = (
      message: string,
      code: "engine_error" | "engine_unavailable" = "engine_error",
    ): ShardResponse<T>[] => {
      const wire = toWireError(new ServiceError(code, {}, message));
      return items.map((item) => failed(item.request.requestId, wire));
    };
    try {
      await this.ensureCurrent();
    } catch (error) {
      this.log("error", "shard cannot load its accounts", { err: errorText(error) });
      this.batchStats.observe(depth, items.length, 0, null, false);
      return isDatabaseUnavailable(error)
        ? failAll("database did not answer: shard cannot load its accounts", "engine_unavailable")
        : failAll("shard cannot load its accounts");
    }

    const pending: Pending = {
      events: [],
      outbox: [],
      accounts: [],
      touched: new Set(),
      decided: [],
      applying: undefined,
      tallies: this.tallies === undefined ? undefined : new Map(),
    };
    const responses: ShardResponse<T>[] = [];
    const stopAt = items.findIndex((item) => item.request.kind === "stop");
    try {
      items.forEach((item, index) => {
        // Nothing after a stop request runs.
        if (stopAt >= 0 && index > stopAt) responses.push(failed(item.request.requestId, STOPPED));
        else {
          const span = startDecideSpan(item.request);
          const response = this.decideItem(item.request, pending, index < items.length - 1);
          if (span !== undefined) endShardSpan(span, response);
          responses.push(response);
        }
      });
    } catch (error) {
      // `apply` threw: the core has a bug and the touched states are half-applied. Nothing is journaled. The
      // other accounts of the batch are retried like after a failed commit; the one it threw for is not, and
      // the clock leaves it alone until its next decision: deciding it again would throw again, every second,
      // failing each batch it joins. It is decided again when a command or a price reaches it.
      const culprit = pending.applying;
      if (culprit !== undefined) pending.touched.delete(culprit);
      this.evict(pending.touched);
      if (culprit !== undefined) this.evict([culprit], false);
      this.undecide(pending);
      this.log("error", "apply failed; batch dropped", { err: errorText(error) });
      this.batchStats.observe(depth, items.length, 0, null, false);
      return failAll("engine fault");
    }

    let commitMs: number | null = null;
    if (pending.events.length > 0 || pending.accounts.length > 0) {
      const started = performance.now();
      const span = startCommitSpan(items, pending.events.length, pending.accounts.length);
      try {
        await this.options.journal.append(pending.accounts, pending.events, pending.outbox);
        commitMs = performance.now() - started;
        span?.end();
      } catch (error) {
        if (span !== undefined) endSpan(span, error);
        this.evict(pending.touched);
        this.undecide(pending);
        // Refused by the lease fence: this engine no longer holds (or has not renewed) a partition of the batch.
        const fenced = isFenced(error);
        // No answer in time (or no connection): the commit may or may not land; the callers may retry.
        const unanswered = !fenced && isDatabaseUnavailable(error);
        const message = fenced
          ? "journal refused the batch: partition lease not held"
          : unanswered
            ? "commit got no answer from the database"
            : isDuplicateSeq(error)
              ? "journal refused a duplicate seq (second owner, or a commit that timed out and landed late)"
              : "commit failed";
        this.log("error", message, { err: errorText(error), events: pending.events.length });
        this.batchStats.observe(depth, items.length, pending.events.length, performance.now() - started, false);
        if (fenced) return failAll("partition lease not held", "engine_unavailable");
        if (unanswered) return failAll("database did not answer the commit", "engine_unavailable");
        return failAll("commit failed");
      }
    }
    if (commitMs !== null) this.snapshot(pending.touched);
    if (pending.tallies !== undefined && this.tallies !== undefined) {
      for (const [key, count] of pending.tallies) this.tallies.set(key, (this.tallies.get(key) ?? 0) + count);
    }
    this.batchStats.observe(depth, items.length, pending.events.length, commitMs, true);
    return responses;
  }

  /** Decides one message; `copy` when later messages of the batch may still mutate what the answer points to. */
  private decideItem(request: MailboxRequest<T>, pending: Pending, copy: boolean): ShardResponse<T> {
    const requestId = request.requestId;
    switch (request.kind) {
      case "start":
        return {
          kind: "started",
          requestId,
          shard: this.options.shard,
          threadId,
          accounts: this.accounts.size,
          events: this.rebuilt?.events ?? 0,
        };
      case "stop":
        return { kind: "stopped", requestId, shard: this.options.shard };
      case "query": {
        try {
          const accountId = this.resolve(request.to);
          const result = this.core.query(this.accounts.get(accountId)?.state, request.query, {
            now: this.now(),
            market: this.market,
          });
          return { kind: "queryResult", requestId, result: copy ? structuredClone(result) : result };
        } catch (error) {
          return failed(requestId, toWireError(error));
        }
      }
      case "command": {
        let accountId: string;
        let entry: Entry<T["state"]> | undefined;
        let events: T["event"][];
        let rows: string[];
        let reply: T["reply"];
        try {
          accountId = this.resolve(request.to);
          entry = this.accounts.get(accountId);
          const decision = this.core.decide(entry?.state, request.command, this.context(accountId));
          events = decision.events;
          // Serialised now: a later event of the batch may mutate objects this one points to.
          rows = events.map((event) => JSON.stringify(event));
          reply = copy ? structuredClone(decision.reply) : decision.reply;
        } catch (error) {
          return failed(requestId, toWireError(error));
        }
        this.applyEvents(accountId, entry, events, rows, pending);
        return { kind: "commandReply", requestId, reply };
      }
      case "market": {
        this.market =
          this.core.updateMarket === undefined
            ? request.update
            : this.core.updateMarket(this.market, request.update, this.now());
        let events = 0;
        let faults = 0;
        const onMarket = this.core.onMarket?.bind(this.core);
        const visited = onMarket === undefined ? [] : this.marketAccounts(request.update);
        if (onMarket !== undefined) {
          for (const [accountId, entry] of visited) {
            const produced = this.decideAccount(accountId, entry, pending, "onMarket", (ctx) =>
              onMarket(entry.state, request.update, ctx),
            );
            if (produced === undefined) faults++;
            else events += produced;
          }
        }
        return {
          kind: "marketApplied",
          requestId,
          shard: this.options.shard,
          accounts: visited.length,
          events,
          faults,
        };
      }
      case "clock":
        return this.decideClock(request, pending);
    }
  }

  /**
   * The accounts a market update is decided for, in the order they entered memory: those listed under one of its
   * symbols, or all of them when the core does not route (no `symbolsOf`/`marketSymbols`, or an update for all).
   */
  private marketAccounts(update: T["update"]): [string, Entry<T["state"]>][] {
    const symbols = this.core.symbolsOf === undefined ? undefined : this.core.marketSymbols?.(update);
    if (symbols === undefined) return [...this.accounts];
    const ids = new Set<string>();
    for (const symbol of symbols) {
      const listed = this.bySymbol.get(symbol);
      if (listed !== undefined) for (const id of listed) ids.add(id);
    }
    const visited: [string, Entry<T["state"]>][] = [];
    for (const id of ids) {
      const entry = this.accounts.get(id);
      if (entry !== undefined) visited.push([id, entry]);
    }
    if (visited.length > 1) visited.sort((a, b) => a[1].ordinal - b[1].ordinal);
    return visited;
  }

  /** Lists the account under the symbols `core.symbolsOf` names for its state now (none when it left memory). */
  private noteInterests(accountId: string, state: T["state"] | undefined): void {
    if (this.core.symbolsOf === undefined) return;
    const before = this.interests.get(accountId) ?? NO_SYMBOLS;
    const now = state === undefined ? NO_SYMBOLS : [...this.core.symbolsOf(state)];
    if (now.length === before.length && now.every((symbol) => before.includes(symbol))) return;
    for (const symbol of before) {
      if (now.includes(symbol)) continue;
      const listed = this.bySymbol.get(symbol);
      listed?.delete(accountId);
      if (listed?.size === 0) this.bySymbol.delete(symbol);
    }
    for (const symbol of now) {
      if (before.includes(symbol)) continue;
      let listed = this.bySymbol.get(symbol);
      if (listed === undefined) this.bySymbol.set(symbol, (listed = new Set()));
      listed.add(accountId);
    }
    if (now.length === 0) this.interests.delete(accountId);
    else this.interests.set(accountId, now);
  }

  /** The accounts whose wake time came: `core.onClock` for each, applied like a market update's events. */
  private decideClock(request: ClockRequest, pending: Pending): ShardResponse<T> {
    const now = this.now();
    const due: string[] = [];
    for (const [accountId, at] of this.wakes) if (at <= now) due.push(accountId);
    let events = 0;
    let faults = 0;
    const onClock = this.core.onClock?.bind(this.core);
    for (const accountId of due) {
      const entry = this.accounts.get(accountId);
      if (entry === undefined || onClock === undefined) {
        this.wakes.delete(accountId);
        continue;
      }
      const produced = this.decideAccount(accountId, entry, pending, "onClock", (ctx) => onClock(entry.state, ctx));
      if (produced === undefined) {
        faults++;
        this.wakes.delete(accountId);
        continue;
      }
      events += produced;
      // Its own wake time again (a retry after a failed commit may have stood in for a later one); still due
      // after its decision (the core had nothing to do): forgotten until its next event, never a loop.
      const own = this.core.wakeAt?.(entry.state);
      if (own === undefined || own <= now) this.wakes.delete(accountId);
      else this.noteWakeAt(accountId, own);
    }
    return {
      kind: "marketApplied",
      requestId: request.requestId,
      shard: this.options.shard,
      accounts: due.length,
      events,
      faults,
    };
  }

  /**
   * One account's part of a market update or a clock tick: decides, serialises and applies its events. Returns
   * how many events it applied, or undefined when the core threw (logged; the account is left as it was).
   */
  private decideAccount(
    accountId: string,
    entry: Entry<T["state"]>,
    pending: Pending,
    hook: "onMarket" | "onClock",
    decide: (ctx: DecideContext<T["market"]>) => T["event"][],
  ): number | undefined {
    let produced: T["event"][];
    let rows: string[];
    try {
      produced = decide(this.context(accountId));
      rows = produced.map((event) => JSON.stringify(event));
    } catch (error) {
      this.log("error", `${hook} failed for an account`, { accountId, err: errorText(error) });
      return undefined;
    }
    this.applyEvents(accountId, entry, produced, rows, pending);
    return produced.length;
  }

  /** Records the account's wake time after its state changed, and brings the timer forward if it is earlier. */
  private noteWake(accountId: string, state: T["state"] | undefined): void {
    if (this.core.wakeAt === undefined) return;
    const at = state === undefined ? undefined : this.core.wakeAt(state);
    if (at === undefined) {
      if (this.wakes.size > 0) this.wakes.delete(accountId);
      return;
    }
    this.noteWakeAt(accountId, at);
  }

  private noteWakeAt(accountId: string, at: number): void {
    this.wakes.set(accountId, at);
    if (at < this.clockAt) this.armClock(at);
  }

  /** The earliest wake time of the shard's accounts (a walk of the accounts that have one), if any. */
  private earliestWake(): number | undefined {
    let earliest: number | undefined;
    for (const at of this.wakes.values()) if (earliest === undefined || at < earliest) earliest = at;
    return earliest;
  }

  /** Sets the clock timer for `at` (not before `clockFloor`); none while a clock request is queued. */
  private armClock(at: number): void {
    if (this.stopped || this.clockQueued) return;
    clearTimeout(this.clockTimer);
    const fireAt = Math.max(at, this.clockFloor);
    this.clockAt = fireAt;
    this.clockTimer = setTimeout(
      () => {
        this.onClockTimer();
      },
      Math.min(MAX_TIMER_MS, Math.max(0, fireAt - this.clock())),
    );
    // The shard's thread lives as long as its pool; a pending wake must not hold a process open (tests).
    this.clockTimer.unref();
  }

  private onClockTimer(): void {
    this.clockTimer = undefined;
    this.clockAt = Number.POSITIVE_INFINITY;
    if (this.stopped) return;
    const earliest = this.earliestWake();
    if (earliest === undefined) return;
    // A timer may fire a little early (or a long wait went in steps), and wake times may have moved on.
    if (earliest > this.now()) {
      this.armClock(earliest);
      return;
    }
    this.clockQueued = true;
    void this.push({ kind: "clock", requestId: 0 }).then((response) => {
      this.clockQueued = false;
      if (response.kind === "failed") {
        this.clockFloor = this.clock() + CLOCK_RETRY_MS;
        this.log("warn", "clock request failed; retrying", { err: response.error.message });
      }
      const next = this.earliestWake();
      if (next !== undefined) this.armClock(next);
    });
  }

  /** Applies decided events to the account at once (the next message sees them) and queues their rows. */
  private applyEvents(
    accountId: string,
    entry: Entry<T["state"]> | undefined,
    events: readonly T["event"][],
    payloads: readonly string[],
    pending: Pending,
  ): void {
    const first = events[0];
    if (first === undefined) return;
    pending.touched.add(accountId);
    pending.applying = accountId;
    if (this.parked.size > 0) this.parked.delete(accountId);
    let seq = entry?.seq ?? 0;
    let outbox = entry?.outbox ?? 0;
    let state = this.core.apply(entry?.state, first);
    this.index(accountId, first);
    const tallies = pending.tallies;
    const count =
      tallies === undefined
        ? undefined
        : (key: string): void => {
            tallies.set(key, (tallies.get(key) ?? 0) + 1);
          };
    if (count !== undefined) this.core.tally?.(state, first, count);
    pending.events.push({ accountId, seq: ++seq, type: first.type, payload: payloads[0] ?? "null" });
    outbox = this.queueOutbox(accountId, state, first, outbox, pending);
    for (let index = 1; index < events.length; index++) {
      const event = events[index] as T["event"];
      state = this.core.apply(state, event);
      this.index(accountId, event);
      if (count !== undefined) this.core.tally?.(state, event, count);
      pending.events.push({ accountId, seq: ++seq, type: event.type, payload: payloads[index] ?? "null" });
      outbox = this.queueOutbox(accountId, state, event, outbox, pending);
    }
    pending.applying = undefined;
    this.forget(state);
    if (this.core.onDecided !== undefined) {
      this.core.onDecided(this.market, events);
      if (this.core.onUndecided !== undefined && events.length > 0) pending.decided.push(events);
    }
    let size = 0;
    for (const payload of payloads) size += payload.length;
    if (entry === undefined) {
      this.accounts.set(accountId, {
        state,
        seq,
        outbox,
        ordinal: this.ordinals++,
        snapshotSeq: 0,
        journaledSince: size,
      });
      pending.accounts.push({ accountId, userId: this.core.userId(state), partition: partitionOf(accountId) });
    } else {
      entry.state = state;
      entry.seq = seq;
      entry.outbox = outbox;
      entry.journaledSince = (entry.journaledSince ?? 0) + size;
    }
    this.noteWake(accountId, state);
    this.noteInterests(accountId, state);
  }

  /** Renders the outbox entries of an event just applied (right away: later events mutate the state). */
  private queueOutbox(accountId: string, state: T["state"], event: T["event"], last: number, pending: Pending): number {
    const entries = this.core.outbox?.(state, event, this.market);
    if (entries === undefined || entries.length === 0) return last;
    const userId = this.core.userId(state);
    let sequence = last;
    for (const entry of entries) {
      pending.outbox.push({
        accountId,
        sequence: ++sequence,
        eventId: this.nextId(),
        type: entry.type,
        userId,
        at: entry.at,
        data: entry.data,
      });
    }
    return sequence;
  }

  /** Ids minted for an account name its partition (see `idInPartition`). */
  private context(accountId: string): DecideContext<T["market"]> {
    const partition = partitionOf(accountId);
    const nextId = (this.minters[partition] ??=
      this.options.nextId === undefined
        ? () => mintIdInPartition(partition)
        : () => idInPartition(partition, this.nextId()));
    return { now: this.now(), market: this.market, nextId };
  }

  private resolve(to: Address): string {
    if ("accountId" in to) return to.accountId;
    const accountId = this.byKey.get(to.key);
    if (accountId === undefined) throw new ServiceError("not_found");
    return accountId;
  }

  /** Lets the core drop what the account no longer keeps, and unindexes the ids it forgot. */
  private forget(state: T["state"]): void {
    const forgotten = this.core.forget?.(state);
    if (forgotten !== undefined) for (const key of forgotten) this.byKey.delete(key);
  }

  private index(accountId: string, event: T["event"]): void {
    const keys = this.core.keys?.(event);
    if (keys !== undefined) for (const key of keys) this.byKey.set(key, accountId);
  }

  /** Rebuilds the shard on first use, and reloads the accounts of a failed batch. */
  private async ensureCurrent(): Promise<void> {
    if (this.rebuilt === undefined) {
      this.accounts.clear();
      this.stale.clear();
      this.wakes.clear();
      this.bySymbol.clear();
      this.interests.clear();
      const started = performance.now();
      const counts = await this.options.journal.readPartitions(
        partitionsOfShard(this.options.shard, this.options.shards, this.options.engine, this.options.engines),
        (event) => {
          this.replay(event);
        },
        this.restorer(),
      );
      this.endReplay(this.accounts.keys());
      this.rebuilt = counts;
      if (this.core.wakeAt !== undefined) for (const [id, entry] of this.accounts) this.noteWake(id, entry.state);
      for (const [id, entry] of this.accounts) this.noteInterests(id, entry.state);
      this.log("info", "shard rebuilt from the journal", { ...counts, ms: Math.round(performance.now() - started) });
      return;
    }
    if (this.stale.size === 0) return;
    // The events query skips what the snapshots read before it hold: none of ours may land in between.
    await this.snapshotWrites;
    const ids = [...this.stale];
    for (const id of ids) this.accounts.delete(id);
    await this.options.journal.readAccounts(
      ids,
      (event) => {
        this.replay(event);
      },
      this.restorer(),
    );
    this.endReplay(ids);
    this.stale.clear();
    for (const id of ids) {
      this.noteInterests(id, this.accounts.get(id)?.state);
      if (this.parked.has(id)) {
        this.wakes.delete(id);
        continue;
      }
      // The retry its eviction asked for stays, when earlier than the state's own wake time: the reloaded state
      // missed what the failed batch had decided for it (a price update's triggers and fills among them), and
      // `onClock` decides it again at the current market.
      const retry = this.wakes.get(id);
      this.noteWake(id, this.accounts.get(id)?.state);
      const own = this.wakes.get(id);
      if (retry !== undefined && (own === undefined || retry < own)) this.noteWakeAt(id, retry);
    }
  }

  /** Loads snapshots on a rebuild or reload, when the core can restore them. */
  private restorer(): ((snapshot: StoredSnapshot) => void) | undefined {
    const restore = this.core.restore?.bind(this.core);
    if (restore === undefined || this.options.snapshotEvery === undefined) return undefined;
    return (stored) => {
      const state = restore(stored.snapshot);
      // A snapshot the core cannot read (another version) fails the rebuild loudly: the events before it were not
      // read. A change of the snapshot's shape comes with a migration that deletes the old ones.
      if (state === undefined) throw new Error(`snapshot of account ${stored.accountId} cannot be restored`);
      this.accounts.set(stored.accountId, {
        state,
        seq: stored.seq,
        outbox: stored.outbox,
        ordinal: this.ordinals++,
        snapshotSeq: stored.seq,
      });
      if (stored.at > this.lastNow) this.lastNow = stored.at;
      const keys = this.core.keysOf?.(state);
      if (keys !== undefined) for (const key of keys) this.byKey.set(key, stored.accountId);
    };
  }

  /**
   * After a commit: snapshots the touched accounts that passed `snapshotEvery` events since their last one (and
   * as many JSON characters of events as that snapshot had). The
   * state is serialised now, as committed (the next batch mutates it); the write goes on behind the batch's
   * answers, and a failed one only means a longer replay (logged, retried after as many events again).
   */
  private snapshot(touched: Iterable<string>): void {
    const every = this.options.snapshotEvery;
    const save = this.options.journal.saveSnapshots?.bind(this.options.journal);
    const snapshotOf = this.core.snapshot?.bind(this.core);
    if (every === undefined || save === undefined || snapshotOf === undefined) return;
    const rows: SnapshotRow[] = [];
    for (const accountId of touched) {
      const entry = this.accounts.get(accountId);
      if (entry === undefined || entry.seq - entry.snapshotSeq < every) continue;
      // Never more snapshot than journal: a large state is snapshotted once as much was journaled since its last
      // snapshot, so snapshots at most double what is written, and a replay reads at most about a snapshot's
      // worth of events after one.
      if ((entry.journaledSince ?? 0) < (entry.snapshotSize ?? 0)) continue;
      const payload = JSON.stringify(snapshotOf(entry.state));
      rows.push({ accountId, seq: entry.seq, outbox: entry.outbox, at: this.lastNow, payload });
      entry.snapshotSeq = entry.seq;
      entry.snapshotSize = payload.length;
      entry.journaledSince = 0;
    }
    if (rows.length === 0) return;
    const write = save(rows).catch((error: unknown) => {
      this.log("warn", "snapshot write failed", { err: errorText(error), accounts: rows.length });
    });
    this.snapshotWrites = this.snapshotWrites.then(() => write);
  }

  private replay(stored: StoredEvent): void {
    const entry = this.accounts.get(stored.accountId);
    const expected = (entry?.seq ?? 0) + 1;
    if (stored.seq !== expected) {
      throw new Error(`journal of account ${stored.accountId} has seq ${stored.seq} where ${expected} was expected`);
    }
    const event = stored.event as T["event"];
    const at = this.core.eventTime?.(event);
    // The live shard let the core forget after each decision: a replay does where one decision ends (the
    // events of a decision share its time), so it forgets exactly what the live actor forgot.
    if (entry?.replayedAt !== undefined && at !== entry.replayedAt) this.forget(entry.state);
    const state = this.core.apply(entry?.state, event);
    if (at !== undefined && at > this.lastNow) this.lastNow = at;
    this.index(stored.accountId, event);
    const outbox = (entry?.outbox ?? 0) + (this.core.outboxCount?.(state, event) ?? 0);
    if (entry === undefined) {
      this.accounts.set(stored.accountId, {
        state,
        seq: stored.seq,
        outbox,
        ordinal: this.ordinals++,
        snapshotSeq: 0,
        replayedAt: at,
      });
    } else {
      entry.state = state;
      entry.seq = stored.seq;
      entry.outbox = outbox;
      entry.replayedAt = at;
    }
  }

  /** The end of a replay: the last decision of each account replayed ends there. */
  private endReplay(accountIds: Iterable<string>): void {
    for (const id of accountIds) {
      const entry = this.accounts.get(id);
      if (entry?.replayedAt === undefined) continue;
      this.forget(entry.state);
      entry.replayedAt = undefined;
    }
  }

  /** A dropped batch gives back what its decisions took from the market view (book depth), newest first. */
  private undecide(pending: Pending): void {
    for (let i = pending.decided.length - 1; i >= 0; i--) {
      this.core.onUndecided?.(this.market, pending.decided[i] as readonly T["event"][]);
    }
  }

  private evict(accountIds: Iterable<string>, retry = true): void {
    // An evicted account's wake time may be lost with its uncommitted state (an expiry decided, not journaled):
    // a clock request a little later (`retry`) reloads it and decides it at the current market.
    const retryAt = !retry || this.core.wakeAt === undefined ? undefined : this.clock() + CLOCK_RETRY_MS;
    for (const id of accountIds) {
      this.accounts.delete(id);
      this.noteInterests(id, undefined);
      this.stale.add(id);
      if (retryAt !== undefined) this.noteWakeAt(id, retryAt);
      else if (!retry) {
        this.parked.add(id);
        this.wakes.delete(id);
      }
    }
  }

  private answerAll(items: readonly Item<T>[], error: ServiceError): void {
    const wire = toWireError(error);
    for (const item of items) item.resolve(failed(item.request.requestId, wire));
  }

  /**
   * The tallies and batch figures since the last call (then cleared), and the accounts in memory per state
   * now (an account evicted by a failed commit is counted again once the next batch reloaded it).
   */
  takeStats(): ShardStats {
    const tallies: Record<string, number> = {};
    if (this.tallies !== undefined) {
      for (const [key, count] of this.tallies) tallies[key] = count;
      this.tallies.clear();
    }
    const states: Record<string, number> = {};
    const stateOf = this.core.stateOf?.bind(this.core);
    if (stateOf !== undefined) {
      for (const entry of this.accounts.values()) {
        const label = stateOf(entry.state);
        states[label] = (states[label] ?? 0) + 1;
      }
    }
    return { tallies, states, batches: this.batchStats.take() };
  }

  private log(level: "info" | "warn" | "error", message: string, fields: Record<string, unknown>): void {
    this.options.notify?.({ kind: "log", shard: this.options.shard, level, message, fields });
  }
}
