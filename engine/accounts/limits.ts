// The bounds that keep one user from growing the engine without end (docs/engine.md, "Limits"): how many
// accounts a user may hold, how many working orders an account, and how long final orders and `client_id`
// records stay in an account actor's memory. The engine's settings (engine/config.ts) override the defaults;
// the shard threads receive them at start (`core.configure`).
import { DAY_MS } from "../../kernel/time.js";

/** ENGINE_MAX_ACCOUNTS_PER_USER: accounts one user may hold (enforced in the database, store/account-slots.ts). */
export const DEFAULT_MAX_ACCOUNTS_PER_USER = 100;
/** ENGINE_MAX_WORKING_ORDERS: working orders (NEW, PARTIALLY_FILLED, HELD) one account may hold. */
export const DEFAULT_MAX_WORKING_ORDERS = 200;
/** ENGINE_FINAL_ORDER_RETENTION_MS: how long a final order stays in memory after it became final. */
export const DEFAULT_FINAL_ORDER_RETENTION_MS = 3_600_000;
/** ENGINE_FINAL_ORDERS_KEPT: the most final orders an account keeps in memory (the newest). */
export const DEFAULT_FINAL_ORDERS_KEPT = 1_000;
/** ENGINE_CLIENT_ID_WINDOW_MS: how long a `client_id` replays its first answer (Stripe keeps keys 24 h). */
export const DEFAULT_CLIENT_ID_WINDOW_MS = DAY_MS;
/** ENGINE_CLIENT_IDS_KEPT: the most `client_id` records an account keeps (the newest), whatever their age. */
export const DEFAULT_CLIENT_IDS_KEPT = 10_000;

/** ENGINE_SNAPSHOT_EVERY: events of an account between two snapshots of its state (docs/engine.md, "Snapshots"). */
export const DEFAULT_SNAPSHOT_EVERY = 1_000;

/** What an account actor keeps in memory, and how many working orders it accepts. */
export interface ActorLimits {
  readonly maxWorkingOrders: number;
  readonly finalOrderRetentionMs: number;
  readonly finalOrdersKept: number;
  readonly clientIdWindowMs: number;
  readonly clientIdsKept: number;
}

export const DEFAULT_ACTOR_LIMITS: ActorLimits = Object.freeze({
  maxWorkingOrders: DEFAULT_MAX_WORKING_ORDERS,
  finalOrderRetentionMs: DEFAULT_FINAL_ORDER_RETENTION_MS,
  finalOrdersKept: DEFAULT_FINAL_ORDERS_KEPT,
  clientIdWindowMs: DEFAULT_CLIENT_ID_WINDOW_MS,
  clientIdsKept: DEFAULT_CLIENT_IDS_KEPT,
});
