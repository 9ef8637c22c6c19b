// One shard: the accounts of its partitions in memory and a FIFO mailbox. Requests are queued in arrival
// order and taken in batches of at most `maxBatch`, each decided, journaled and answered by the group commit
// (batch.ts); a `stop` request answers the ones before it, closes the shard's database pool and refuses the
// rest. The parts, each a file: the accounts in memory and their indexes (memory.ts), deciding a message
// (decide.ts), the time and the wake clock (clock.ts), eviction, parking and reload (reload.ts), snapshots
// (snapshots.ts), and the figures of the stats notice (stats.ts). A command whose spent key must be looked up
// first ends its batch (batch.ts): the shard reads the key, then decides that command and the ones after it,
// so no later message (of its account or any other) is decided before it.
import { isDatabaseUnavailable } from "../../kernel/db-deadline.js";
import { errorText, ServiceError } from "../../kernel/errors.js";
import type { ActorCore, CoreTypes } from "./core-contract.js";
import { GroupCommit, type BatchItem } from "./batch.js";
import { ShardClock } from "./clock.js";
import { Decider, type RecallNeeded } from "./decide.js";
import { failed, STOPPED, toWireError } from "./failures.js";
import { AccountMemory } from "./memory.js";
import type {
  CatchUpRequest,
  MailboxRequest,
  ShardNotice,
  ShardRequest,
  ShardResponse,
  WireError,
} from "./protocol.js";
import { AccountReload, type ShardJournal } from "./reload.js";
import { ShardSnapshots } from "./snapshots.js";
import { ShardStatsCounter, type ShardStats } from "./stats.js";
import type { JournalLook } from "../store/followed-journal.js";
import type { OutboxRow } from "../store/journal.js";

export type { ShardJournal } from "./reload.js";
export type { ShardStats } from "./stats.js";

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
  /**
   * A standby's shard (docs/scale-out.md, "Standbys"): it follows the journal (`follow` requests) and decides
   * nothing (commands, queries, prices and its clock refused or held) until a `serve` request.
   */
  following?: boolean;
  /** The wall clock (epoch ms); the shard never lets it go backwards. */
  now?: () => number;
  nextId?: () => string;
}

interface Item<T extends CoreTypes> extends BatchItem<T> {
  resolve: (response: ShardResponse<T>) => void;
}

interface CatchUpItem<T extends CoreTypes> {
  request: CatchUpRequest;
  resolve: (response: ShardResponse<T>) => void;
}

const isCatchUp = <T extends CoreTypes>(item: Item<T> | CatchUpItem<T>): item is CatchUpItem<T> =>
  item.request.kind === "follow" || item.request.kind === "serve";

/** How far back (ms) a `follow` look reads before the previous look's time: appends in flight then. */
const LOOK_OVERLAP_MS = 2_000;

/** What a standby's shard refuses until it serves. */
const NOT_SERVING: WireError = {
  code: "engine_not_serving",
  message: "standby: partition leases not held",
  fields: {},
};

const nextMacrotask = (): Promise<void> =>
  new Promise((resolve) => {
    setImmediate(resolve);
  });

export class Shard<T extends CoreTypes> {
  private mailbox: (Item<T> | CatchUpItem<T>)[] = [];
  private draining = false;
  private stopped = false;
  private following: boolean;
  /** The database time of the last `follow` look (the next reads from a little before it). */
  private lookedAt: number | undefined;
  private readonly reload: AccountReload<T>;
  private readonly memory: AccountMemory<T>;
  private readonly clock: ShardClock<T>;
  private readonly snapshots: ShardSnapshots<T>;
  private readonly stats: ShardStatsCounter<T>;
  private readonly commit: GroupCommit<T>;
  /** Accounts whose committed outbox rows are posted (`watch` requests), with how many watches each. */
  private readonly watched = new Map<string, number>();

