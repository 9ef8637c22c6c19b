// A reference model of one funded account, written from docs/risk.md and docs/engine.md alone: integer money
// (BigInt units of 1e-8 USD), netted positions with average cost, fees per venue, margin, working orders and
// their reserves, the simulated book, time in force, brackets, the pre-trade rules in their documented order and
// the exposure rules at fill time, market hours, the monitoring (high-water mark, breach levels, termination,
// passing), funding per boundary and the daily reset. It shares no code with the engine: the test drives both
// with the same steps and compares them.
import {
  BOOK_LEVELS,
  DAY_MS,
  MINUTE_MS,
  MONEY,
  PPM,
  SYMBOLS,
  divRound,
  feeOf,
  marketOpen,
  tickerOf,
  type AssetClass,
  type Liquidity,
  type PlanSpec,
  type Side,
  type Ticker,
  type Venue,
} from "./spec.js";

export type Kind = "MARKET" | "LIMIT" | "STOP" | "TAKE_PROFIT";
export type Rule =
  | "account_terminated"
  | "venue_not_allowed"
  | "market_closed"
  | "drawdown_gate"
  | "daily_loss_limit"
  | "news_freeze"
  | "exposure_cap"
  | "insufficient_margin"
  | "post_only_would_take";
export type LimitRule = "daily_loss_limit" | "drawdown_gate";
export type Severity = "info" | "warning" | "critical";
export type Status = "ACTIVE" | "PASSED" | "TERMINATED";

export interface ModelOrder {
  readonly ref: number;
  readonly symbol: string;
  readonly venue: Venue;
  readonly side: Side;
  readonly kind: Kind;
  readonly quantity: bigint;
  filled: bigint;
  readonly limit: bigint | null;
  readonly trigger: bigint | null;
  readonly reduceOnly: boolean;
  readonly postOnly: boolean;
  readonly timeInForce: TimeInForce;
  triggered: boolean;
  /** Placed while its market was closed (the driver counts its fills at the open). */
  readonly placedClosed: boolean;
  /** A bracket child's parent (its ref), or null. */
  readonly parent: number | null;
  /** A parent's children (refs), in placement order. */
  readonly children: number[];
  /** HELD: a child waiting for its parent's first fill. */
  held: boolean;
}

export type TimeInForce = "GTC" | "IOC" | "FOK";

export interface ModelPosition {
  readonly symbol: string;
  readonly venue: Venue;
  readonly side: Side;
  quantity: bigint;
  cost: bigint;
  readonly leverage: bigint;
  /** When the position was opened (a flip opens a new one). */
  readonly openedAt: number;
}

export interface ModelQuote {
  mark: bigint;
  index: bigint;
  skew: number;
  takenBuy: bigint;
  takenSell: bigint;
  /** Steps per book level at this update. */
  depth: bigint;
}

export interface FillOut {
  readonly ref: number;
  readonly symbol: string;
  readonly venue: Venue;
  readonly side: Side;
  readonly quantity: bigint;
  readonly price: bigint;
  readonly fee: bigint;
  readonly realized: bigint;
  readonly liquidity: Liquidity;
  /** Set on the risk system's fills: a liquidation, or a termination's close. */
  readonly reason?: "liquidation" | "termination";
}

export interface BreachOut {
  readonly rule: LimitRule;
  readonly severity: Severity;
  readonly threshold: bigint;
  readonly value: bigint;
}

/** The rules a termination or a refused fill names. */
export type LimitRuleOrExposure = LimitRule | "news_freeze" | "exposure_cap" | "insufficient_margin";

export interface ViolationOut {
  readonly rule: LimitRuleOrExposure;
  readonly threshold: bigint;
  readonly value: bigint;
}

export interface FundingOut {
  readonly symbol: string;
  readonly venue: Venue;
  readonly ratePpm: bigint;
  readonly amount: bigint;
}

export type CancelReason =
  | "user"
  | "risk"
  | "ioc_remainder"
  | "fok"
  | "parent_canceled"
  | "oco"
  | "reduce_only_no_position"
  | "drawdown_gate"
  | "daily_loss_limit"
  | "news_freeze"
  | "exposure_cap"
  | "insufficient_margin";

/** Everything one step did besides its reply. */
export interface Effects {
  dayStarted: bigint | null;
  fills: FillOut[];
  cancels: { ref: number; reason: CancelReason }[];
  breaches: BreachOut[];
  violation: ViolationOut | null;
  funding: FundingOut[];
  passed: boolean;
  /** STOP/TAKE_PROFIT orders triggered and re-armed, in order. */
  triggers: { ref: number; what: "triggered" | "rearmed" }[];
}

export interface Headroom {
  readonly dailyLoss: bigint;
  readonly drawdown: bigint;
  readonly symbolExposure: bigint;
  readonly totalExposure: bigint;
}

export type PlaceResult =
  /** `terminatedBy`: the rule whose violation terminated the account as the order's fills were judged. */
  | { kind: "created"; ref: number; headroom: Headroom; terminatedBy?: LimitRuleOrExposure }
  | { kind: "rejected"; ref: number; rule: Rule; headroom: Headroom }
  | { kind: "tested"; rules: Rule[]; headroom: Headroom }
  | { kind: "error"; code: "conflict" | "not_found" }
  /** A retry of a used client_id with the same body: the first answer again (its order, rule and headroom). */
  | { kind: "replayed"; first: Recorded }
  /** A retry of a used client_id with another body: 409 naming the first answer's order. */
  | { kind: "error"; code: "conflict"; first: Recorded };

/** What a client_id's first answer was: an order placed (created or rejected). */
export type Recorded = Extract<PlaceResult, { kind: "created" | "rejected" }>;

export interface OrderRequest {
  readonly symbol: string;
  readonly venue: Venue;
  readonly side: Side;
  readonly kind: Kind;
  readonly quantity: bigint;
  readonly limit?: bigint | null;
  readonly trigger?: bigint | null;
  readonly reduceOnly?: boolean;
  readonly postOnly?: boolean;
  /** GTC unless given (IOC for MARKET). */
  readonly timeInForce?: TimeInForce;
  /** A bracket child's parent (its ref): the child is reduce-only, on the parent's venue. */
  readonly parent?: number;
}

/** One symbol's prices in a price update (ticks); the book's depth per level (steps) when not the usual. */
export interface PriceIn {
  symbol: string;
  mark: bigint;
  index: bigint;
  skew: number;
  depth?: bigint | undefined;
}

export interface CalendarEvent {
  readonly at: number;
  readonly symbols: readonly string[];
  readonly assetClasses: readonly AssetClass[];
}

