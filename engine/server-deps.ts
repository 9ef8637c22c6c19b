// What the engine's gRPC handlers are built on (engine/server.ts): the catalogue, prices and calendar, the
// shard runtime, and the tables and settings a few calls use directly.
import type { Logger } from "../kernel/log.js";
import type { RpcMetrics } from "../kernel/rpc-metrics.js";
import type { PlanCatalogue } from "./basics/plans.js";
import type { EngineTypes } from "./trading-core.js";
import type { NewsCalendar, NewsEvent } from "./market/calendar.js";
import type { Catalogue } from "./market/catalogue.js";
import type { LivePrices, TickQuote } from "./market/prices.js";
import type { ShardRuntime } from "./shard/runtime.js";
import type { Reservation } from "./store/account-slots.js";
import type { OrderArchive } from "./store/order-archive.js";
import type { WebhookStore } from "./webhooks/store.js";
import type { AccountWatches } from "./webhooks/watch.js";

export interface EngineServerDeps {
  catalogue: Catalogue;
  plans: PlanCatalogue;
  prices: LivePrices;
  runtime: ShardRuntime<EngineTypes>;
  /** Applies pushed prices on every shard (and to `prices`); resolves after every shard applied them. */
  publish: (quotes: TickQuote[]) => Promise<void>;
  /** The news calendar market.v1 SetCalendar replaces. */
  calendar: NewsCalendar;
  /** Makes a new calendar durable and hands it to every shard; resolves once both are done. */
  applyCalendar: (events: NewsEvent[]) => Promise<void>;
  /** Whether market.v1 (PushPrices, SetCalendar) is accepted (PRICE_FEED=push). */
  acceptsPushes: boolean;
  /** Wall clock in Unix epoch milliseconds; injected so market hours are testable. */
  now: () => number;
  /** When set, every call needs `authorization: Bearer <token>` metadata. */
  internalToken: string | undefined;
  /** gRPC latency by method and code; none when metrics are off. */
  metrics?: RpcMetrics | undefined;
  /** Counts a call not decided because its deadline passed first (engine_commands_expired_total); none when off. */
  expired?: ((method: string) => void) | undefined;
  log: Logger;
  /** The outbox and delivery tables (catch-up events, delivery log). */
  webhooks: WebhookStore;
  /** The orders the actors forgot (docs/engine.md, "The order archive"), for the order lookups. */
  orders: OrderArchive;
  /** The live account watches (WatchAccount); absent: WatchAccount answers engine_unavailable. */
  watches?: AccountWatches;
  /** This engine's index and the number of engines: new accounts are minted in partitions it owns. */
  engine?: { index: number; count: number };
  /**
   * The per-user cap on accounts (docs/engine.md, "Limits"): a slot is reserved in the shared database before
   * the account is opened. No cap when absent (tests of other parts).
   */
  accountCap?: { slots: AccountSlotStore; limit: number };
}

/** What CreateAccount needs of engine/store/account-slots.ts. */
export interface AccountSlotStore {
  reserve(userId: string, accountId: string, limit: number): Promise<Reservation>;
  release(accountId: string): Promise<void>;
}
