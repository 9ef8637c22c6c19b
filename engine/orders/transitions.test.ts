import { describe, expect, it } from "vitest";
import { OrderEvent, transition, TRANSITIONS, UNPLACED, type FromStatus } from "./transitions.js";
import { OrderStatus } from "../basics/order-types.js";

// The lifecycle of docs/engine.md written out by hand, independently of the table under test.
const ALLOWED: readonly [FromStatus, OrderEvent, OrderStatus][] = [
  [UNPLACED, "hold", "HELD"],
  [UNPLACED, "accept", "NEW"],
  [UNPLACED, "reject", "REJECTED"],
  ["HELD", "activate", "NEW"],
  ["NEW", "fill_part", "PARTIALLY_FILLED"],
  ["PARTIALLY_FILLED", "fill_part", "PARTIALLY_FILLED"],
  ["NEW", "fill_rest", "FILLED"],
  ["PARTIALLY_FILLED", "fill_rest", "FILLED"],
  ["NEW", "cancel", "CANCELED"],
  ["PARTIALLY_FILLED", "cancel", "CANCELED"],
  ["HELD", "cancel", "CANCELED"],
  ["NEW", "expire", "EXPIRED"],
  ["PARTIALLY_FILLED", "expire", "EXPIRED"],
  ["HELD", "expire", "EXPIRED"],
];

const FROM: readonly FromStatus[] = [UNPLACED, ...Object.values(OrderStatus)];
const EVENTS: readonly OrderEvent[] = Object.values(OrderEvent);
const allowed = new Set(ALLOWED.map(([from, event]) => `${from} ${event}`));
const REFUSED = FROM.flatMap((from) =>
  EVENTS.filter((event) => !allowed.has(`${from} ${event}`)).map((event) => [from, event] as const),
);

describe("the order status transition table", () => {
  it.each(ALLOWED)("moves %s on %s to %s", (from, event, to) => {
    expect(transition(from, event)).toBe(to);
  });

  it.each(REFUSED)("refuses %s on %s by throwing", (from, event) => {
    expect(() => transition(from, event)).toThrow(/order transition refused/);
  });

  it("covers every status and every event", () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...FROM].sort());
    for (const from of FROM) expect(Object.keys(TRANSITIONS[from]).sort()).toEqual([...EVENTS].sort());
    expect(ALLOWED.length + REFUSED.length).toBe(FROM.length * EVENTS.length);
  });

  it.each(["FILLED", "CANCELED", "REJECTED", "EXPIRED"] as const)("leaves %s final", (status) => {
    for (const event of EVENTS) expect(() => transition(status, event)).toThrow();
  });
});