export interface Limits {
  readonly reference: bigint;
  readonly allowance: bigint;
  readonly floor: bigint;
  readonly dailyLimit: bigint;
  readonly target: bigint;
}

const BREACH_LEVELS: readonly { percent: bigint; severity: Severity }[] = [
  { percent: 50n, severity: "info" },
  { percent: 80n, severity: "warning" },
  { percent: 100n, severity: "critical" },
];

/** `pct(x, p)`: round(x × p / 100) to the unit, p with up to 4 decimals. */
export function pct(units: bigint, percent: number): bigint {
  return divRound(units * BigInt(Math.round(percent * 10_000)), PPM);
}

const usdUnits = (usd: number): bigint => BigInt(usd) * MONEY;
const opposite = (side: Side): Side => (side === "BUY" ? "SELL" : "BUY");
const direction = (side: Side): bigint => (side === "BUY" ? 1n : -1n);
const abs = (x: bigint): bigint => (x < 0n ? -x : x);
const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);
const notional = (ticks: bigint, steps: bigint, spec: Ticker): bigint => ticks * steps * spec.unitsPerTickStep;
const keyOf = (symbol: string, venue: Venue): string => `${symbol}|${venue}`;

export class AccountModel {
  readonly start: bigint;
  balance: bigint;
  highWaterMark: bigint;
  dayStartEquity: bigint;
  day: number;
  status: Status = "ACTIVE";
  dailyLevels = 0;
  drawdownLevels = 0;
  readonly positions = new Map<string, ModelPosition>();
  /** Working orders in placement order. */
  working: ModelOrder[] = [];
  /** Every order accepted, by ref. */
  readonly orders = new Map<number, ModelOrder>();
  readonly quotes = new Map<string, ModelQuote>();
  readonly breaches: BreachOut[] = [];
  readonly violations: ViolationOut[] = [];
  now: number;
  /** The latest funding boundary a payment was made for. */
  fundedThrough = Number.NEGATIVE_INFINITY;
  /** Funding ticks for a boundary that skipped a position opened at or after it, or paid nothing as a repeat. */
  readonly fundingSkips = { openedAfter: 0, repeated: 0 };
  private nextRef = 1;
  /** Every balance move of a fill (realized − fee) or a funding payment, with its time: realized P&L today. */
  private readonly moves: { at: number; amount: bigint }[] = [];
  /** The risk system's own closing orders count down from −1. */
  private nextRiskRef = -1;
  /** Children a parent's first fill activated during the current execution. */
  private activated: ModelOrder[] = [];
  private effects: Effects = AccountModel.noEffects();
  /**
   * Every client_id that placed an order (created or rejected), with the body it came with and the first answer:
   * a client_id is unique per account forever (docs/engine.md, "Idempotency"), so this is never pruned.
   */
  private readonly clientIds = new Map<string, { body: string; first: Recorded }>();

  constructor(
    readonly plan: PlanSpec,
    openedAt: number,
    readonly calendar: CalendarEvent[] = [],
  ) {
    this.start = usdUnits(plan.startingBalance);
    this.balance = this.start;
    this.highWaterMark = this.start;
    this.dayStartEquity = this.start;
    this.now = openedAt;
    this.day = Math.floor(openedAt / DAY_MS);
  }

  static noEffects(): Effects {
    return {
      dayStarted: null,
      fills: [],
      cancels: [],
      breaches: [],
      violation: null,
      funding: [],
      passed: false,
      triggers: [],
    };
  }

  orderKind(ref: number): Kind | undefined {
    return this.orders.get(ref)?.kind;
  }

  placedWhileClosed(ref: number): boolean {
    return this.orders.get(ref)?.placedClosed ?? false;
  }

  /** A step that runs no command: nothing happened. */
  idle(): void {
    this.effects = AccountModel.noEffects();
  }

  /** The effects of the last command (reset by every command). */
  get last(): Effects {
    return this.effects;
  }

  // ---- numbers every rule reads ----

  quote(symbol: string): ModelQuote {
    const quote = this.quotes.get(symbol);
    if (quote === undefined) throw new Error(`model: no price for ${symbol}`);
    return quote;
  }

  unrealized(): bigint {
    let total = 0n;
    for (const p of this.positions.values()) {
      const spec = tickerOf(p.symbol);
      total += direction(p.side) * (notional(this.quote(p.symbol).mark, p.quantity, spec) - p.cost);
    }
    return total;
  }

  equity(): bigint {
    return this.balance + this.unrealized();
  }

  leverageOf(spec: Ticker): bigint {
    return BigInt(Math.min(this.plan.maxLeverage[spec.assetClass], spec.maxLeverage));
  }

  marginLocked(): bigint {
    let total = 0n;
    for (const p of this.positions.values()) total += divRound(p.cost, p.leverage);
    return total;
  }

  /** Reserve of a working order: remaining × (limit, trigger or mark) / leverage; none for reduce-only. */
  reserveOf(order: ModelOrder): bigint {
    if (order.reduceOnly) return 0n;
    const spec = tickerOf(order.symbol);
    const price = order.limit ?? order.trigger ?? this.quote(order.symbol).mark;
    return divRound(notional(price, order.quantity - order.filled, spec), this.leverageOf(spec));
  }

  reserved(): bigint {
    let total = 0n;
    for (const order of this.working) total += this.reserveOf(order);
    return total;
  }

  marginAvailable(): bigint {
    return this.equity() - this.marginLocked() - this.reserved();
  }

  limits(): Limits {
    // The allowance is the plan's share of the starting balance; a trailing floor follows the high-water mark
    // until it reaches the starting balance, then stays there (docs/risk.md, "drawdown_gate").
    const allowance = pct(this.start, this.plan.maxDrawdownPct);
    const floor =
      this.plan.drawdownMode === "trailing" ? min(this.highWaterMark - allowance, this.start) : this.start - allowance;
    const reference = floor + allowance;
    return {
      reference,
      allowance,
      floor: reference - allowance,
      dailyLimit: pct(this.start, this.plan.dailyLossPct),
      target: this.start + pct(this.start, this.plan.profitTargetPct),
    };
  }

  dailyLoss(equity: bigint): bigint {
    return max(0n, this.dayStartEquity - equity);
  }

