// The trading core as the shard runtime loads it (`coreModule`, engine/shard/core-contract.ts): the pure core
// plus what a shard needs around it: ownership (another user's account is not_found), the shard's market view
// fed by price updates, book depth taken by fills, and order ids made addressable for cancel/amend by id.
// Each shard creates its own (`createCore`): the news calendar, the limits and the market view it keeps are
// that shard's.
import { ServiceError } from "../kernel/errors.js";
import {
  accountRecord,
  accountSummary,
  openPositions,
  orderById,
  parseListQuery,
  positionHistory,
  trades,
  workingOrders,
  type ListQuery,
} from "./accounts/queries.js";
import { orderByClientId, ordersInMemory } from "./accounts/order-queries.js";
import { analytics, breaches, fundingReport, violations } from "./accounts/risk-queries.js";
import { DEFAULT_ACTOR_LIMITS, type ActorLimits } from "./accounts/limits.js";
import { forgetExpired, noteApplied } from "./accounts/retention.js";
import { restoreState, snapshotOf, type AccountSnapshot } from "./accounts/snapshot.js";
import type { AccountState, IdempotencyRecord } from "./basics/account-state.js";
import { cancelAfterRecord } from "./basics/cancel-after.js";
import { archivedOrder } from "./basics/order-records.js";
import { recalledRecord, spentClientId } from "./orders/idempotency.js";
import { requestedRecordKey } from "./basics/record-keys.js";
import type { FundingPrice, FundingRates } from "./risk/funding.js";
import { apply, consumeFills, decide, releaseFills, type Command, type EngineEvent, type Reply } from "./core.js";
import { createMarketView, setQuote, type MarketView } from "./market/book.js";
import { unitsFor } from "./market/units.js";
import type { NewsEvent } from "./market/calendar.js";
import type { TickQuote } from "./market/prices.js";
import type { ActorCore, ArchivedRecord, CoreTypes, DecideContext, Recalled, SpentKey } from "./shard/core-contract.js";
import type { Funding as FundingCommand, MarketUpdate as MarketUpdateCommand } from "./core/commands.js";
import type { Catalogue } from "./market/catalogue.js";
import type { Order } from "./basics/order-types.js";
import { outboxEntries, outboxKinds } from "./webhooks/outbox.js";
import { accountStateOf, tallyEvent } from "./telemetry.js";

/** A command as the engine server sends it: the caller's user id travels with it. */
export interface EngineCommand {
  userId: string;
  command: Command;
}

export type AccountQuery =
  | { type: "account" }
  | { type: "summary" }
  | { type: "positions" }
  | { type: "orders" }
  | { type: "history"; from: string; to: string; limit: number; after_id: string }
  | { type: "trades"; from: string; to: string; limit: number; after_id: string }
  | { type: "funding" }
  | { type: "breaches" }
  | { type: "violations" }
  | { type: "analytics" }
  | { type: "cancel_after" }
  | { type: "order"; order_id: string }
  | { type: "orderHistory"; from: string; to: string; limit: number; after_id: string }
  | { type: "clientOrder"; client_id: string };

export interface EngineQuery {
  userId: string;
  query: AccountQuery;
}

/** Prices for every shard, in whole ticks; a new news calendar rides along when it changes. */
export interface PriceUpdate {
  prices: TickQuote[];
  calendar?: NewsEvent[];
  /** A funding tick: every open position pays or receives at these rates (no prices change). */
  funding?: FundingRates;
  /** The funding boundary (epoch ms) the tick pays for (see the Funding command). */
  fundingBoundary?: number;
  /** The prices (ticks) the funding tick pays at, kept when its boundary came; others pay at the current quote. */
  fundingPrices?: TickQuote[];
  /**
   * The kept prices of a start (docs/engine.md, "Restarts"): they set the shard's view and decide nothing (they
   * are decided by a price update of their own once the funding boundaries missed while down are paid).
   */
  restoring?: boolean;
}

