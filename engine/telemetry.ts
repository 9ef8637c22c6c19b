// The engine's business metrics, taken from committed events inside the shard threads (the actor's `tally`
// and `stateOf`) and carried to the main thread as compact series keys in the shards' stats notices;
// engine/metrics.ts turns the keys back into labels. Every label comes from a fixed set: order kinds,
// outcomes, risk rules, liquidity, account states. Never an id.
import type { AccountState } from "./basics/account-state.js";
import type { EngineEvent } from "./basics/events.js";

export const ORDER_OUTCOMES = ["accepted", "rejected", "filled", "canceled", "expired"] as const;
export type OrderOutcome = (typeof ORDER_OUTCOMES)[number];

/** A series of the engine's counters. */
export type Tally =
  | { metric: "orders"; kind: string; outcome: OrderOutcome; rule: string }
  | { metric: "fills"; kind: string; liquidity: string }
  | { metric: "terminations"; rule: string };

const SEP = "|";

export function tallyKey(tally: Tally): string {
  switch (tally.metric) {
    case "orders":
      return ["orders", tally.kind, tally.outcome, tally.rule].join(SEP);
    case "fills":
      return ["fills", tally.kind, tally.liquidity].join(SEP);
    case "terminations":
      return ["terminations", tally.rule].join(SEP);
  }
}

/** The series a key names; undefined for a key this version does not know. */
export function parseTallyKey(key: string): Tally | undefined {
  const [metric, a, b, c] = key.split(SEP);
  if (metric === "orders" && a !== undefined && c !== undefined && isOutcome(b)) {
    return { metric, kind: a, outcome: b, rule: c };
  }
  if (metric === "fills" && a !== undefined && b !== undefined) return { metric, kind: a, liquidity: b };
  if (metric === "terminations" && a !== undefined) return { metric, rule: a };
  return undefined;
}

function isOutcome(value: string | undefined): value is OrderOutcome {
  return (ORDER_OUTCOMES as readonly (string | undefined)[]).includes(value);
}

const kindOf = (state: AccountState, orderId: string): string => state.orders.get(orderId)?.kind ?? "unknown";

/** The actor's `tally`: called with the state right after `event` was applied to it. */
export function tallyEvent(state: AccountState, event: EngineEvent, count: (key: string) => void): void {
  switch (event.type) {
    case "OrderAccepted":
      count(tallyKey({ metric: "orders", kind: event.order.kind, outcome: "accepted", rule: "none" }));
      return;
    case "OrderRejected":
      count(
        tallyKey({
          metric: "orders",
          kind: event.order.kind,
          outcome: "rejected",
          rule: event.violations[0]?.rule ?? "none",
        }),
      );
      return;
    case "OrderFilled": {
      const order = state.orders.get(event.fill.order_id);
      const kind = order?.kind ?? "unknown";
      count(tallyKey({ metric: "fills", kind, liquidity: event.fill.liquidity }));
      if (order?.status === "FILLED") count(tallyKey({ metric: "orders", kind, outcome: "filled", rule: "none" }));
      return;
    }
    case "OrderCanceled":
      count(tallyKey({ metric: "orders", kind: kindOf(state, event.order_id), outcome: "canceled", rule: "none" }));
      return;
    case "OrderExpired":
      count(tallyKey({ metric: "orders", kind: kindOf(state, event.order_id), outcome: "expired", rule: "none" }));
      return;
    case "AccountTerminated":
      count(tallyKey({ metric: "terminations", rule: event.violation.rule }));
      return;
    default:
      return;
  }
}

/** The actor's `stateOf`: ACTIVE, PASSED or TERMINATED. */
export function accountStateOf(state: AccountState): string {
  return state.state;
}