  /** max(|P + B|, |P − S|) of a symbol, with an order's added notional counted on its side. */
  symbolExposure(symbol: string, extra?: { symbol: string; side: Side; notional: bigint }): bigint {
    const spec = tickerOf(symbol);
    let position = 0n;
    for (const p of this.positions.values()) {
      if (p.symbol !== symbol) continue;
      position += direction(p.side) * notional(this.quote(symbol).mark, p.quantity, spec);
    }
    let buy = 0n;
    let sell = 0n;
    for (const order of this.working) {
      if (order.symbol !== symbol || order.reduceOnly || order.kind === "MARKET") continue;
      const price = order.limit ?? order.trigger;
      if (price === null) continue;
      const value = notional(price, order.quantity - order.filled, spec);
      if (order.side === "BUY") buy += value;
      else sell += value;
    }
    if (extra?.symbol === symbol) {
      if (extra.side === "BUY") buy += extra.notional;
      else sell += extra.notional;
    }
    return max(abs(position + buy), abs(position - sell));
  }

  totalExposure(extra?: { symbol: string; side: Side; notional: bigint }): bigint {
    let total = 0n;
    for (const symbol of SYMBOLS) total += this.symbolExposure(symbol, extra);
    return total;
  }

  isOpen(symbol: string): boolean {
    return marketOpen(tickerOf(symbol).assetClass, this.now);
  }

  /**
   * The summary's `realized_pnl_today` at `now`: the day's realized P&L minus its fees plus its funding since
   * 00:00Z of `now` (docs/risk.md, "daily_loss_limit"), whether or not a command has run since midnight.
   */
  realizedToday(now: number): bigint {
    const dayStart = Math.floor(now / DAY_MS) * DAY_MS;
    let total = 0n;
    for (const move of this.moves) if (move.at >= dayStart && move.at <= now) total += move.amount;
    return total;
  }

  // ---- commands ----

  /**
   * Starts every command: the first event at or after midnight judges the old day at the equity of the marks in
   * force at midnight (`resetEquity`: the marks before a price update that comes with it), then starts the new
   * day at that equity.
   */
  private begin(now: number, resetEquity: bigint = this.equity()): void {
    if (now < this.now) throw new Error("model: time runs backwards");
    this.now = now;
    this.effects = AccountModel.noEffects();
    const day = Math.floor(now / DAY_MS);
    if (day > this.day && this.status !== "TERMINATED") {
      this.judge(resetEquity);
      if ((this.status as Status) === "TERMINATED") return;
      this.day = day;
      this.dayStartEquity = resetEquity;
      this.dailyLevels = 0;
      this.drawdownLevels = 0;
      this.effects.dayStarted = this.dayStartEquity;
    }
  }

  /** A price update of one symbol: trigger and fill its working orders, then monitor. */
  price(now: number, symbol: string, mark: bigint, index: bigint, skew: number, depth?: bigint): void {
    this.prices(now, [{ symbol, mark, index, skew, depth }]);
  }

  /**
   * A price update of several symbols at once (a start's kept prices): each gets its new quote and a fresh book,
   * then their working orders are decided in placement order, then the monitor.
   */
  prices(now: number, updates: readonly PriceIn[]): void {
    const resetEquity = this.equity();
    for (const { symbol, mark, index, skew, depth } of updates) {
      const fresh = { mark, index, skew, takenBuy: 0n, takenSell: 0n, depth: depth ?? tickerOf(symbol).depthSteps };
      const existing = this.quotes.get(symbol);
      if (existing === undefined) this.quotes.set(symbol, fresh);
      else Object.assign(existing, fresh);
    }
    this.begin(now, resetEquity);
    if (this.status === "TERMINATED") return;
    const symbols = new Set(updates.map((u) => u.symbol));
    for (const order of this.working.filter((o) => symbols.has(o.symbol) && !o.held)) {
      if (this.working.includes(order)) this.executeOrder(order, "update");
    }
    this.monitor();
  }

  /**
   * The shard's clock: a decision of every symbol at the current marks, without new prices (the book's depth
   * stays as the last update left it): trigger and fill what the marks reach, then monitor.
   */
  clock(now: number): void {
    this.begin(now);
    if (this.status === "TERMINATED") return;
    for (const order of this.working.filter((o) => !o.held)) {
      if (this.working.includes(order)) this.executeOrder(order, "update");
    }
    this.monitor();
  }

  place(now: number, request: OrderRequest, test = false, clientId?: string): PlaceResult {
    this.begin(now);
    if (test || clientId === undefined) return this.submit(request, test);
    const body = JSON.stringify(request, (_key, value: unknown) => (typeof value === "bigint" ? String(value) : value));
    return this.once(clientId, `order ${body}`, () => this.submit(request, false));
  }

  close(now: number, symbol: string, venue: Venue, quantity: bigint | null, clientId?: string): PlaceResult {
    this.begin(now);
    const submit = (): PlaceResult => {
      const position = this.positions.get(keyOf(symbol, venue));
      if (position === undefined) return { kind: "error", code: "not_found" };
      return this.submit(
        {
          symbol,
          venue,
          side: opposite(position.side),
          kind: "MARKET",
          quantity: quantity ?? position.quantity,
          reduceOnly: true,
        },
        false,
      );
    };
    if (clientId === undefined) return submit();
    return this.once(clientId, `close ${symbol} ${venue} ${quantity ?? "all"}`, submit);
  }

  /**
   * A placement with a client_id: a used one answers its first answer (the same body) or a conflict (another
   * body) before anything else is looked at, even on a terminated account; a new one is decided and, when it
   * placed an order (created or rejected), recorded. An error records nothing: the client_id stays unused.
   */
  private once(clientId: string, body: string, submit: () => PlaceResult): PlaceResult {
    const used = this.clientIds.get(clientId);
    if (used !== undefined) {
      return used.body === body
        ? { kind: "replayed", first: used.first }
        : { kind: "error", code: "conflict", first: used.first };
    }
    const result = submit();
    if (result.kind === "created" || result.kind === "rejected") this.clientIds.set(clientId, { body, first: result });
    return result;
  }

  cancel(now: number, ref: number): "ok" | "not_found" {
    this.begin(now);
    const order = this.working.find((o) => o.ref === ref);
    if (order === undefined) return "not_found";
    this.cancelOrder(order, "user");
    return "ok";
  }

