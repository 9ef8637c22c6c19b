// Deciding one message of a batch: the core decides, the shard serialises the events at once (a later event
// of the batch may mutate objects this one points to), applies them to the account in memory (the next
// message sees them) and queues their journal and outbox rows in the batch's `Pending`. A market update and a
// clock tick decide each account they concern the same way. Nothing here waits: the batch is committed whole
// by the group commit (batch.ts). A command whose spent key must be looked up first (`core.recallKey`) is not
// decided: the batch ends before it, and the shard decides it after the lookup (shard.ts).
import { randomUUID } from "node:crypto";
import { threadId } from "node:worker_threads";
import { errorText } from "../../kernel/errors.js";
import { idInPartition, mintIdInPartition, partitionOf } from "../../kernel/partition.js";
import type { EventRow, NewAccountRow, OutboxRow } from "../store/journal.js";
import type { ArchivedRow } from "../store/order-archive.js";
import type { SpentRow } from "../store/spent-keys.js";
import type { ActorCore, CoreTypes, DecideContext, Recalled } from "./core-contract.js";
import type { ShardClock } from "./clock.js";
import type { AccountMemory, Entry } from "./memory.js";
import { failed, toWireError } from "./failures.js";
import type { ClockRequest, MailboxRequest, ShardResponse } from "./protocol.js";
import type { AccountReload } from "./reload.js";

/** What deciding a batch collects for the journal. */
export interface Pending {
  events: EventRow[];
  outbox: OutboxRow[];
  /** The records the decisions' forgetting dropped (the order archive). */
  archived: ArchivedRow[];
  /** The key records the decisions' forgetting dropped (the table of spent keys). */
  spent: SpentRow[];
  accounts: NewAccountRow[];
  touched: Set<string>;
  /** The event lists handed to `core.onDecided`, given back through `core.onUndecided` if the batch fails. */
  decided: (readonly unknown[])[];
  /** The account whose events are being applied (so a throwing `apply` names the account it threw for). */
  applying: string | undefined;
  /** The batch's tallies, added to the shard's once it committed. */
  tallies: Map<string, number> | undefined;
}

/** A command that needs a spent key looked up before it is decided (`core.recallKey`): not decided yet. */
export interface RecallNeeded {
  kind: "recall";
  accountId: string;
  key: string;
}

type Request<T extends CoreTypes, K extends MailboxRequest["kind"]> = Extract<MailboxRequest<T>, { kind: K }>;

export interface DeciderOptions<T extends CoreTypes> {
  shard: number;
  core: ActorCore<T>;
  memory: AccountMemory<T>;
  clock: ShardClock<T>;
  reload: AccountReload<T>;
  /** The initial market view. */
  market: T["market"] | undefined;
  /** Ids for orders and outbox events (random UUIDs when absent; order ids then name their partition). */
  nextId: (() => string) | undefined;
  log: (level: "error", message: string, fields: Record<string, unknown>) => void;
}

export class Decider<T extends CoreTypes> {
  private market: T["market"] | undefined;
  private readonly core: ActorCore<T>;
  private readonly memory: AccountMemory<T>;
  private readonly clock: ShardClock<T>;
  private readonly reload: AccountReload<T>;
  private readonly nextId: () => string;
  /** One id minter per partition, made on first use: a decision's context then allocates no closure. */
  private readonly minters: (() => string)[] = [];

  constructor(private readonly options: DeciderOptions<T>) {
    this.core = options.core;
    this.memory = options.memory;
    this.clock = options.clock;
    this.reload = options.reload;
    this.market = options.market;
    this.nextId = options.nextId ?? randomUUID;
  }

  /**
   * Decides one message; `copy` when later messages of the batch may still mutate what the answer points to.
   * `recalled`: the spent key looked up for this command; without it, a command that needs one is not decided
   * (`RecallNeeded`).
   */
  decide(
    request: MailboxRequest<T>,
    pending: Pending,
    copy: boolean,
    recalled?: Recalled,
  ): ShardResponse<T> | RecallNeeded {
    switch (request.kind) {
      case "start":
        return {
          kind: "started",
          requestId: request.requestId,
          shard: this.options.shard,
          threadId,
          accounts: this.memory.accounts.size,
          events: this.reload.rebuiltEvents(),
        };
      case "stop":
        return { kind: "stopped", requestId: request.requestId, shard: this.options.shard };
      case "query":
        return this.expired(request) ? { kind: "expired", requestId: request.requestId } : this.query(request, copy);
      case "command":
        return this.expired(request)
          ? { kind: "expired", requestId: request.requestId }
          : this.command(request, pending, copy, recalled);
      case "market":
        return this.marketUpdate(request, pending);
      case "clock":
        return this.clockTick(request, pending);
    }
  }

  /** Whether the caller's deadline passed: its call is answered without being decided (nothing journaled). */
  private expired(request: Request<T, "command" | "query">): boolean {
    return request.deadline !== undefined && this.clock.wallTime() >= request.deadline;
  }

  /** A dropped batch gives back what its decisions took from the market view (book depth), newest first. */
  undecide(pending: Pending): void {
    for (let i = pending.decided.length - 1; i >= 0; i--) {
      this.core.onUndecided?.(this.market, pending.decided[i] as readonly T["event"][]);
    }
  }