export interface EngineTypes extends CoreTypes {
  state: AccountState;
  command: EngineCommand;
  event: EngineEvent;
  reply: Reply;
  query: EngineQuery;
  queryResult: unknown;
  update: PriceUpdate;
  market: MarketView;
}

const LIMIT_KEYS = Object.keys(DEFAULT_ACTOR_LIMITS) as (keyof ActorLimits)[];

/** The limits from `coreSettings`: any of them, each a non-negative safe integer; others keep their default. */
export function parseActorLimits(settings: unknown): ActorLimits {
  if (typeof settings !== "object" || settings === null) throw new Error("core settings must be an object");
  const given = settings as Record<string, unknown>;
  const next: Record<string, number> = { ...DEFAULT_ACTOR_LIMITS };
  for (const key of Object.keys(given)) {
    const value = given[key];
    if (!(LIMIT_KEYS as string[]).includes(key)) throw new Error(`unknown core setting ${key}`);
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
      throw new Error(`core setting ${key} must be a non-negative integer`);
    }
    next[key] = value;
  }
  return Object.freeze(next as unknown as ActorLimits);
}

function owned(state: AccountState | undefined, userId: string): state is AccountState {
  return state !== undefined && state.user_id === userId;
}

function answerQuery(state: AccountState, query: AccountQuery, market: MarketView, now: number): unknown {
  switch (query.type) {
    case "account":
      return { ...accountRecord(state, market), rules_version: state.plan.rules_version };
    case "summary":
      return accountSummary(state, market, now);
    case "positions":
      return openPositions(state, market);
    case "orders":
      return workingOrders(state, market);
    case "funding":
      return fundingReport(state);
    case "breaches":
      return breaches(state);
    case "violations":
      return violations(state);
    case "analytics":
      return analytics(state, market);
    case "cancel_after":
      return cancelAfterRecord(state.account_id, state.cancel_after);
    case "order": {
      const record = orderById(state, market, query.order_id);
      if (record === undefined) throw new ServiceError("not_found");
      return record;
    }
    case "clientOrder":
      return { data: orderByClientId(state, market, query.client_id) };
    case "history":
    case "trades":
    case "orderHistory": {
      const parsed = listQueryOf(query);
      if (query.type === "orderHistory") return { data: ordersInMemory(state, market, parsed) };
      return query.type === "history" ? positionHistory(state, market, parsed) : trades(state, market, parsed);
    }
  }
}

/** A list's bounds as the gRPC request carries them (empty or 0: absent), checked; invalid_payload otherwise. */
export function listQueryOf(query: { from: string; to: string; limit: number; after_id: string }): ListQuery {
  const parsed = parseListQuery({
    ...(query.from === "" ? {} : { from: query.from }),
    ...(query.to === "" ? {} : { to: query.to }),
    ...(query.limit === 0 ? {} : { limit: query.limit }),
    ...(query.after_id === "" ? {} : { after_id: query.after_id }),
  });
  if (!parsed.ok) throw ServiceError.invalid(parsed.issues);
  return parsed.query;
}