  /**
   * A funding tick at the current marks. For a `boundary`: nothing when a payment was already made for it, and
   * only positions opened before it pay or receive.
   */
  funding(now: number, cryptoPpm: bigint, rolloverPpm: bigint, boundary?: number): void {
    this.begin(now);
    if (boundary !== undefined && this.fundedThrough >= boundary) {
      if (this.positions.size > 0 && this.status !== "TERMINATED") this.fundingSkips.repeated++;
      this.monitor();
      return;
    }
    for (const [key, p] of [...this.positions]) {
      if (boundary !== undefined && p.openedAt >= boundary) {
        this.fundingSkips.openedAfter++;
        continue;
      }
      const spec = tickerOf(p.symbol);
      const quote = this.quote(p.symbol);
      let rate: bigint;
      // Rollover is charged only while the market is open, at the boundary the tick pays for (docs/risk.md,
      // "Funding").
      if (spec.assetClass !== "crypto") rate = marketOpen(spec.assetClass, boundary ?? this.now) ? -rolloverPpm : 0n;
      else if (quote.mark === quote.index) rate = 0n;
      else {
        const longsPay = quote.mark > quote.index;
        const pays = p.side === "BUY" ? longsPay : !longsPay;
        rate = pays ? -cryptoPpm : cryptoPpm;
      }
      if (rate === 0n) continue;
      const magnitude = divRound(notional(quote.mark, p.quantity, spec) * abs(rate), PPM);
      if (magnitude === 0n) continue;
      const amount = rate > 0n ? magnitude : -magnitude;
      this.balance += amount;
      this.moves.push({ at: this.now, amount });
      if (boundary !== undefined) this.fundedThrough = boundary;
      this.effects.funding.push({ symbol: p.symbol, venue: p.venue, ratePpm: rate, amount });
      if (!this.positions.has(key)) throw new Error("model: funding for a closed position");
    }
    this.monitor();
  }

  // ---- pre-trade ----

  private submit(request: OrderRequest, test: boolean): PlaceResult {
    const spec = tickerOf(request.symbol);
    const quote = this.quote(request.symbol);
    const parent = request.parent === undefined ? undefined : this.orders.get(request.parent);
    if (request.parent !== undefined) {
      if (parent === undefined) return { kind: "error", code: "not_found" };
      if (!this.isWorking(parent) && parent.filled === 0n) return { kind: "error", code: "conflict" };
    }
    // A child waits (HELD) for its parent's first fill.
    const held = parent !== undefined && parent.filled === 0n;
    const reduceOnly = parent !== undefined || (request.reduceOnly ?? false);
    const position = this.positions.get(keyOf(request.symbol, request.venue));
    const oppositeQty = position !== undefined && position.side !== request.side ? position.quantity : 0n;
    // A terminated account rejects every order with account_terminated, even one with nothing to reduce.
    if (reduceOnly && !held && oppositeQty === 0n && this.status !== "TERMINATED") {
      return { kind: "error", code: "conflict" };
    }
    const limit = request.limit ?? null;
    const trigger = request.trigger ?? null;
    // Valued where it executes (docs/risk.md): one that executes as it is placed fills from the mark; if what
    // the book cannot take may rest, at its own price where that is higher.
    const own = limit ?? trigger ?? quote.mark;
    const tif = request.timeInForce ?? (request.kind === "MARKET" ? "IOC" : "GTC");
    const mayRest = request.kind !== "MARKET" && tif !== "IOC" && tif !== "FOK";
    const price = held || !this.executesOnEntry(request) ? own : mayRest ? max(quote.mark, own) : quote.mark;
    const leverage = this.leverageOf(spec);
    // What the order may close is what the working orders already on its side (not reduce-only) leave of the
    // opposite position; the rest adds exposure. The cap counts the whole order (docs/risk.md).
    let closable = oppositeQty;
    for (const other of this.working) {
      if (other.reduceOnly || other.symbol !== request.symbol || other.venue !== request.venue) continue;
      if (other.side === request.side) closable -= other.quantity - other.filled;
    }
    const exposureSteps = reduceOnly ? 0n : max(0n, request.quantity - max(0n, closable));
    const exposureNotional = notional(price, exposureSteps, spec);
    const countedNotional = reduceOnly ? 0n : notional(price, request.quantity, spec);
    const openingFee =
      exposureNotional > 0n
        ? feeOf(exposureNotional, request.venue, spec.assetClass, "TAKER", "open", request.side, quote.skew)
        : 0n;
    const equity = this.equity();
    const limits = this.limits();
    const loss = this.dailyLoss(equity);
    const extra = { symbol: request.symbol, side: request.side, notional: countedNotional };
    const symbolExposure = this.symbolExposure(request.symbol, extra);
    const totalExposure = this.totalExposure(extra);

    const rules: Rule[] = [];
    const refuse = (rule: Rule): void => {
      rules.push(rule);
    };
    const crosses = limit !== null && (request.side === "BUY" ? quote.mark <= limit : quote.mark >= limit);
    // The first rule that refuses wins (docs/risk.md, "Pre-trade checks").
    if (this.status === "TERMINATED") refuse("account_terminated");
    else if (!this.plan.allowedVenues.includes(request.venue) || !spec.venues.includes(request.venue)) {
      refuse("venue_not_allowed");
    } else if (
      !held &&
      (request.kind === "MARKET" || (request.kind === "LIMIT" && (request.timeInForce ?? "GTC") !== "GTC")) &&
      !this.isOpen(request.symbol)
    ) {
      refuse("market_closed");
    } else if (!reduceOnly && equity - openingFee < limits.floor) refuse("drawdown_gate");
    else if (
      !reduceOnly &&
      (loss >= limits.dailyLimit ||
        loss + this.worstCase(request, spec, price, exposureSteps, openingFee) > limits.dailyLimit)
    ) {
      refuse("daily_loss_limit");
    } else if (!reduceOnly && exposureSteps > 0n && this.frozen(spec)) {
      refuse("news_freeze");
    } else if (
      !reduceOnly &&
      exposureNotional > 0n &&
      (symbolExposure > usdUnits(this.plan.maxSymbolNotional) || totalExposure > usdUnits(this.plan.maxTotalNotional))
    ) {
      refuse("exposure_cap");
    } else if (
      !reduceOnly &&
      exposureSteps > 0n &&
      divRound(exposureNotional, leverage) + openingFee > equity - this.marginLocked() - this.reserved()
    ) {
      refuse("insufficient_margin");
    } else if ((request.postOnly ?? false) && crosses) refuse("post_only_would_take");

    const headroom: Headroom = {
      dailyLoss: max(0n, limits.dailyLimit - loss - openingFee),
      drawdown: max(0n, equity - openingFee - limits.floor),
      symbolExposure: max(0n, usdUnits(this.plan.maxSymbolNotional) - symbolExposure),
      totalExposure: max(0n, usdUnits(this.plan.maxTotalNotional) - totalExposure),
    };
    if (test) return { kind: "tested", rules, headroom };
    const ref = this.nextRef++;
    const rule = rules[0];
    if (rule !== undefined) return { kind: "rejected", ref, rule, headroom };

    const order: ModelOrder = {
      ref,
      symbol: request.symbol,
      venue: request.venue,
      side: request.side,
      kind: request.kind,
      quantity: request.quantity,
      filled: 0n,
      limit,
      trigger,
      reduceOnly,
      postOnly: request.postOnly ?? false,
      timeInForce: request.timeInForce ?? (request.kind === "MARKET" ? "IOC" : "GTC"),
      triggered: false,
      placedClosed: !this.isOpen(request.symbol),
      parent: parent?.ref ?? null,
      children: [],
      held,
    };
    this.working.push(order);
    this.orders.set(ref, order);
    parent?.children.push(ref);
    const fillsBefore = this.effects.fills.length;
    const cancelsBefore = this.effects.cancels.length;
    const triggersBefore = this.effects.triggers.length;
    this.executeOrder(order, "placement");
    const filled = this.effects.fills.length > fillsBefore;
    const acted =
      filled || this.effects.cancels.length > cancelsBefore || this.effects.triggers.length > triggersBefore;
    if (!acted) return { kind: "created", ref, headroom };
    // An order that did anything at placement (filled, ended as an IOC or FOK, triggered) answers the room left
    // after everything it caused (none once terminated).
    if (filled) this.monitor();
    if (this.status === "TERMINATED") {
      return {
        kind: "created",
        ref,
        headroom: { dailyLoss: 0n, drawdown: 0n, symbolExposure: 0n, totalExposure: 0n },
        terminatedBy: this.effects.violation?.rule,
      };
    }
    const after = this.equity();
    const afterLimits = this.limits();
    return {
      kind: "created",
      ref,
      headroom: {
        dailyLoss: max(0n, afterLimits.dailyLimit - this.dailyLoss(after)),
        drawdown: max(0n, after - afterLimits.floor),
        symbolExposure: max(0n, usdUnits(this.plan.maxSymbolNotional) - this.symbolExposure(request.symbol)),
        totalExposure: max(0n, usdUnits(this.plan.maxTotalNotional) - this.totalExposure()),
      },
    };
  }

