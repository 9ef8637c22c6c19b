// The request mix of every load scenario, shared by the Node driver (scripts/load/) and the k6 scripts
// (load-tests/k6/), so both send the same requests. Pure code: no Node and no k6 imports.
//
// A key's n-th request is MIX[n % 20]: 14 reads (70%), 5 place/cancel (25%: two resting LIMIT orders far from
// the mark, their two cancels, one MARKET order that fills) and 1 close (5%) of what the MARKET order opened.
// A cancel with no order of its own to cancel, or a close with no position of its own to close (the place was
// refused, or its answer has not arrived yet), is sent as the read `orders` / `positions` instead and counted
// as that read.

export const OPERATIONS = [
  "account",
  "positions",
  "orders",
  "summary",
  "tickers",
  "place-limit",
  "place-market",
  "cancel",
  "close",
] as const;
export type Operation = (typeof OPERATIONS)[number];

export const MIX: readonly Operation[] = [
  "account",
  "place-limit",
  "positions",
  "orders",
  "cancel",
  "summary",
  "tickers",
  "place-market",
  "account",
  "positions",
  "place-limit",
  "orders",
  "summary",
  "cancel",
  "tickers",
  "account",
  "close",
  "positions",
  "orders",
  "summary",
];

export type OperationClass = "read" | "place/cancel" | "close";

export function classOf(op: Operation): OperationClass {
  switch (op) {
    case "place-limit":
    case "place-market":
    case "cancel":
      return "place/cancel";
    case "close":
      return "close";
    default:
      return "read";
  }
}

/** The operation planned for a key's `seq`-th request (seq counts from 0). */
export function plannedOperation(seq: number): Operation {
  const op = MIX[((seq % MIX.length) + MIX.length) % MIX.length];
  if (op === undefined) throw new Error("empty mix");
  return op;
}

/** The status a successful answer to `op` has. */
export function expectedStatus(op: Operation): number {
  return op === "place-limit" || op === "place-market" || op === "close" ? 201 : 200;
}

/** Prices and sizes of one symbol, as strings the API accepts (multiples of tick size and quantity step). */
export interface SymbolPlan {
  symbol: string;
  mark: number;
  /** Resting BUY limit: half the mark. */
  buyLimit: string;
  /** Resting SELL limit: twice the mark. */
  sellLimit: string;
  quantity: string;
}

/** Digits after the point of a decimal string ("0.01" → 2, "5" → 0). */
export function decimalsOf(step: string): number {
  const dot = step.indexOf(".");
  return dot < 0 ? 0 : step.length - dot - 1;
}

/** `value` rounded down to a multiple of `step` (a decimal string), formatted with the step's digits. */
export function toStep(value: number, step: string): string {
  const digits = decimalsOf(step);
  const scale = 10 ** digits;
  const stepUnits = Math.round(Number(step) * scale);
  if (!Number.isFinite(value) || stepUnits <= 0) throw new Error(`bad value ${value} or step ${step}`);
  const units = Math.floor(Math.round(value * scale * 1e6) / 1e6 / stepUnits) * stepUnits;
  return (units / scale).toFixed(digits);
}

export interface TickerInfo {
  symbol: string;
  mark_price: string | number | null;
  tick_size: string | number;
  quantity_step: string | number;
  min_quantity: string | number;
}

/** A step as a plain decimal string (the API may answer numbers: 0.0001 → "0.0001", 1e-7 → "0.0000001"). */
export function stepText(step: string | number): string {
  if (typeof step === "string") return step;
  const text = String(step);
  return text.includes("e") ? step.toFixed(20).replace(/0+$/, "") : text;
}

/** Far-from-the-mark limits and a small quantity (10 steps, at least the minimum) for one ticker. */
export function planSymbol(ticker: TickerInfo): SymbolPlan {
  const mark = Number(ticker.mark_price);
  if (!(mark > 0)) throw new Error(`${ticker.symbol} has no mark price (push a price or start the simulator)`);
  const tick = stepText(ticker.tick_size);
  const qStep = stepText(ticker.quantity_step);
  const quantity = Math.max(Number(qStep) * 10, Number(ticker.min_quantity));
  return {
    symbol: ticker.symbol,
    mark,
    buyLimit: toStep(mark / 2, tick),
    sellLimit: toStep(mark * 2, tick),
    quantity: toStep(quantity, qStep),
  };
}

/** What a key remembers between its requests: its resting orders and how many MARKET buys it has not closed. */
export interface KeyState {
  restingOrders: string[];
  openBuys: number;
  /** Place-limit alternates BUY and SELL. */
  limitsPlaced: number;
}

export function newKeyState(): KeyState {
  return { restingOrders: [], openBuys: 0, limitsPlaced: 0 };
}

/** The operation actually sent for `planned`, given the key's state (see the file comment). */
export function resolveOperation(planned: Operation, state: KeyState): Operation {
  if (planned === "cancel" && state.restingOrders.length === 0) return "orders";
  if (planned === "close" && state.openBuys === 0) return "positions";
  return planned;
}