/** The hooks that keep nothing between calls: the same for every shard. */
const ACCOUNT_HOOKS = {
  apply(state, event) {
    const next = apply(state, event);
    noteApplied(next, event);
    return next;
  },

  snapshot: snapshotOf,

  restore(snapshot) {
    return restoreState(snapshot as AccountSnapshot);
  },

  keysOf(state) {
    return state.orders.keys();
  },

  userId(state) {
    return state.user_id;
  },

  // Price-update routing (docs/engine.md, "Shards"): prices reach the accounts with a position or a working
  // order in a symbol they move. Others have nothing to trigger, fill or re-mark; the day's start and the
  // limits they would have checked are checked at their next decision, with the same equity.
  symbolsOf(state) {
    const symbols = new Set<string>();
    for (const position of state.positions.values()) symbols.add(position.symbol);
    for (const order of state.working.values()) symbols.add(order.symbol);
    return symbols;
  },

  marketSymbols(update) {
    if (update.funding !== undefined) return undefined;
    return update.prices.map((quote) => quote.symbol);
  },

  // GTD expiry on time (docs/engine.md "Execution"): the shard wakes an account at its earliest expire_at
  // even when no command or price reaches it, and decides it at the current market: expiries, a new day, and
  // every symbol's triggers and fills. The last matter to an account reloaded after a failed commit (the shard
  // wakes it then too): the prices of that batch reached the view but not its journaled state.
  // The dead-man's switch the same way (docs/risk.md, "Cancel-after"): its deadline is a wake time.
  wakeAt(state) {
    const armed = state.cancel_after;
    if (state.expiries.size === 0) return armed === null ? undefined : armed.deadline;
    let earliest = armed === null ? Number.POSITIVE_INFINITY : armed.deadline;
    for (const expireAt of state.expiries.values()) if (expireAt < earliest) earliest = expireAt;
    return earliest;
  },

  outboxCount(state, event) {
    return outboxKinds(state, event).length;
  },

  keys(event) {
    return event.type === "OrderAccepted" || event.type === "OrderRejected" ? [event.order.order_id] : [];
  },

  tally: tallyEvent,

  stateOf: accountStateOf,

  eventTime(event) {
    return event.at;
  },

  // A client_id (or a gateway's request id) is spent forever (docs/engine.md, "Idempotency", "Request ids"): a
  // placement or a close naming one the account no longer holds but its filter of forgotten ones may is looked
  // up in the table of spent keys first. One filter probe per command with a key; a fresh one (the filter says
  // no) costs no read.
  recallKey(state, { userId, command }) {
    if (state === undefined || (command.type !== "PlaceOrder" && command.type !== "ClosePosition")) return undefined;
    const key = requestedRecordKey(command.request);
    if (key === undefined || !state.retention.forgotten.mayHold(key)) return undefined;
    return state.client_ids.has(key) || !owned(state, userId) ? undefined : key;
  },
} satisfies Partial<ActorCore<EngineTypes>>;

/**
 * `forget` of a shard's core: each order dropped rendered for the order archive, each client_id record for the
 * table of spent client_ids (in the units of the shard's catalogue).
 */
function forgetRendered(
  state: AccountState,
  limits: ActorLimits,
  catalogueOf: () => Catalogue,
  archive: ((record: ArchivedRecord) => void) | undefined,
  spend: ((record: SpentKey) => void) | undefined,
): readonly string[] {
  if (archive === undefined && spend === undefined) return forgetExpired(state, limits);
  const catalogue = catalogueOf();
  const onOrder =
    archive === undefined
      ? undefined
      : (order: Order) => {
          archive(archivedOrder(order, unitsFor(catalogue, order.symbol)));
        };
  const onRecord =
    spend === undefined
      ? undefined
      : (clientId: string, record: IdempotencyRecord) => {
          spend(spentClientId(clientId, record, state.account_id, catalogue));
        };
  return forgetExpired(state, limits, onOrder, onRecord);
}

/** The spent client_id the shell looked up, as the core's decision reads it. */
function recalledClientId(recalled: Recalled) {
  return {
    clientId: recalled.key,
    record: recalled.record === undefined ? undefined : recalledRecord(recalled.record),
  };
}

/** What one shard's core keeps between calls. */
interface PerShard {
  /** The news calendar as this shard last received it (the engine sends it at start and on every change). */
  calendar: readonly NewsEvent[];
  /** The limits of this shard's actors (docs/engine.md, "Limits"), set once by `configure`. */
  limits: ActorLimits;
  /** The shard's view, made on first use (no prices yet) so decide always has one. */
  view: MarketView | undefined;
  /**
   * The symbols of the price update the shard is delivering: `onMarket` runs once per account it reaches, with
   * the same update object, so the set is made once per update.
   */
  moved: { update: PriceUpdate; symbols: ReadonlySet<string> } | undefined;
  /** The prices of the funding tick the shard is delivering, by symbol, made once per tick likewise. */
  funding?: { update: PriceUpdate; prices: ReadonlyMap<string, FundingPrice> };
}