  /**
   * Whether an order executes as it is placed, on an open market: a MARKET, a LIMIT the mark crosses, a STOP or
   * TAKE_PROFIT whose trigger the mark has reached.
   */
  private executesOnEntry(request: OrderRequest): boolean {
    if (!this.isOpen(request.symbol)) return false;
    const mark = this.quote(request.symbol).mark;
    const long = request.side === "BUY";
    if (request.kind === "MARKET") return true;
    if (request.kind === "LIMIT") {
      const limit = request.limit ?? null;
      return limit !== null && (long ? mark <= limit : mark >= limit);
    }
    const trigger = request.trigger ?? null;
    if (trigger === null) return false;
    const rising = (request.kind === "STOP") === long;
    return rising ? mark >= trigger : mark <= trigger;
  }

  /** Opening fee, plus the loss to the nearest stop-loss on the position it adds to and that stop's closing fee. */
  private worstCase(
    request: OrderRequest,
    spec: Ticker,
    price: bigint,
    steps: bigint,
    openingFee: bigint,
    /** At a fill: its slippage against the mark, instead of a walk over the book. */
    fillSlippage?: bigint,
  ): bigint {
    if (steps <= 0n) return 0n;
    const long = request.side === "BUY";
    const quote = this.quote(request.symbol);
    // Every fee of the whole order and its slippage through the book: the closing fee on the part it reduces,
    // and the distance of each level from where it starts (the mark when it executes now, else its price).
    const limit = request.limit ?? null;
    const now = this.executesOnEntry(request);
    const start = now ? quote.mark : price;
    const reducing = max(0n, request.quantity - steps);
    const closingLegFee =
      reducing > 0n
        ? feeOf(
            notional(start, reducing, spec),
            request.venue,
            spec.assetClass,
            "TAKER",
            "close",
            request.side,
            quote.skew,
          )
        : 0n;
    const depth = quote.depth;
    const cap = limit === null ? null : long ? limit - start : start - limit;
    let taken = now ? (long ? quote.takenBuy : quote.takenSell) : 0n;
    let left = request.quantity;
    let ticks = 0n;
    let last = 0n;
    for (let level = taken / depth; left > 0n && level < BOOK_LEVELS && (cap === null || level <= cap); level++) {
      const steps = min(left, depth * (level + 1n) - taken);
      if (steps <= 0n) continue;
      ticks += steps * level;
      left -= steps;
      taken += steps;
      last = level;
    }
    ticks += left * (cap === null ? last : min(last, cap));
    const base = openingFee + closingLegFee + (fillSlippage ?? ticks * spec.unitsPerTickStep);
    // Only stops against a position the order adds to protect it.
    const own = this.positions.get(keyOf(request.symbol, request.venue));
    if (own === undefined || own.side !== request.side) return base;
    let nearest: bigint | undefined;
    for (const stop of this.working) {
      if (stop.kind !== "STOP" || !stop.reduceOnly || stop.held || stop.trigger === null) continue;
      if (stop.symbol !== request.symbol || stop.venue !== request.venue || stop.side === request.side) continue;
      if (nearest === undefined || (long ? stop.trigger > nearest : stop.trigger < nearest)) nearest = stop.trigger;
    }
    if (nearest === undefined) return base;
    const distance = long ? start - nearest : nearest - start;
    const loss = distance > 0n ? notional(distance, steps, spec) : 0n;
    const closingFee = feeOf(
      notional(nearest, steps, spec),
      request.venue,
      spec.assetClass,
      "TAKER",
      "close",
      opposite(request.side),
      this.quote(request.symbol).skew,
    );
    return base + loss + closingFee;
  }

  private frozen(spec: Ticker): boolean {
    const before = this.plan.newsFreeze.minutesBefore * MINUTE_MS;
    const after = this.plan.newsFreeze.minutesAfter * MINUTE_MS;
    return this.calendar.some(
      (event) =>
        event.at - before <= this.now &&
        this.now <= event.at + after &&
        (event.symbols.includes(spec.symbol) || event.assetClasses.includes(spec.assetClass)),
    );
  }

  // ---- execution ----

  /** Cancels (or expires) a working order; a parent without fills takes its working children along. */
  private cancelOrder(order: ModelOrder, reason: CancelReason): void {
    const at = this.working.indexOf(order);
    if (at < 0) return;
    this.working.splice(at, 1);
    this.effects.cancels.push({ ref: order.ref, reason });
    if (order.filled === 0n) {
      for (const child of this.childrenOf(order)) {
        if (!this.isWorking(child)) continue;
        this.working.splice(this.working.indexOf(child), 1);
        this.effects.cancels.push({ ref: child.ref, reason: "parent_canceled" });
      }
    } else if (order.children.length > 0) this.endBracket(order);
  }

