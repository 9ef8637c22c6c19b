// A test harness for the core (used by the *.test.ts files only): one account, a scripted market and clock,
// deterministic ids, and the shell's loop (decide → apply → consume) so tests read as trading sessions.
// It also keeps the full journal so every test can check that a replay rebuilds the live state.
import { outboxEntries, type OutboxEntry } from "./webhooks/outbox.js";
import {
  apply,
  consumeFills,
  decide,
  type AccountState,
  type Command,
  type EngineEvent,
  type PlaceOrderReply,
  type PlacedReply,
  type ReplyByCommand,
} from "./core.js";
import { setQuote, createMarketView, type MarketView, type QuoteUpdate } from "./market/book.js";
import { orderById } from "./accounts/queries.js";
import { toGridCount, unitsFor } from "./market/units.js";
import type { ClosePositionRequest, PlaceOrderRequest } from "./orders/request.js";
import type { OrderRecord } from "./basics/order-records.js";
import type { AmendOrderRequest } from "./orders/manage.js";
import type { NewsEvent } from "./market/calendar.js";
import type { FundingRates } from "./risk/funding.js";

export const ACCOUNT_ID = "0a0a0a0a-0000-4000-8000-000000000001";
export const USER_ID = "0b0b0b0b-0000-4000-8000-000000000002";

/** Plans of the shipped catalogue the tests use. */
export const PLAN = {
  /** 10K, crypto leverage 2, forex 30, GMX and OSTIUM. */
  c10k: "48a184ce-7d26-4b3f-82e3-cbf4f08383ba",
  /** 100K, OSTIUM only, crypto leverage 2. */
  c100kOstium: "c671cd31-b56a-41fe-8d80-41fda892fbca",
  /** 200K, crypto leverage 2, forex 20. */
  c200k: "15ef9280-770d-4664-9de7-93fcd7677a98",
} as const;

/** Wednesday 2026-11-25 12:00 UTC: every market is open. */
export const WEDNESDAY_NOON = Date.parse("2026-11-25T12:00:00.000Z");

/** Money units of a decimal USD amount ("12.5" → 1_250_000_000). */
export function usd(amount: string): number {
  const parsed = toGridCount(amount, { mantissa: 1, scale: 8 });
  if (!parsed.ok) throw new Error(`bad amount ${amount}`);
  return parsed.count;
}

export interface PriceOptions {
  index?: string;
  skew?: number;
  depth?: number;
  open?: boolean;
}

export class Harness {
  state: AccountState | undefined;
  readonly journal: EngineEvent[] = [];
  readonly market: MarketView = createMarketView();
  now: number;
  lastEvents: EngineEvent[] = [];
  /** Every webhook event rendered so far, in order (docs/webhooks.md). */
  readonly outbox: OutboxEntry[] = [];
  /** The news calendar decisions see (time order). */
  calendar: NewsEvent[] = [];
  private counter = 0;

  constructor(now: number = WEDNESDAY_NOON) {
    this.now = now;
  }

  nextId = (): string => {
    this.counter += 1;
    return `00000000-0000-4000-8000-${this.counter.toString(16).padStart(12, "0")}`;
  };

  /** Runs one command through decide → apply → consume, as the shard shell does. */
  run<C extends Command>(command: C): ReplyByCommand[C["type"]] {
    const decision = decide(this.state, command, {
      now: this.now,
      market: this.market,
      nextId: this.nextId,
      calendar: this.calendar,
    });
    for (const event of decision.events) {
      this.state = apply(this.state, event);
      // As the shard shell does: rendered right after each event, on the state it left.
      this.outbox.push(...outboxEntries(this.state, event, this.market));
    }
    consumeFills(this.market, decision.events);
    this.journal.push(...decision.events);
    this.lastEvents = decision.events;
    return decision.reply;
  }

  get account(): AccountState {
    if (this.state === undefined) throw new Error("no account yet");
    return this.state;
  }

  open(planId: string = PLAN.c10k, defaultVenue?: string): this {
    const reply = this.run({
      type: "OpenAccount",
      request: { account_id: ACCOUNT_ID, user_id: USER_ID, plan_id: planId, default_venue: defaultVenue ?? null },
    });
    if (reply.kind !== "created") throw new Error(`open failed: ${JSON.stringify(reply)}`);
    return this;
  }

  /** Sets a symbol's quote from decimal prices (index = mark unless given) at `now`; does not run an update. */
  quote(symbol: string, mark: string, options: PriceOptions = {}): this {
    const tick = unitsFor(this.market.catalogue, symbol).tick;
    const ticks = (text: string): number => {
      const parsed = toGridCount(text, tick);
      if (!parsed.ok) throw new Error(`${text} is not on ${symbol}'s tick grid`);
      return parsed.count;
    };
    const update: QuoteUpdate = { mark: ticks(mark), index: ticks(options.index ?? mark), at: this.now };
    if (options.skew !== undefined) update.skew = options.skew;
    if (options.depth !== undefined) update.depth = options.depth;
    if (options.open !== undefined) update.open = options.open;
    setQuote(this.market, symbol, update);
    return this;
  }

  /** A price update: new quote, then MarketUpdate for that symbol. */
  price(symbol: string, mark: string, options: PriceOptions = {}): EngineEvent[] {
    this.quote(symbol, mark, options);
    this.run({ type: "MarketUpdate", symbols: new Set([symbol]) });
    return this.lastEvents;
  }

  place(
    request: Partial<PlaceOrderRequest> & Pick<PlaceOrderRequest, "symbol" | "side" | "kind" | "quantity">,
  ): PlaceOrderReply {
    return this.run({ type: "PlaceOrder", request: { account_id: ACCOUNT_ID, ...request } });
  }

  /** Places an order that must be created; returns its record. */
  placed(request: Parameters<Harness["place"]>[0]): PlacedReply {
    const reply = this.place(request);
    if (reply.kind !== "created") throw new Error(`expected created, got ${JSON.stringify(reply)}`);
    return reply;
  }

  /** POST /v1/order/test. */
  test(
    request: Partial<PlaceOrderRequest> & Pick<PlaceOrderRequest, "symbol" | "side" | "kind" | "quantity">,
  ): ReplyByCommand["TestOrder"] {
    return this.run({ type: "TestOrder", request: { account_id: ACCOUNT_ID, ...request } });
  }

  /** A funding tick at the current marks (for a funding boundary, when given). */
  funding(rates: FundingRates, boundary?: number): EngineEvent[] {
    this.run({ type: "Funding", rates, boundary });
    return this.lastEvents;
  }

  close(request: Partial<ClosePositionRequest> & Pick<ClosePositionRequest, "symbol">): PlaceOrderReply {
    return this.run({ type: "ClosePosition", request: { account_id: ACCOUNT_ID, ...request } });
  }

  cancel(orderId: string): ReplyByCommand["CancelOrder"] {
    return this.run({ type: "CancelOrder", request: { order_id: orderId } });
  }

  amend(request: AmendOrderRequest): ReplyByCommand["AmendOrder"] {
    return this.run({ type: "AmendOrder", request });
  }

  /** The wire record of any order of the account. */
  order(orderId: string): OrderRecord {
    const record = orderById(this.account, this.market, orderId);
    if (record === undefined) throw new Error(`no order ${orderId}`);
    return record;
  }

  /** Balance in units. */
  get balance(): number {
    return this.account.balance;
  }
}

/** The events about orders only (leaves out the risk monitor's day starts, high-water marks and breaches). */
export function orderEvents(events: readonly EngineEvent[]): EngineEvent[] {
  return events.filter((event) => event.type.startsWith("Order"));
}
