// The contract between the shard shell and the pure account core. The shell (mailbox, journal, threads) is
// generic over it, so it is tested with a small ledger and wired to the trading core by naming its module.

/** Every event names its type: the journal stores it in its own column. Events must survive JSON. */
export interface CoreEvent {
  readonly type: string;
}

/** The types one core works with, bundled so the shell and its callers name them once. */
export interface CoreTypes {
  /** One account's state; `apply` may mutate it. */
  state: unknown;
  command: unknown;
  event: CoreEvent;
  /** What `decide` answers to the caller (denials are data here; throwing is for faults). */
  reply: unknown;
  query: unknown;
  queryResult: unknown;
  /** A market update, broadcast to every shard. */
  update: unknown;
  /** The shard's view of the market, folded from the updates by `updateMarket`. */
  market: unknown;
}

export interface DecideContext<Market> {
  /** Epoch milliseconds of the shell's clock, never decreasing within a shard. */
  now: number;
  /** The shard's market view (undefined until the first update when no initial view was given). */
  market: Market | undefined;
  /** A fresh UUID (the shell's randomness; replay never calls it). */
  nextId: () => string;
  /**
   * For a command `recallKey` named a key for: what the table of spent keys holds under it (undefined: nothing, a
   * filter false positive). Absent for every other command.
   */
  recalled?: Recalled;
}

/** A spent key the shell looked up for a command before it was decided (`recallKey`). */
export interface Recalled {
  readonly key: string;
  readonly record: RecalledKey | undefined;
}

export interface QueryContext<Market> {
  now: number;
  market: Market | undefined;
}

export interface Decision<T extends CoreTypes> {
  events: T["event"][];
  reply: T["reply"];
}

/**
 * The pure core of an account actor. The module named by `coreModule` makes one per shard (`createCore`).
 * `decide`, `query` and `onMarket` never mutate their inputs; `apply` may mutate and return the state.
 */
