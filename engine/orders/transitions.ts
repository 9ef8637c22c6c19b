// The order lifecycle as one exhaustive table (docs/engine.md, "Order status"): every status × every
// lifecycle event names the next status or null. `transition` is the only way a status changes; anything the
// table refuses is a bug in the core and throws, never a client error.
import { OrderStatus } from "../basics/order-types.js";

/** The state of an order that does not exist yet. */
export const UNPLACED = "UNPLACED";
export type FromStatus = OrderStatus | typeof UNPLACED;

export const OrderEvent = {
  /** Passes risk. */
  accept: "accept",
  /** Passes risk as the child of a parent without fills. */
  hold: "hold",
  /** Fails risk, or post-only would take. */
  reject: "reject",
  /** The parent got its first fill. */
  activate: "activate",
  /** A fill that leaves some quantity. */
  fill_part: "fill_part",
  /** A fill of the rest. */
  fill_rest: "fill_rest",
  /** By the user, risk, a canceled parent, an OCO sibling's fill, IOC rest, reduce-only without position. */
  cancel: "cancel",
  /** GTD time passed, FOK not fully fillable. */
  expire: "expire",
} as const;
export type OrderEvent = (typeof OrderEvent)[keyof typeof OrderEvent];

const { HELD, NEW, PARTIALLY_FILLED, FILLED, CANCELED, REJECTED, EXPIRED } = OrderStatus;

const FINAL = {
  accept: null,
  hold: null,
  reject: null,
  activate: null,
  fill_part: null,
  fill_rest: null,
  cancel: null,
  expire: null,
} as const;

export const TRANSITIONS = {
  [UNPLACED]: { ...FINAL, accept: NEW, hold: HELD, reject: REJECTED },
  [HELD]: { ...FINAL, activate: NEW, cancel: CANCELED, expire: EXPIRED },
  [NEW]: { ...FINAL, fill_part: PARTIALLY_FILLED, fill_rest: FILLED, cancel: CANCELED, expire: EXPIRED },
  [PARTIALLY_FILLED]: { ...FINAL, fill_part: PARTIALLY_FILLED, fill_rest: FILLED, cancel: CANCELED, expire: EXPIRED },
  [FILLED]: FINAL,
  [CANCELED]: FINAL,
  [REJECTED]: FINAL,
  [EXPIRED]: FINAL,
} as const satisfies Readonly<Record<FromStatus, Readonly<Record<OrderEvent, OrderStatus | null>>>>;

/** The status after `event`; throws when the table refuses the move. */
export function transition(from: FromStatus, event: OrderEvent): OrderStatus {
  const to: OrderStatus | null = TRANSITIONS[from][event];
  if (to === null) throw new Error(`order transition refused: ${from} --${event}-->`);
  return to;
}