  private childrenOf(order: ModelOrder): ModelOrder[] {
    return order.children.map((ref) => this.orders.get(ref)).filter((o): o is ModelOrder => o !== undefined);
  }

  private parentOf(order: ModelOrder): ModelOrder | undefined {
    return order.parent === null ? undefined : this.orders.get(order.parent);
  }

  /** A bracket child whose parent still works: it waits for the parent's next fill. */
  private awaitsParent(order: ModelOrder): boolean {
    const parent = this.parentOf(order);
    return parent !== undefined && this.isWorking(parent);
  }

  /** What a child may still close: its parent's fills less what all the children filled (unbounded without). */
  private bracketRoom(order: ModelOrder): bigint | null {
    if (order.parent === null) return null;
    const parent = this.parentOf(order);
    if (parent === undefined) return 0n;
    let filled = 0n;
    for (const child of this.childrenOf(parent)) filled += child.filled;
    return max(0n, parent.filled - filled);
  }

  private closable(order: ModelOrder): bigint {
    const room = this.bracketRoom(order);
    const reducible = this.reducible(order);
    return room === null ? reducible : min(reducible, room);
  }

  /**
   * The bracket ends when the parent is final and its children closed everything it filled: the working children
   * are canceled, the one whose fill ended it as having nothing to reduce, its siblings `oco`.
   */
  private endBracket(parent: ModelOrder, lastFilled?: ModelOrder): void {
    if (this.isWorking(parent)) return;
    let filled = 0n;
    for (const child of this.childrenOf(parent)) filled += child.filled;
    if (filled < parent.filled) return;
    for (const child of this.childrenOf(parent)) {
      this.cancelOrder(child, child === lastFilled ? "reduce_only_no_position" : "oco");
    }
  }

  /** Executes an order, then the HELD children its first fill activated, as placed then. */
  private executeOrder(order: ModelOrder, phase: "placement" | "update"): void {
    if (order.held || !this.isWorking(order)) return;
    if (order.filled > 0n || order.children.length === 0) {
      this.execute(order, phase);
      return;
    }
    const from = this.activated.length;
    this.execute(order, phase);
    for (let i = from; i < this.activated.length; i++) {
      const child = this.activated[i];
      if (child !== undefined && this.isWorking(child)) this.execute(child, "placement", false);
    }
    this.activated.length = from;
  }

  private isWorking(order: ModelOrder): boolean {
    return this.working.includes(order);
  }

  private execute(order: ModelOrder, phase: "placement" | "update", gated: boolean = phase === "update"): void {
    const quote = this.quote(order.symbol);
    const open = this.isOpen(order.symbol);
    let immediate = true;
    if (order.kind === "MARKET") {
      if (open) this.take(order, quote, null);
    } else if (order.kind === "LIMIT") {
      immediate = phase === "placement";
      const limit = order.limit;
      if (limit === null) throw new Error("model: LIMIT without a price");
      const crosses = order.side === "BUY" ? quote.mark <= limit : quote.mark >= limit;
      if (open && crosses) {
        if (phase === "placement") this.take(order, quote, limit, "TAKER", gated);
        else this.take(order, quote, limit, "MAKER", true);
      }
    } else {
      if (!order.triggered) {
        const trigger = order.trigger;
        if (trigger === null) throw new Error("model: STOP without a trigger");
        // A sell stop triggers when the mark falls to the trigger, a buy stop when it rises to it; a
        // take-profit the other way round.
        const rising = (order.kind === "STOP") === (order.side === "BUY");
        const reached = rising ? quote.mark >= trigger : quote.mark <= trigger;
        if (!open || !reached) return;
        // A child with nothing of its parent's fills left to close stays armed.
        if (this.awaitsParent(order) && this.closable(order) === 0n) return;
        order.triggered = true;
        this.effects.triggers.push({ ref: order.ref, what: "triggered" });
      }
      if (open) this.take(order, quote, null, "TAKER", gated);
      // Re-armed: a triggered child that closed all its parent filled while the parent works.
      if (order.triggered && this.isWorking(order) && this.awaitsParent(order) && this.closable(order) === 0n) {
        order.triggered = false;
        this.effects.triggers.push({ ref: order.ref, what: "rearmed" });
      }
    }
    if (!immediate || !this.isWorking(order)) return;
    if (order.timeInForce === "IOC") this.cancelOrder(order, "ioc_remainder");
    else if (order.timeInForce === "FOK") this.cancelOrder(order, "fok");
  }

  private reducible(order: ModelOrder): bigint {
    const position = this.positions.get(keyOf(order.symbol, order.venue));
    return position !== undefined && position.side !== order.side ? position.quantity : 0n;
  }

  private wanted(order: ModelOrder): bigint {
    const remaining = order.quantity - order.filled;
    if (!order.reduceOnly) return remaining;
    const reducible = this.closable(order);
    if (reducible === 0n && !this.awaitsParent(order)) this.cancelOrder(order, "reduce_only_no_position");
    return min(remaining, reducible);
  }

  /**
   * Fills walk the levels: level i at mark ± i ticks, depth steps each, never worse than `cap`. A resting LIMIT
   * the mark crossed walks them too (at the market's price, never worse than its limit), as maker.
   */
  private take(
    order: ModelOrder,
    quote: ModelQuote,
    cap: bigint | null,
    liquidity: Liquidity = "TAKER",
    gated = false,
  ): void {
    const want = this.wanted(order);
    if (want === 0n) return;
    const depth = quote.depth;
    const buy = order.side === "BUY";
    let left = want;
    const levels: { price: bigint; steps: bigint }[] = [];
    let consumed = buy ? quote.takenBuy : quote.takenSell;
    for (let level = consumed / depth; left > 0n && level < BOOK_LEVELS; level++) {
      const price = buy ? quote.mark + level : quote.mark - level;
      if (price <= 0n || (cap !== null && (buy ? price > cap : price < cap))) break;
      const atLevel = min(depth, max(0n, depth * (level + 1n) - consumed));
      const steps = min(left, atLevel);
      if (steps <= 0n) continue;
      levels.push({ price, steps });
      left -= steps;
      consumed += steps;
    }
    // FOK: all of its remainder now, or nothing (a reduce-only clamp below it too).
    if (order.timeInForce === "FOK" && (left > 0n || want < order.quantity - order.filled)) {
      this.cancelOrder(order, "fok");
      return;
    }
    const position = this.positions.get(keyOf(order.symbol, order.venue));
    let closable =
      gated && !order.reduceOnly && position !== undefined && position.side !== order.side ? position.quantity : 0n;
    const reducing: { price: bigint; steps: bigint }[] = [];
    const adding: { price: bigint; steps: bigint }[] = [];
    for (const level of levels) {
      if (!gated || order.reduceOnly) {
        reducing.push(level);
        continue;
      }
      const closing = min(closable, level.steps);
      closable -= closing;
      if (closing > 0n) reducing.push({ price: level.price, steps: closing });
      if (level.steps > closing) adding.push({ price: level.price, steps: level.steps - closing });
    }
    for (const level of reducing) this.fillAt(order, quote, level.price, level.steps, liquidity);
    // A resting order's fill on an update: the part adding exposure passes the exposure rules as they stand,
    // checked once over all its levels.
    if (adding.length > 0 && this.isWorking(order)) {
      const refused = this.fillRefusal(order, quote, adding);
      if (refused === undefined) {
        for (const level of adding) this.fillAt(order, quote, level.price, level.steps, liquidity);
      } else {
        this.cancelOrder(order, refused);
        this.violations.push({ rule: refused, threshold: 0n, value: 0n });
      }
    }
    this.afterFills(order);
  }

