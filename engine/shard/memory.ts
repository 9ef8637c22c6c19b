// The accounts of a shard's partitions in memory, and the two indexes over them: the ids its events made
// addressable (`core.keys`: an order's id → its account) and the symbols each account is interested in
// (`core.symbolsOf`: a market update visits only the accounts listed under a symbol it moves).
import { ServiceError } from "../../kernel/errors.js";
import type { ActorCore, ArchivedRecord, CoreTypes, SpentKey } from "./core-contract.js";
import type { Address } from "./protocol.js";

export interface Entry<State> {
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

export class AccountMemory<T extends CoreTypes> {
  readonly accounts = new Map<string, Entry<T["state"]>>();
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

  constructor(private readonly core: ActorCore<T>) {}

  /** The order in which the next account to enter memory is decided by market updates. */
  nextOrdinal(): number {
    return this.ordinals++;
  }

  /** Empties memory (before a rebuild); the id index stays, as ids never move. */
  clear(): void {
    this.accounts.clear();
    this.bySymbol.clear();
    this.interests.clear();
  }

  /** The account a command or query is for; not_found for an id no event made addressable. */
  resolve(to: Address): string {
    if ("accountId" in to) return to.accountId;
    const accountId = this.byKey.get(to.key);
    if (accountId === undefined) throw new ServiceError("not_found");
    return accountId;
  }

  /** Makes the ids the event names addressable. */
  index(accountId: string, event: T["event"]): void {
    const keys = this.core.keys?.(event);
    if (keys !== undefined) for (const key of keys) this.byKey.set(key, accountId);
  }

  /** Makes the ids a restored state holds addressable. */
  indexState(accountId: string, state: T["state"]): void {
    const keys = this.core.keysOf?.(state);
    if (keys !== undefined) for (const key of keys) this.byKey.set(key, accountId);
  }

  /**
   * Lets the core drop what the account no longer keeps, and unindexes the ids it forgot; `archive` receives the
   * records it drops (the order archive), `spend` the key records (the table of spent keys).
   */
  forget(state: T["state"], archive?: (record: ArchivedRecord) => void, spend?: (record: SpentKey) => void): void {
    const forgotten = this.core.forget?.(state, archive, spend);
    if (forgotten !== undefined) for (const key of forgotten) this.byKey.delete(key);
  }

  /**
   * The accounts a market update is decided for, in the order they entered memory: those listed under one of its
   * symbols, or all of them when the core does not route (no `symbolsOf`/`marketSymbols`, or an update for all).
   */
  marketAccounts(update: T["update"]): [string, Entry<T["state"]>][] {
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
  noteInterests(accountId: string, state: T["state"] | undefined): void {
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
}