  constructor(private readonly options: ShardOptions<T>) {
    const { core, journal } = options;
    const log = this.log.bind(this);
    const memory = (this.memory = new AccountMemory(core));
    const clock = (this.clock = new ShardClock({
      core,
      wall: options.now ?? Date.now,
      request: () => this.push({ kind: "clock", requestId: 0 }),
      log,
    }));
    const every = options.snapshotEvery;
    const save = journal.saveSnapshots?.bind(journal);
    const snapshots = (this.snapshots = new ShardSnapshots({ core, save, memory, clock, every, log }));
    const { shard, shards, engine, engines } = options;
    const reload = (this.reload = new AccountReload({
      core,
      journal,
      memory,
      clock,
      snapshots,
      shard,
      shards,
      engine,
      engines,
      log,
    }));
    this.following = options.following === true;
    if (this.following) clock.hold();
    const { market, nextId } = options;
    const decider = new Decider({ shard, core, memory, clock, reload, market, nextId, log });
    this.stats = new ShardStatsCounter(core, options.tally === true);
    const committed = this.postCommitted.bind(this);
    const uncertain = this.postUncertain.bind(this);
    const stats = this.stats;
    this.commit = new GroupCommit({ journal, reload, decider, snapshots, stats, log, committed, uncertain });
  }

  /**
   * Queues a request (synchronously, so arrival order is kept) and resolves with its response. A `watch` is
   * taken at once: every batch whose commit ends from now on posts the account's outbox rows.
   */
  enqueue(request: ShardRequest<T>): Promise<ShardResponse<T>> {
    if (request.kind === "watch") {
      const count = (this.watched.get(request.accountId) ?? 0) + (request.on ? 1 : -1);
      if (count > 0) this.watched.set(request.accountId, count);
      else this.watched.delete(request.accountId);
      return Promise.resolve({ kind: "watched", requestId: request.requestId });
    }
    if (request.kind === "follow" || request.kind === "serve") {
      if (this.stopped) return Promise.resolve(failed(request.requestId, STOPPED));
      return new Promise((resolve) => {
        this.queue({ request, resolve });
      });
    }
    return this.push(request);
  }

  /** The committed outbox rows of watched accounts, as one notice (nothing at all while nobody watches). */
  private postCommitted(rows: readonly OutboxRow[]): void {
    if (this.watched.size === 0) return;
    const watchedRows = rows.filter((row) => this.watched.has(row.accountId));
    if (watchedRows.length === 0) return;
    this.options.notify?.({ kind: "outbox", shard: this.options.shard, rows: watchedRows });
  }

  private postUncertain(accounts: ReadonlySet<string>): void {
    if (this.watched.size === 0) return;
    const watchedAccounts = [...accounts].filter((accountId) => this.watched.has(accountId));
    if (watchedAccounts.length === 0) return;
    this.options.notify?.({ kind: "outboxUncertain", shard: this.options.shard, accounts: watchedAccounts });
  }

  /** The tallies and batch figures since the last call, and the accounts in memory per state now. */
  takeStats(): ShardStats {
    return this.stats.take(this.memory.accounts.values());
  }

  private push(request: MailboxRequest<T>): Promise<ShardResponse<T>> {
    if (this.stopped) {
      return Promise.resolve(failed(request.requestId, STOPPED));
    }
    if (this.following && request.kind !== "start" && request.kind !== "stop") {
      return Promise.resolve(failed(request.requestId, NOT_SERVING));
    }
    return new Promise((resolve) => {
      this.queue({ request, resolve });
    });
  }

  private queue(item: Item<T> | CatchUpItem<T>): void {
    this.mailbox.push(item);
    if (!this.draining) {
      this.draining = true;
      // Start on the next macrotask, so the messages already waiting on the port join the first batch.
      setImmediate(() => {
        void this.drain();
      });
    }
  }

  /** The next batch: the mailbox's head up to `maxBatch` messages, ending before a catch-up. */
  private takeBatch(): Item<T>[] {
    const { maxBatch } = this.options;
    const catchUp = this.mailbox.findIndex(isCatchUp);
    const end = Math.min(catchUp < 0 ? this.mailbox.length : catchUp, maxBatch);
    const batch = end === this.mailbox.length ? this.mailbox : this.mailbox.slice(0, end);
    this.mailbox = end === this.mailbox.length ? [] : this.mailbox.slice(end);
    return batch as Item<T>[];
  }