export interface PlannedRequest {
  method: "GET" | "POST" | "DELETE";
  path: string;
  body: string | undefined;
}

export interface RequestContext {
  accountId: string;
  plan: SymbolPlan;
  /** Unique per request over the whole run (client_id of orders). */
  clientId: string;
}

/** POST /v1/order of the plan's symbol and quantity; a LIMIT order rests at `limitPrice`. */
function orderRequest(
  ctx: RequestContext,
  side: "BUY" | "SELL",
  kind: "LIMIT" | "MARKET",
  limitPrice?: string,
): PlannedRequest {
  return {
    method: "POST",
    path: "/v1/order",
    body: JSON.stringify({
      account_id: ctx.accountId,
      symbol: ctx.plan.symbol,
      side,
      kind,
      quantity: ctx.plan.quantity,
      ...(limitPrice === undefined ? {} : { limit_price: limitPrice }),
      client_id: ctx.clientId,
    }),
  };
}

/**
 * The request for `op` (already resolved). Takes what it needs from `state` at send time: the order a cancel
 * cancels is removed from the resting list, a close takes one open buy, a limit flips the side.
 */
export function buildRequest(op: Operation, ctx: RequestContext, state: KeyState): PlannedRequest {
  const account = `/v1/account/${ctx.accountId}`;
  const { plan } = ctx;
  switch (op) {
    case "account":
      return { method: "GET", path: account, body: undefined };
    case "positions":
      return { method: "GET", path: `${account}/positions`, body: undefined };
    case "orders":
      return { method: "GET", path: `${account}/orders`, body: undefined };
    case "summary":
      return { method: "GET", path: `${account}/summary`, body: undefined };
    case "tickers":
      return { method: "GET", path: "/v1/tickers", body: undefined };
    case "place-limit": {
      const buy = state.limitsPlaced % 2 === 0;
      state.limitsPlaced++;
      return buy
        ? orderRequest(ctx, "BUY", "LIMIT", plan.buyLimit)
        : orderRequest(ctx, "SELL", "LIMIT", plan.sellLimit);
    }
    case "place-market":
      return orderRequest(ctx, "BUY", "MARKET");
    case "cancel": {
      const orderId = state.restingOrders.shift();
      if (orderId === undefined) throw new Error("cancel without a resting order (resolveOperation first)");
      return { method: "DELETE", path: `/v1/order/${orderId}`, body: undefined };
    }
    case "close":
      if (state.openBuys <= 0) throw new Error("close without an open buy (resolveOperation first)");
      state.openBuys--;
      // The quantity this key bought: several senders of one key (k6 VUs) each close only their own share.
      return {
        method: "POST",
        path: "/v1/position/close",
        body: JSON.stringify({
          account_id: ctx.accountId,
          symbol: plan.symbol,
          quantity: plan.quantity,
          client_id: ctx.clientId,
        }),
      };
  }
}

/** Updates `state` from a successful answer (`body` is the parsed JSON). */
export function learn(op: Operation, status: number, body: unknown, state: KeyState): void {
  if (status !== expectedStatus(op) || typeof body !== "object" || body === null) return;
  const order = (body as { order?: { order_id?: unknown; status?: unknown } }).order;
  if (op === "place-limit" && typeof order?.order_id === "string" && order.status === "NEW") {
    state.restingOrders.push(order.order_id);
  } else if (op === "place-market" && order?.status === "FILLED") {
    state.openBuys++;
  }
}

/** Whether the answer to `op` must be parsed (only orders teach the key something). */
export function needsBody(op: Operation): boolean {
  return op === "place-limit" || op === "place-market";
}

/**
 * One key's course through the mix: the operation and request of each of its sequence numbers, resolved against
 * what the key has learnt, and what the answers teach it. The Node driver and the k6 scripts both send through it.
 */
export class KeyMix {
  private readonly state = newKeyState();
  private readonly accountId: string;
  private readonly plan: SymbolPlan;

  constructor(accountId: string, plan: SymbolPlan) {
    this.accountId = accountId;
    this.plan = plan;
  }

  /** The key's `seq`-th operation and its request; `clientId` is unique per request over the whole run. */
  next(seq: number, clientId: string): { op: Operation; request: PlannedRequest } {
    const op = resolveOperation(plannedOperation(seq), this.state);
    return { op, request: buildRequest(op, { accountId: this.accountId, plan: this.plan, clientId }, this.state) };
  }

  /**
   * Takes the answer to `op`. `body` (the parsed JSON of the answer) is called only when the status is the one
   * `op` expects and the answer can teach the key something (see needsBody).
   */
  answered(op: Operation, status: number, body: () => unknown): void {
    if (status === expectedStatus(op) && needsBody(op)) learn(op, status, body(), this.state);
  }
}