export interface ActorCore<T extends CoreTypes> {
  /** Decides a command for one account (state undefined when the account does not exist yet). */
  decide(state: T["state"] | undefined, command: T["command"], ctx: DecideContext<T["market"]>): Decision<T>;
  /** Applies one event; replaying the journal through it must rebuild an equal state. */
  apply(state: T["state"] | undefined, event: T["event"]): T["state"];
  /** A query (not journaled) on one account. */
  query(state: T["state"] | undefined, query: T["query"], ctx: QueryContext<T["market"]>): T["queryResult"];
  /**
   * Settings of the core (limits, windows), given once in each shard thread before anything is decided or
   * replayed (`coreSettings` of the runtime).
   */
  configure?(settings: unknown): void;
  /**
   * Drops from the account's memory what it no longer keeps (final orders, old idempotency records; the journal
   * keeps them) and returns the ids `keys` made addressable that no longer are. The shell calls it after each
   * decision's events applied to an account, and on replay where a decision ends (the next event has another
   * `eventTime`) and after the last one; it must depend on the applied events only, so a replay forgets what
   * the live actor forgot. The core hands `archive` the record of each order it drops and `spend` each key record
   * (a client_id's) it drops: live, the shell journals them with the decision's events; on replay, it makes sure
   * the order archive and the table of spent keys hold them before the account serves (docs/engine.md, "The
   * order archive", "Idempotency"), so a forgotten record stays readable and a forgotten key stays spent.
   */
  forget?(
    state: T["state"],
    archive?: (record: ArchivedRecord) => void,
    spend?: (record: SpentKey) => void,
  ): readonly string[];
  /**
   * The key of a record the account forgot that deciding this command needs (a client_id the account no longer
   * holds but its filter of forgotten ones may), or undefined: the shell then looks it up in the table of spent
   * keys (the `spend` records of `forget`) and decides the command with what it found (`ctx.recalled`), after the
   * commands before it and before the account's later ones. Called before every command is decided: one filter
   * probe at most.
   */
  recallKey?(state: T["state"] | undefined, command: T["command"]): string | undefined;
  /**
   * The account's state as JSON-safe data, restorable by `restore` into a state equal to it (docs/engine.md,
   * "Snapshots"): the shard stores one every so many events so a restart replays only the events after it.
   */
  snapshot?(state: T["state"]): unknown;
  /** The state a `snapshot` was taken of (parsed from its JSON); undefined when it cannot be read. */
  restore?(snapshot: unknown): T["state"] | undefined;
  /** The ids (`keys`) a state makes addressable: indexed when the state comes from a snapshot. */
  keysOf?(state: T["state"]): Iterable<string>;
  /** The owner of an account, recorded in the journal when its first events are appended. */
  userId(state: T["state"]): string;
  /**
   * Folds a market update into the shard's view at `now` (the shell's clock); without it the view is the last
   * update.
   */
  updateMarket?(market: T["market"] | undefined, update: T["update"], now: number): T["market"];
  /**
   * The events a market update causes on one account: called for the accounts `symbolsOf` names in one of the
   * update's `marketSymbols`, or for every account of the shard when either hook is absent or the update names
   * none (undefined).
   */
  onMarket?(state: T["state"], update: T["update"], ctx: DecideContext<T["market"]>): T["event"][];
  /**
   * The symbols whose prices can change something on the account (its positions and working orders). The shell
   * asks after every applied batch of events of an account and after a rebuild, and routes a market update only
   * to the accounts interested in one of its symbols.
   */
  symbolsOf?(state: T["state"]): Iterable<string>;
  /** The symbols an update moves; undefined when it concerns every account (a funding tick). */
  marketSymbols?(update: T["update"]): Iterable<string> | undefined;
  /**
   * The earliest time (epoch ms) at which the account must be decided although no message arrives for it (the
   * next expiry of its GTD orders), or undefined when time alone changes nothing for it. The shard asks after
   * every event applied to the account and keeps a timer on the earliest answer over its accounts (so it
   * costs nothing while no account has one); then it calls `onClock` for the accounts whose time came.
   * Cheap: called once per applied batch of events of an account.
   */
  wakeAt?(state: T["state"]): number | undefined;
  /**
   * The events the passing of time causes on one account (`ctx.now` ≥ its `wakeAt`), decided at the current
   * market: journaled, applied and rendered to the outbox like a market update's. The shard also calls it a
   * little after an account was evicted by a failed commit and reloaded, whose state may have missed a price
   * update the view already holds.
   */
  onClock?(state: T["state"], ctx: DecideContext<T["market"]>): T["event"][];
  /**
   * Lets decided events change the shard's market view (book depth taken by fills), right after they were
   * applied so the next decision sees it. The view is not journaled: a dropped batch gives it back through
   * `onUndecided`.
   */
  onDecided?(market: T["market"] | undefined, events: readonly T["event"][]): void;
  /**
   * Gives back what `onDecided` took for events whose batch was dropped (its commit refused, or `apply` threw),
   * newest first, so a retry (or another account) sees the view as it was before them.
   */
  onUndecided?(market: T["market"] | undefined, events: readonly T["event"][]): void;
  /**
   * Ids an event makes addressable (an order's id): the shard maps them to the account, so a command or
   * query can name the id instead of the account. Ids must come from `ctx.nextId` (they name the partition).
   */
  keys?(event: T["event"]): readonly string[];
  /**
   * The outbox entries (webhook events, docs/webhooks.md) of an event just applied to `state`, rendered now:
   * the shell numbers them per account and journals them in the same statement as the event.
   */
  outbox?(state: T["state"], event: T["event"], market: T["market"] | undefined): OutboxEntry[];
  /** How many entries `outbox` gives for this event and state, without rendering them (used on replay). */
  outboxCount?(state: T["state"], event: T["event"]): number;
  /**
   * Metrics: the series a committed event counts in (`count(key)`, any number of times), given the state it
   * was applied to. Keys come from small fixed sets (kinds, outcomes, rules), never ids. Not called on replay.
   */
  tally?(state: T["state"], event: T["event"], count: (key: string) => void): void;
  /** Metrics: the label an account is counted under (its status), from a small fixed set. */
  stateOf?(state: T["state"]): string;
  /**
   * The epoch ms an event was decided at (the `ctx.now` of its decision), if it says. A shard rebuilt from the journal
   * starts its clock at the latest of these, so a wall clock that went back across a restart never dates a
   * new event before one already journaled.
   */
  eventTime?(event: T["event"]): number | undefined;
}

/** A record a core drops from memory that stays readable in the order archive (docs/engine.md). */
export interface ArchivedRecord {
  /** Its id (one `keys` made addressable). */
  readonly id: string;
  /** Epoch ms it was created: lists of the archive are ordered by it, ties by id. */
  readonly createdAt: number;
  /** The client's id for it, if any (looked up by it). */
  readonly clientId: string | null;
  /** The record as JSON text. */
  readonly data: string;
}

/**
 * A key (a client_id) whose record a core dropped from memory: what a later command naming it needs, kept in the
 * table of spent keys (docs/engine.md, "Idempotency").
 */
export interface SpentKey {
  readonly key: string;
  /** The id of what the key named (an order's). */
  readonly id: string;
  /** Epoch ms the key was recorded. */
  readonly at: number;
  /** What a later command naming the key is compared with (its request's fingerprint). */
  readonly fingerprint: string;
  /** The answer recorded for it, as JSON text. */
  readonly data: string;
}

/** A spent key as read back from the table: its answer parsed. */
export interface RecalledKey extends Omit<SpentKey, "data"> {
  readonly data: unknown;
}

/** One outbox entry as a core renders it. */
export interface OutboxEntry {
  readonly type: string;
  /** Epoch ms of the event. */
  readonly at: number;
  /** The JSON text of the envelope's `data`. */
  readonly data: string;
}

/** What a core module exports: each shard makes its own core, so whatever a core keeps is that shard's. */
export interface CoreModule<T extends CoreTypes> {
  createCore(): ActorCore<T>;
}
