// Test-only: what the router's tests with stand-in engines send (gateway/engine-hold.test.ts,
// gateway/engine-router.standby.test.ts).
import { randomUUID } from "node:crypto";
import { partitionOf } from "../kernel/partition.js";

/** A random account id in a partition of engine `engine` of `engines`. */
export function accountOn(engine: number, engines: number): string {
  for (;;) {
    const id = randomUUID();
    if (partitionOf(id) % engines === engine) return id;
  }
}

/** A MARKET order request of `accountId`. */
export const order = (accountId: string) => ({
  user_id: "u",
  account_id: accountId,
  symbol: "BTC-USD",
  side: "BUY",
  kind: "MARKET",
  quantity: "0.01",
});