/** A price update's command; the set of its symbols is made once for every account the update reaches. */
function priceCommand(shard: PerShard, update: PriceUpdate): MarketUpdateCommand {
  if (shard.moved?.update !== update) {
    shard.moved = { update, symbols: new Set(update.prices.map((quote) => quote.symbol)) };
  }
  return { type: "MarketUpdate", symbols: shard.moved.symbols };
}

/** A funding tick's command; its prices by symbol are made once for every account the tick reaches. */
function fundingCommand(shard: PerShard, update: PriceUpdate, rates: FundingRates): FundingCommand {
  const command: FundingCommand = { type: "Funding", rates };
  if (update.fundingBoundary !== undefined) command.boundary = update.fundingBoundary;
  if (update.fundingPrices === undefined) return command;
  if (shard.funding?.update !== update) {
    const prices = new Map<string, FundingPrice>();
    for (const quote of update.fundingPrices) prices.set(quote.symbol, { mark: quote.mark, index: quote.index });
    shard.funding = { update, prices };
  }
  command.prices = shard.funding.prices;
  return command;
}

/** The trading core of one shard (the shard runtime calls it once per shard). */
export function createCore(): ActorCore<EngineTypes> {
  const shard: PerShard = { calendar: [], limits: DEFAULT_ACTOR_LIMITS, view: undefined, moved: undefined };
  const viewOf = (market: MarketView | undefined): MarketView => market ?? (shard.view ??= createMarketView());
  const marketContext = (ctx: DecideContext<MarketView>) => ({
    now: ctx.now,
    market: viewOf(ctx.market),
    nextId: ctx.nextId,
    calendar: shard.calendar,
  });
  return {
    ...ACCOUNT_HOOKS,

    decide(state, { userId, command }, ctx) {
      if (command.type !== "OpenAccount" && !owned(state, userId)) {
        return { events: [], reply: { kind: "error", code: "not_found", fields: {} } };
      }
      const decideContext = {
        now: ctx.now,
        market: viewOf(ctx.market),
        nextId: ctx.nextId,
        calendar: shard.calendar,
        maxWorkingOrders: shard.limits.maxWorkingOrders,
      };
      if (ctx.recalled === undefined) return decide(state, command, decideContext);
      return decide(state, command, { ...decideContext, recalled: recalledClientId(ctx.recalled) });
    },

    configure(settings) {
      shard.limits = parseActorLimits(settings);
    },

    forget(state, archive, spend) {
      return forgetRendered(state, shard.limits, () => viewOf(undefined).catalogue, archive, spend);
    },

    query(state, { userId, query }, ctx) {
      if (!owned(state, userId)) throw new ServiceError("not_found");
      return answerQuery(state, query, viewOf(ctx.market), ctx.now);
    },

    updateMarket(market, update, now) {
      if (update.calendar !== undefined) shard.calendar = Object.freeze([...update.calendar]);
      const view = viewOf(market);
      for (const quote of update.prices) {
        const { mark, index, skew } = quote;
        setQuote(view, quote.symbol, { mark, index, skew, at: quote.at ?? now }); // restored: the time it was set
      }
      return view;
    },

    onMarket(state, update, ctx) {
      if (update.funding !== undefined) {
        return decide(state, fundingCommand(shard, update, update.funding), marketContext(ctx)).events;
      }
      if (update.prices.length === 0 || update.restoring === true) return [];
      return decide(state, priceCommand(shard, update), marketContext(ctx)).events;
    },

    onClock(state, ctx) {
      return decide(state, { type: "MarketUpdate" }, marketContext(ctx)).events;
    },

    onDecided(market, events) {
      consumeFills(viewOf(market), events);
    },

    onUndecided(market, events) {
      releaseFills(viewOf(market), events);
    },

    outbox(state, event, market) {
      return outboxEntries(state, event, viewOf(market));
    },
  };
}