  private afterFills(order: ModelOrder): void {
    if (
      order.reduceOnly &&
      this.isWorking(order) &&
      order.quantity > order.filled &&
      this.reducible(order) === 0n &&
      !this.awaitsParent(order)
    ) {
      this.cancelOrder(order, "reduce_only_no_position");
    }
  }

  /** One level's fill: the opposite position is closed first, the rest opens or adds (unless reduce-only). */
  private fillAt(order: ModelOrder, quote: ModelQuote, price: bigint, steps: bigint, liquidity: Liquidity): void {
    if (!this.isWorking(order)) return;
    const filledBefore = order.filled;
    let left = steps;
    const position = this.positions.get(keyOf(order.symbol, order.venue));
    let closedIt = false;
    if (position !== undefined && position.side !== order.side) {
      const closing = min(left, position.quantity);
      closedIt = closing === position.quantity;
      this.fill(order, quote, price, closing, liquidity);
      left -= closing;
    }
    if (left > 0n && this.isWorking(order) && !order.reduceOnly) this.fill(order, quote, price, left, liquidity);
    // Its first fill activates a parent's children.
    if (filledBefore === 0n && order.filled > 0n) {
      for (const child of this.childrenOf(order)) {
        if (child.held && this.isWorking(child)) {
          child.held = false;
          this.activated.push(child);
        }
      }
    }
    // A child's fill, or the parent's last one, may end the bracket (its siblings go as `oco`).
    const parent = this.parentOf(order);
    if (parent !== undefined) this.endBracket(parent, order);
    else if (order.children.length > 0) this.endBracket(order);
    // docs/engine.md: a position closed completely takes the other reduce-only orders on it along (not the
    // children of a parent that still works: they wait for its next fills).
    if (closedIt) {
      const orphans = this.working.filter(
        (other) =>
          other !== order &&
          other.reduceOnly &&
          !other.held &&
          other.symbol === order.symbol &&
          other.venue === order.venue &&
          this.reducible(other) === 0n &&
          !this.awaitsParent(other),
      );
      for (const orphan of orphans) this.cancelOrder(orphan, "reduce_only_no_position");
      this.rearmChildrenOf(order.symbol, order.venue, order);
    }
  }

  /**
   * The first exposure rule that refuses the levels of the order's fill adding exposure now (docs/risk.md): that
   * part valued at its worst level's price, its slippage each level's distance from the mark.
   */
  private fillRefusal(
    order: ModelOrder,
    quote: ModelQuote,
    levels: readonly { price: bigint; steps: bigint }[],
  ): LimitRuleOrExposure | undefined {
    const spec = tickerOf(order.symbol);
    let steps = 0n;
    let slippageTicks = 0n;
    let price = quote.mark;
    for (const level of levels) {
      steps += level.steps;
      slippageTicks += abs(level.price - quote.mark) * level.steps;
      price = level.price;
    }
    const value = notional(price, steps, spec);
    const openingFee = feeOf(value, order.venue, spec.assetClass, "TAKER", "open", order.side, quote.skew);
    const equity = this.equity();
    const limits = this.limits();
    if (equity - openingFee < limits.floor) return "drawdown_gate";
    const loss = this.dailyLoss(equity);
    const slippage = slippageTicks * spec.unitsPerTickStep;
    const request: OrderRequest = {
      symbol: order.symbol,
      venue: order.venue,
      side: order.side,
      kind: order.kind,
      quantity: steps,
      limit: order.limit,
      trigger: order.trigger,
    };
    if (
      loss >= limits.dailyLimit ||
      loss + this.worstCase(request, spec, price, steps, openingFee, slippage) > limits.dailyLimit
    ) {
      return "daily_loss_limit";
    }
    if (this.frozen(spec)) return "news_freeze";
    if (
      this.symbolExposure(order.symbol) > usdUnits(this.plan.maxSymbolNotional) ||
      this.totalExposure() > usdUnits(this.plan.maxTotalNotional)
    ) {
      return "exposure_cap";
    }
    const available = equity - this.marginLocked() - this.reserved() + this.reserveOf(order);
    if (divRound(value, this.leverageOf(spec)) + openingFee > available) return "insufficient_margin";
    return undefined;
  }

  /** Books one fill against the (symbol, venue) position, the balance and the book. */
  private fill(
    order: ModelOrder,
    quote: ModelQuote,
    price: bigint,
    steps: bigint,
    liquidity: Liquidity,
    reason?: "liquidation" | "termination",
  ): void {
    const spec = tickerOf(order.symbol);
    const key = keyOf(order.symbol, order.venue);
    const value = notional(price, steps, spec);
    const position = this.positions.get(key);
    let realized = 0n;
    let effect: "open" | "close" = "open";
    if (position === undefined) {
      this.positions.set(key, {
        symbol: order.symbol,
        venue: order.venue,
        side: order.side,
        quantity: steps,
        cost: value,
        leverage: this.leverageOf(spec),
        openedAt: this.now,
      });
    } else if (position.side === order.side) {
      position.quantity += steps;
      position.cost += value;
    } else {
      effect = "close";
      if (steps > position.quantity) throw new Error("model: a reduce beyond the position");
      const released = steps === position.quantity ? position.cost : divRound(position.cost * steps, position.quantity);
      realized = direction(position.side) * (value - released);
      position.quantity -= steps;
      position.cost -= released;
      if (position.quantity === 0n) this.positions.delete(key);
    }
    const fee = feeOf(value, order.venue, spec.assetClass, liquidity, effect, order.side, quote.skew);
    this.balance += realized - fee;
    this.moves.push({ at: this.now, amount: realized - fee });
    order.filled += steps;
    // The risk system's closes fill at the mark whatever the depth and leave the book to the accounts' orders.
    if (reason === undefined && order.side === "BUY") quote.takenBuy += steps;
    else if (reason === undefined) quote.takenSell += steps;
    if (order.filled === order.quantity) this.working.splice(this.working.indexOf(order), 1);
    this.effects.fills.push({
      ref: order.ref,
      symbol: order.symbol,
      venue: order.venue,
      side: order.side,
      quantity: steps,
      price,
      fee,
      realized,
      liquidity,
      ...(reason === undefined ? {} : { reason }),
    });
  }

