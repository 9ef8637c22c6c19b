// The pure core of an account actor (docs/engine.md, "Commands and events"): `decide(state, command, ctx)`
// turns a command into events and the API reply without touching the state; `apply(state, event)` is the
// only code that changes a state; `replay(events)` rebuilds one from its journal. No I/O, no clock, no
// randomness: time, prices and ids come in through `ctx`. A decision works on a copy-on-write draft and
// applies each event it emits to it (before the state is next read), so execution sees its own fills
// exactly as a replay will. The parts: core/commands.ts (what is asked and answered), core/decision-run.ts
// (the decision in progress), core/apply.ts (the events), core/open-account.ts and core/quiet.ts.
import type { AccountState } from "./basics/account-state.js";
import { consume, release, type MarketView } from "./market/book.js";
import type { EngineEvent } from "./basics/events.js";
import { onPriceUpdate } from "./orders/execution.js";
import { expireDue } from "./orders/lifecycle.js";
import { fireCancelAfter, setCancelAfter } from "./orders/cancel-after.js";
import { amend, cancel } from "./orders/manage.js";
import { closePosition, placeOrder, testOrder } from "./orders/placement.js";
import { notFound } from "./basics/replies.js";
import { payFunding } from "./risk/funding.js";
import { monitor, startDay } from "./orders/monitor.js";
import { apply } from "./core/apply.js";
import type { Command, DecideContext, Decision, OpenAccount, Reply, ReplyByCommand } from "./core/commands.js";
import { cancelAll, flatten } from "./core/bulk.js";
import { DecisionRun } from "./core/decision-run.js";
import { openAccount } from "./core/open-account.js";
import { QUIET, quietUpdate } from "./core/quiet.js";

export { apply } from "./core/apply.js";
export { quietUpdate } from "./core/quiet.js";
export type * from "./core/commands.js";
export type { EngineEvent, EngineEventType } from "./basics/events.js";
export type { ErrorReply, OrderReply, PlaceOrderReply, PlaceOrderResponse, PlacedReply } from "./basics/replies.js";
export type { AccountState } from "./basics/account-state.js";
export type { CancelAllReply, FlattenClose, FlattenReply } from "./core/bulk-types.js";

/**
 * Decides a command against a state (undefined before the account is opened). Never mutates `state` or
 * the market view; the caller journals `events`, applies them, then `consumeFills` on its market view.
 */
export function decide<C extends Command>(
  state: AccountState | undefined,
  command: C,
  ctx: DecideContext,
): Decision<ReplyByCommand[C["type"]]> {
  return decideAny(state, command, ctx) as Decision<ReplyByCommand[C["type"]]>;
}

function decideAny(state: AccountState | undefined, command: Command, ctx: DecideContext): Decision {
  if (command.type === "OpenAccount") return openAccount(state, command.request, ctx);
  if (state === undefined) {
    return { events: [], reply: command.type === "MarketUpdate" ? { kind: "ok" } : notFound() };
  }
  // A quiet account on a price update (most of them, most of the time): nothing expires, triggers or fills,
  // and the monitor has nothing to record. Checked without building a decision.
  if (command.type === "MarketUpdate" && quietUpdate(state, command.symbols, ctx)) return QUIET;
  const run = new DecisionRun(state, ctx, dayTimeOf(command, ctx.now));
  // The first decision of a new day: the old day judged and the new one started before anything else happens.
  if (run.dayAt >= state.next_day_at) startDay(run);
  expireDue(run);
  // The dead-man's switch whose deadline came fires before anything else is decided (docs/risk.md).
  fireCancelAfter(run);
  // A fill moved equity: placing, closing and amending run the monitor on it before they answer, so the answer
  // shows what the fill caused (a termination among it).
  return { events: run.events, reply: answer(run, command) };
}

/**
 * The time a command's daily reset is judged at: a funding boundary paid after its time (a start that caught it
 * up) is paid in the boundary's day; everything else at now.
 */
function dayTimeOf(command: Exclude<Command, OpenAccount>, now: number): number {
  const boundary = command.type === "Funding" ? command.boundary : undefined;
  return boundary === undefined || boundary > now ? now : boundary;
}

/** The commands that carry a request of the trader's, each answered by one function of the decision and it. */
type Requested = Exclude<Extract<Command, { request: unknown }>, OpenAccount>;

/** Who answers each requested command: a table the compiler holds complete and to each command's reply. */
const ANSWERS: {
  readonly [T in Requested["type"]]: (
    run: DecisionRun,
    request: Extract<Requested, { type: T }>["request"],
  ) => ReplyByCommand[T];
} = {
  PlaceOrder: placeOrder,
  ClosePosition: closePosition,
  TestOrder: testOrder,
  CancelOrder: cancel,
  AmendOrder: amend,
  SetCancelAfter: setCancelAfter,
  CancelAll: cancelAll,
  Flatten: flatten,
};

/** An entry of ANSWERS, called with the request of the command whose type found it. */
type Answer = (run: DecisionRun, request: Requested["request"]) => Reply;

/** What a command other than OpenAccount does in its decision, and its reply. */
function answer(run: DecisionRun, command: Exclude<Command, OpenAccount>): Reply {
  switch (command.type) {
    case "MarketUpdate":
      onPriceUpdate(run, command.symbols);
      break;
    case "Funding":
      payFunding(run, command.rates, command.boundary, command.prices);
      break;
    default:
      return (ANSWERS[command.type] as Answer)(run, command.request);
  }
  // A tick moved marks or the balance: the monitor looks at the limits.
  monitor(run);
  return { kind: "ok" };
}

/** Removes the depth a decision's fills took from the shard's book (call after journaling them). */
export function consumeFills(market: MarketView, events: readonly EngineEvent[]): void {
  changeDepth(market, events, consume);
}

/** Gives back the book depth `consumeFills` took for these events (their batch was dropped). */
export function releaseFills(market: MarketView, events: readonly EngineEvent[]): void {
  changeDepth(market, events, release);
}

/**
 * Only the accounts' own fills take depth: a fill of the risk system (a liquidation, a termination's close; it
 * carries a `reason`) is made at the mark whatever the depth (docs/risk.md, "Liquidation"), so it leaves the
 * shard's shared book to the orders of the other accounts.
 */
function changeDepth(market: MarketView, events: readonly EngineEvent[], change: typeof consume): void {
  for (const event of events) {
    if (event.type === "OrderFilled" && event.fill.reason === undefined) {
      change(market, event.fill.symbol, event.fill.side, event.fill.quantity, event.book_version);
    }
  }
}

/** Rebuilds a state from its journal (the first event must be AccountOpened). */
export function replay(events: Iterable<EngineEvent>): AccountState {
  let state: AccountState | undefined;
  for (const event of events) state = apply(state, event);
  if (state === undefined) throw new Error("cannot replay an empty journal");
  return state;
}