  private query(request: Request<T, "query">, copy: boolean): ShardResponse<T> {
    const requestId = request.requestId;
    try {
      const accountId = this.memory.resolve(request.to);
      const result = this.core.query(this.memory.accounts.get(accountId)?.state, request.query, {
        now: this.clock.now(),
        market: this.market,
      });
      return { kind: "queryResult", requestId, result: copy ? structuredClone(result) : result };
    } catch (error) {
      return failed(requestId, toWireError(error));
    }
  }

  private command(
    request: Request<T, "command">,
    pending: Pending,
    copy: boolean,
    recalled: Recalled | undefined,
  ): ShardResponse<T> | RecallNeeded {
    const requestId = request.requestId;
    let accountId: string;
    let entry: Entry<T["state"]> | undefined;
    let events: T["event"][];
    let rows: string[];
    let reply: T["reply"];
    try {
      accountId = this.memory.resolve(request.to);
      entry = this.memory.accounts.get(accountId);
      if (recalled === undefined) {
        const key = this.core.recallKey?.(entry?.state, request.command);
        if (key !== undefined) return { kind: "recall", accountId, key };
      }
      const context = this.context(accountId);
      const decision = this.core.decide(
        entry?.state,
        request.command,
        recalled === undefined ? context : { ...context, recalled },
      );
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

  private marketUpdate(request: Request<T, "market">, pending: Pending): ShardResponse<T> {
    this.market =
      this.core.updateMarket === undefined
        ? request.update
        : this.core.updateMarket(this.market, request.update, this.clock.now());
    let events = 0;
    let faults = 0;
    const onMarket = this.core.onMarket?.bind(this.core);
    const visited = onMarket === undefined ? [] : this.memory.marketAccounts(request.update);
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
      requestId: request.requestId,
      shard: this.options.shard,
      accounts: visited.length,
      events,
      faults,
    };
  }

  /** The accounts whose wake time came: `core.onClock` for each, applied like a market update's events. */
  private clockTick(request: ClockRequest, pending: Pending): ShardResponse<T> {
    const now = this.clock.now();
    const due = this.clock.due(now);
    let events = 0;
    let faults = 0;
    const onClock = this.core.onClock?.bind(this.core);
    for (const accountId of due) {
      const entry = this.memory.accounts.get(accountId);
      if (entry === undefined || onClock === undefined) {
        this.clock.drop(accountId);
        continue;
      }
      const produced = this.decideAccount(accountId, entry, pending, "onClock", (ctx) => onClock(entry.state, ctx));
      if (produced === undefined) {
        faults++;
        this.clock.drop(accountId);
        continue;
      }
      events += produced;
      // Its own wake time again (a retry after a failed commit may have stood in for a later one); still due
      // after its decision (the core had nothing to do): forgotten until its next event, never a loop.
      const own = this.core.wakeAt?.(entry.state);
      if (own === undefined || own <= now) this.clock.drop(accountId);
      else this.clock.noteAt(accountId, own);
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
      this.options.log("error", `${hook} failed for an account`, { accountId, err: errorText(error) });
      return undefined;
    }
    this.applyEvents(accountId, entry, produced, rows, pending);
    return produced.length;
  }

  /** Applies decided events to the account at once (the next message sees them) and queues their rows. */
  private applyEvents(
    accountId: string,
    entry: Entry<T["state"]> | undefined,
    events: readonly T["event"][],
    payloads: readonly string[],
    pending: Pending,
  ): void {
    if (events.length === 0) return;
    pending.touched.add(accountId);
    pending.applying = accountId;
    this.reload.unpark(accountId);
    let seq = entry?.seq ?? 0;
    let outbox = entry?.outbox ?? 0;
    const tallies = pending.tallies;
    const count =
      tallies === undefined
        ? undefined
        : (key: string): void => {
            tallies.set(key, (tallies.get(key) ?? 0) + 1);
          };
    let state: T["state"] | undefined = entry?.state;
    let index = 0;
    // At least one event: the loop runs once or more, and `state` is the last apply's.
    do {
      const event = events[index] as T["event"];
      state = this.core.apply(state, event);
      this.memory.index(accountId, event);
      if (count !== undefined) this.core.tally?.(state, event, count);
      pending.events.push({ accountId, seq: ++seq, type: event.type, payload: payloads[index] ?? "null" });
      outbox = this.queueOutbox(accountId, state, event, outbox, pending);
    } while (++index < events.length);
    pending.applying = undefined;
    this.memory.forget(
      state,
      (record) => pending.archived.push({ accountId, ...record }),
      (record) => pending.spent.push({ accountId, ...record }),
    );
    if (this.core.onDecided !== undefined) {
      this.core.onDecided(this.market, events);
      if (this.core.onUndecided !== undefined) pending.decided.push(events);
    }
    let size = 0;
    for (const payload of payloads) size += payload.length;
    if (entry === undefined) {
      this.memory.accounts.set(accountId, {
        state,
        seq,
        outbox,
        ordinal: this.memory.nextOrdinal(),
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
    this.clock.note(accountId, state);
    this.memory.noteInterests(accountId, state);
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
    return { now: this.clock.now(), market: this.market, nextId };
  }
}