  private async drain(): Promise<void> {
    while (this.mailbox.length > 0) {
      const depth = this.mailbox.length;
      const head = this.mailbox[0];
      if (head !== undefined && isCatchUp(head)) {
        this.mailbox.shift();
        head.resolve(await this.catchUp(head.request));
        await nextMacrotask();
        continue;
      }
      const batch = this.takeBatch();
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
      for (const item of items) item.resolve(failed(item.request.requestId, STOPPED));
      return;
    }
    const { responses, recall } = await this.commit.run(items, depth);
    const decided = recall === undefined ? items : items.slice(0, responses.length);
    const stopAt = decided.findIndex((item) => item.request.kind === "stop");
    decided.forEach((item, index) => {
      if (index !== stopAt) item.resolve(responses[index] ?? failed(item.request.requestId, STOPPED));
    });
    if (recall !== undefined) await this.recall(recall, items.slice(responses.length));
    const stopItem = decided[stopAt];
    if (stopItem !== undefined) {
      this.stopped = true;
      this.clock.stop();
      await this.snapshots.settled();
      try {
        await this.options.close();
      } catch (error) {
        this.log("warn", "closing the shard's database pool failed", { err: errorText(error) });
      }
      stopItem.resolve({ kind: "stopped", requestId: stopItem.request.requestId, shard: this.options.shard });
    }
  }

  /**
   * A standby's step through the journal: `follow` applies what the cheap look found; `serve` applies what the
   * exact look finds (nothing can be appended to the partitions any more but by this shard, once its engine
   * holds their leases), then fences the journal, runs the clock and serves. A failure answers the request and
   * leaves the shard following (the next look reads again).
   */
  private async catchUp(request: CatchUpRequest): Promise<ShardResponse<T>> {
    const { requestId } = request;
    if (this.stopped) return failed(requestId, STOPPED);
    if (!this.following) {
      // A thread started serving (in place of a failed one, once its runtime served) has nothing to catch up.
      if (request.kind === "serve")
        return { kind: "followed", requestId, shard: this.options.shard, accounts: 0, events: 0, ms: 0 };
      return failed(requestId, { code: "engine_error", message: "shard is not following", fields: {} });
    }
    const journal = this.options.journal;
    const started = performance.now();
    try {
      const partitions = this.reload.partitions();
      const since = this.lookedAt;
      let look: JournalLook | undefined;
      if (request.kind === "serve") look = await journal.latestSeqs?.(partitions, false);
      else if (since !== undefined) look = await journal.changedSince?.(partitions, since - LOOK_OVERLAP_MS);
      // The first look reads every account's latest seq: the rebuild (before it) read up to some time unknown.
      else look = await journal.latestSeqs?.(partitions);
      if (look === undefined) throw new Error("this journal cannot be followed");
      const applied = await this.reload.follow(look.seqs, request.kind !== "serve");
      this.lookedAt = look.at;
      if (request.kind === "serve") {
        if (journal.fenceWith === undefined) throw new Error("this journal cannot be fenced");
        journal.fenceWith(request.fence);
        this.following = false;
        this.clock.release();
      }
      const ms = Math.round(performance.now() - started);
      return { kind: "followed", requestId, shard: this.options.shard, ...applied, ms };
    } catch (error) {
      this.log("warn", `standby: ${request.kind} failed`, { err: errorText(error) });
      const code = isDatabaseUnavailable(error) ? "engine_unavailable" : "engine_error";
      return failed(requestId, { code, message: `${request.kind} failed: ${errorText(error)}`, fields: {} });
    }
  }

  /**
   * Looks up the spent key the first of `rest` needs and puts `rest` back at the head of the mailbox, that one
   * carrying what was found: it is decided next, before anything that came after it. A failed read answers that
   * command alone (engine_unavailable when the database did not answer in time).
   */
  private async recall(recall: RecallNeeded, rest: Item<T>[]): Promise<void> {
    const [first, ...others] = rest;
    if (first === undefined) return;
    try {
      const record = await this.options.journal.recall?.(recall.accountId, recall.key);
      first.recalled = { key: recall.key, record };
      this.mailbox = [...rest, ...this.mailbox];
    } catch (error) {
      this.log("error", "spent key lookup failed", { accountId: recall.accountId, err: errorText(error) });
      const code = isDatabaseUnavailable(error) ? "engine_unavailable" : "engine_error";
      first.resolve(
        failed(first.request.requestId, toWireError(new ServiceError(code, {}, "spent key lookup failed"))),
      );
      this.mailbox = [...others, ...this.mailbox];
    }
  }

  private log(level: "info" | "warn" | "error", message: string, fields: Record<string, unknown>): void {
    this.options.notify?.({ kind: "log", shard: this.options.shard, level, message, fields });
  }
}
