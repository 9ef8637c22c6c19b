// A tiny ledger core for the shard runtime's tests (test-only: it reads the thread id, can busy-wait and can
// end its thread, which a real core never does). Balances must not go negative; denials are replies, not errors.
import { threadId } from "node:worker_threads";
import { ServiceError } from "../../kernel/errors.js";
import type { ActorCore, Decision } from "./core-contract.js";

export interface LedgerState {
  userId: string;
  balance: number;
  /** `touch` commands applied so far (the per-account arrival counter). */
  touches: number;
  lastTick: number | null;
}

export type LedgerCommand =
  | { type: "open"; userId: string }
  | { type: "deposit"; amount: number }
  | { type: "withdraw"; amount: number }
  /** The `n`-th touch the caller sent to this account; the reply says which arrival it was. */
  | { type: "touch"; n: number }
  /** No events: a round trip through the mailbox only. */
  | { type: "noop" }
  /** Holds the shard thread for `ms` (so later messages pile up in one batch). */
  | { type: "spin"; ms: number }
  /** An event PostgreSQL refuses (a NUL byte in its type, a text column): the commit of its batch fails. */
  | { type: "poison" }
  /** `decide` throws a ServiceError. */
  | { type: "explode" }
  /** Emits a deposit and then an event `apply` throws on (a core bug). */
  | { type: "break" }
  /** Mints an id (ctx.nextId) that addresses this account from now on (`keys`). */
  | { type: "receipt" }
  /** Ends the shard thread while it decides (a thread that dies mid-batch). */
  | { type: "crash" };

export type LedgerEvent =
  | { type: "Opened"; userId: string }
  | { type: "Deposited"; amount: number }
  | { type: "Withdrawn"; amount: number }
  | { type: "Touched"; n: number }
  | { type: "Poisoned\u0000"; note: string }
  | { type: "Marked"; tick: number }
  | { type: "Broken" }
  | { type: "Receipted"; id: string };

export type LedgerReply =
  | { ok: true; balance: number; touches: number; threadId: number; receipt?: string }
  | { ok: false; error: "no_account" | "exists" | "insufficient_funds"; threadId: number };

export interface LedgerUpdate {
  tick: number;
}

export interface LedgerMarket {
  tick: number | null;
  /** Events decided on this shard since it started (counted by `onDecided`). */
  decided: number;
}

export interface LedgerTypes {
  state: LedgerState;
  command: LedgerCommand;
  event: LedgerEvent;
  reply: LedgerReply;
  query: { type: "state" } | { type: "market" };
  queryResult: LedgerState | LedgerMarket | null;
  update: LedgerUpdate;
  market: LedgerMarket;
}

function ok(state: LedgerState | undefined, events: LedgerEvent[]): Decision<LedgerTypes> {
  let balance = state?.balance ?? 0;
  for (const event of events) {
    if (event.type === "Deposited") balance += event.amount;
    if (event.type === "Withdrawn") balance -= event.amount;
  }
  return { events, reply: { ok: true, balance, touches: state?.touches ?? 0, threadId } };
}

function denied(error: "no_account" | "exists" | "insufficient_funds"): Decision<LedgerTypes> {
  return { events: [], reply: { ok: false, error, threadId } };
}

const core: ActorCore<LedgerTypes> = {
  decide(state, command, ctx) {
    if (command.type === "open")
      return state === undefined ? ok(state, [{ type: "Opened", userId: command.userId }]) : denied("exists");
    if (command.type === "noop") return ok(state, []);
    if (command.type === "explode")
      throw new ServiceError("conflict", { reason: "exploded" }, "the test actor exploded");
    if (command.type === "crash") process.exit(1);
    if (command.type === "spin") {
      const until = Date.now() + command.ms;
      while (Date.now() < until) {
        // busy: the shard thread is held
      }
      return ok(state, []);
    }
    if (state === undefined) return denied("no_account");
    switch (command.type) {
      case "deposit":
        return ok(state, [{ type: "Deposited", amount: command.amount }]);
      case "withdraw":
        return state.balance < command.amount
          ? denied("insufficient_funds")
          : ok(state, [{ type: "Withdrawn", amount: command.amount }]);
      case "touch":
        return ok(state, [{ type: "Touched", n: command.n }]);
      case "poison":
        return ok(state, [{ type: "Poisoned\u0000", note: "nul byte in the type" }]);
      case "break":
        return ok(state, [{ type: "Deposited", amount: 1 }, { type: "Broken" }]);
      case "receipt": {
        const id = ctx.nextId();
        const decision = ok(state, [{ type: "Receipted", id }]);
        return { ...decision, reply: { ...decision.reply, receipt: id } as LedgerReply };
      }
    }
  },

  apply(state, event) {
    if (event.type === "Opened") return { userId: event.userId, balance: 0, touches: 0, lastTick: null };
    if (state === undefined) throw new Error(`${event.type} before Opened`);
    switch (event.type) {
      case "Deposited":
        state.balance += event.amount;
        break;
      case "Withdrawn":
        state.balance -= event.amount;
        break;
      case "Touched":
        state.touches++;
        break;
      case "Poisoned\u0000":
        break;
      case "Marked":
        state.lastTick = event.tick;
        break;
      case "Broken":
        throw new Error("the test actor cannot apply Broken");
      case "Receipted":
        break;
    }
    return state;
  },

  query(state, query, ctx) {
    if (query.type === "market") return ctx.market ?? null;
    return state === undefined ? null : { ...state };
  },

  userId(state) {
    return state.userId;
  },

  updateMarket(market, update) {
    return { tick: update.tick, decided: market?.decided ?? 0 };
  },

  onDecided(market, events) {
    if (market !== undefined) market.decided += events.length;
  },

  keys(event) {
    return event.type === "Receipted" ? [event.id] : [];
  },

  onMarket(_state, update) {
    return [{ type: "Marked", tick: update.tick }];
  },

  tally(_state, event, count) {
    count(event.type);
  },

  stateOf(state) {
    return state.balance > 0 ? "funded" : "empty";
  },
};

/** The ledger keeps nothing between calls, so every shard shares one core. */
export function createCore(): ActorCore<LedgerTypes> {
  return core;
}
