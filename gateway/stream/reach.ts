// Which accounts a trading operation on the stream touches, for its lane (gateway/stream/lanes.ts): the account
// its args name; for a cancel or an amend, the account of the order when the socket saw the order in an answer,
// else every account (a barrier); for a batch, each order's account. Args the operation will refuse name none.
import { isUuid } from "../../kernel/uuid.js";
import type { Reach } from "./lanes.js";

/** Orders a socket remembers the account of (the most recent), so a cancel or amend runs in the account's lane. */
export const MAX_KNOWN_ORDERS = 10_000;

/** Deepest an answer is searched for orders (a flatten's closes hold orders two levels down). */
const MAX_DEPTH = 4;

/** The account a trading operation's args name, lower case; undefined when they name none. */
function accountIn(args: unknown): string | undefined {
  const value = (args as { account_id?: unknown } | null)?.account_id;
  if (typeof value !== "string") return undefined;
  const id = value.toLowerCase();
  return isUuid(id) ? id : undefined;
}

export class OrderAccounts {
  private readonly accounts = new Map<string, string>();

  get size(): number {
    return this.accounts.size;
  }

  /** The accounts the operation `name` with `args` touches. */
  reachOf(name: string, args: unknown): Reach {
    const record = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : undefined;
    switch (name) {
      case "order.cancel":
      case "order.amend": {
        const orderId = typeof record?.order_id === "string" ? record.order_id.toLowerCase() : "";
        if (!isUuid(orderId)) return [];
        const account = this.accounts.get(orderId);
        return account === undefined ? "all" : [account];
      }
      case "orders.batch": {
        const orders = record?.orders;
        return Array.isArray(orders) ? orders.flatMap((order) => accountIn(order) ?? []) : [];
      }
      default: {
        const account = accountIn(record);
        return account === undefined ? [] : [account];
      }
    }
  }

  /** Remembers the account of every order an answer's body carries (an object with `order_id` and `account_id`). */
  learn(value: unknown, depth = 0): void {
    if (typeof value !== "object" || value === null || depth > MAX_DEPTH) return;
    if (Array.isArray(value)) {
      for (const item of value) this.learn(item, depth + 1);
      return;
    }
    const record = value as Record<string, unknown>;
    if (typeof record.order_id === "string" && typeof record.account_id === "string") {
      this.remember(record.order_id.toLowerCase(), record.account_id.toLowerCase());
    }
    for (const field of Object.values(record)) {
      if (typeof field === "object") this.learn(field, depth + 1);
    }
  }

  private remember(orderId: string, accountId: string): void {
    this.accounts.delete(orderId);
    this.accounts.set(orderId, accountId);
    if (this.accounts.size <= MAX_KNOWN_ORDERS) return;
    const oldest = this.accounts.keys().next().value;
    if (oldest !== undefined) this.accounts.delete(oldest);
  }
}