  // ---- monitoring ----

  private levelsReached(used: bigint, limit: bigint): number {
    let reached = 0;
    for (const level of BREACH_LEVELS) if (used * 100n >= limit * level.percent) reached++;
    return reached;
  }

  private record(rule: LimitRule, from: number, to: number, used: bigint, limit: bigint): void {
    for (let i = from; i < to; i++) {
      const level = BREACH_LEVELS[i];
      if (level === undefined) return;
      const breach: BreachOut = {
        rule,
        severity: level.severity,
        threshold: pct(limit, Number(level.percent)),
        value: used,
      };
      this.breaches.push(breach);
      this.effects.breaches.push(breach);
    }
  }

  private monitor(): void {
    if (this.status === "TERMINATED") return;
    this.liquidate();
    this.judge(this.equity());
  }

  /**
   * The liquidation price in ticks (docs/engine.md, docs/risk.md "Liquidation"): long `entry × (1 − 1/leverage)`,
   * short `entry × (1 + 1/leverage)`, entry the average of the cost, rounded to the tick half away from zero.
   */
  liquidationTicks(p: ModelPosition): bigint {
    const spec = tickerOf(p.symbol);
    const factor = p.side === "BUY" ? p.leverage - 1n : p.leverage + 1n;
    return divRound(p.cost * factor, p.quantity * spec.unitsPerTickStep * p.leverage);
  }

  /**
   * Every position whose mark is at or past its liquidation price is closed at the mark (a taker fill by the
   * risk system, its closing fee charged), and the working reduce-only orders left with nothing to reduce on it
   * are canceled, as after any close. Runs before the limits are judged.
   */
  private liquidate(): void {
    for (const [key, position] of [...this.positions]) {
      const mark = this.quote(position.symbol).mark;
      const liquidation = this.liquidationTicks(position);
      const reached = position.side === "BUY" ? mark <= liquidation : mark >= liquidation;
      if (!reached) continue;
      this.closeByRisk(position, "liquidation");
      if (this.positions.has(key)) throw new Error("model: a liquidation left the position open");
      const orphans = this.working.filter(
        (order) =>
          order.reduceOnly &&
          !order.held &&
          order.symbol === position.symbol &&
          order.venue === position.venue &&
          this.reducible(order) === 0n &&
          !this.awaitsParent(order),
      );
      for (const orphan of orphans) this.cancelOrder(orphan, "reduce_only_no_position");
      this.rearmChildrenOf(position.symbol, position.venue);
    }
  }

  /**
   * After a position closed completely by another order (by hand, a liquidation): a triggered child of a parent
   * that still works, left with nothing to close, is re-armed, so the parent's next fill waits for its trigger.
   */
  private rearmChildrenOf(symbol: string, venue: Venue, closing?: ModelOrder): void {
    for (const other of this.working) {
      if (other === closing || other.symbol !== symbol || other.venue !== venue) continue;
      if (other.triggered && this.awaitsParent(other) && this.closable(other) === 0n) {
        other.triggered = false;
        this.effects.triggers.push({ ref: other.ref, what: "rearmed" });
      }
    }
  }

  /** A whole position closed at the mark as a taker by the risk system (a reduce-only MARKET of its own). */
  private closeByRisk(position: ModelPosition, reason: "liquidation" | "termination"): void {
    const order: ModelOrder = {
      ref: this.nextRiskRef--,
      symbol: position.symbol,
      venue: position.venue,
      side: opposite(position.side),
      kind: "MARKET",
      quantity: position.quantity,
      filled: 0n,
      limit: null,
      trigger: null,
      reduceOnly: true,
      postOnly: false,
      timeInForce: "IOC",
      triggered: false,
      placedClosed: false,
      parent: null,
      children: [],
      held: false,
    };
    this.working.push(order);
    const quote = this.quote(position.symbol);
    this.fill(order, quote, quote.mark, position.quantity, "TAKER", reason);
  }

  /** High-water mark, breach levels, termination and passing at `equity`, against the current day. */
  private judge(equity: bigint): void {
    if (this.status === "TERMINATED") return;
    if (equity > this.highWaterMark) this.highWaterMark = equity;
    const limits = this.limits();
    const loss = this.dailyLoss(equity);
    const daily = this.levelsReached(loss, limits.dailyLimit);
    this.record("daily_loss_limit", this.dailyLevels, daily, loss, limits.dailyLimit);
    this.dailyLevels = Math.max(this.dailyLevels, daily);
    const used = max(0n, limits.reference - equity);
    const drawdown = this.levelsReached(used, limits.allowance);
    this.record("drawdown_gate", this.drawdownLevels, drawdown, used, limits.allowance);
    this.drawdownLevels = Math.max(this.drawdownLevels, drawdown);
    if (drawdown >= BREACH_LEVELS.length) {
      this.terminate({ rule: "drawdown_gate", threshold: limits.allowance, value: used });
      return;
    }
    if (daily >= BREACH_LEVELS.length) {
      this.terminate({ rule: "daily_loss_limit", threshold: limits.dailyLimit, value: loss });
      return;
    }
    // Passing is judged on the balance of a flat account, never on open profit (docs/risk.md, "Passing").
    if (this.status === "ACTIVE" && this.positions.size === 0 && this.balance >= limits.target) {
      this.status = "PASSED";
      this.effects.passed = true;
    }
  }

  /** Cancel every working order (risk), close every position at the mark as a taker, TERMINATED. */
  private terminate(violation: ViolationOut): void {
    // Newest first: children are canceled by the risk system themselves, not by their parent's cancel.
    for (const order of [...this.working].reverse()) this.cancelOrder(order, "risk");
    for (const position of [...this.positions.values()]) this.closeByRisk(position, "termination");
    this.status = "TERMINATED";
    this.violations.push(violation);
    this.effects.violation = violation;
  }
}
