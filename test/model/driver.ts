// The test driver of the reference model: runs the same steps on the engine (through its test Harness) and on
// the model (test/model/model.ts, which shares no code with the engine), and after every step compares the
// reply, the fills, cancels and expiries, triggers and re-arms, breaches, violations and funding payments the
// step produced, and the account's balance, equity, margin, reserves, positions, working orders, high-water
// mark, day start and state, all exactly in 1e-8 USD units. The first step where they differ throws, naming the step and both values.
import { accountSummary } from "../../engine/accounts/queries.js";
import type { EngineEvent, PlaceOrderReply } from "../../engine/core.js";
import type { NewsEvent } from "../../engine/market/calendar.js";
import { ACCOUNT_ID, Harness, WEDNESDAY_NOON } from "../../engine/core.testing.js";
import {
  AccountModel,
  type CalendarEvent,
  type Effects,
  type Headroom,
  type ModelPosition,
  type OrderRequest,
  type PlaceResult,
} from "./model.js";
import {
  DAY_MS,
  HOUR_MS,
  SYMBOLS,
  decimalText,
  divRound,
  tickerOf,
  usdText,
  type AssetClass,
  type PlanSpec,
  type Side,
  type Venue,
} from "./spec.js";
import type { Step } from "./steps.js";

/** News targets of a `news` step. */
const TARGETS: readonly { symbols: string[]; assetClasses: AssetClass[] | string[] }[] = [
  { symbols: ["BTC-USD"], assetClasses: [] },
  { symbols: [], assetClasses: ["forex"] },
  { symbols: [], assetClasses: ["crypto"] },
  { symbols: ["ETH-USD", "EUR-USD"], assetClasses: [] },
  { symbols: [], assetClasses: ["indices"] },
];

/** Weekly market-hours edges of a `session` step: [weekday or null for every day, hour UTC]. */
const EDGES: readonly (readonly [number | null, number])[] = [
  [null, 22],
  [null, 23],
  [5, 22],
  [0, 22],
  [0, 23],
];

/** Funding boundaries: every 8 hours from the epoch (00:00, 08:00, 16:00 UTC). */
export const FUNDING_INTERVAL_MS = 8 * HOUR_MS;

/** The first instant after `now` that is `hour`:00 UTC on `weekday` (any day when null). */
function nextEdge(now: number, weekday: number | null, hour: number): number {
  let at = Math.floor(now / DAY_MS) * DAY_MS + hour * HOUR_MS;
  while (at <= now || (weekday !== null && new Date(at).getUTCDay() !== weekday)) at += DAY_MS;
  return at;
}

const UNKNOWN_ORDER = "00000000-0000-4000-8000-ffffffffffff";

/** A JSON number of USD (exact decimals, at most 8 places) as units. */
export function numberToUnits(value: number): bigint {
  const text = value.toFixed(8);
  const negative = text.startsWith("-");
  const units = BigInt(text.replace("-", "").replace(".", ""));
  return negative ? -units : units;
}

const show = (units: bigint): string => `${usdText(units)} USD (${units} units)`;

interface Mismatch {
  readonly what: string;
  readonly model: string;
  readonly engine: string;
}

/** A disagreement: the step (1-based) it showed at and what differed. */
export class ModelMismatch extends Error {
  constructor(
    message: string,
    readonly step: number,
    readonly what: readonly string[],
  ) {
    super(message);
  }
}

export interface LockstepCounters {
  steps: number;
  /** Steps run on an account that was not terminated before them. */
  liveSteps: number;
  orders: number;
  created: number;
  rejected: Record<string, number>;
  fills: number;
  breaches: number;
  terminated: number;
  passed: number;
  funding: number;
  /** Days started by an event at exactly 00:00:00.000Z, by what it was (a price, the clock, funding, an order...). */
  midnightExact: Record<string, number>;
  /** Days started with positions open (the reset valued them at the marks in force at 00:00Z). */
  daysWithPositions: number;
  /** Days started by a price update while positions were open (its new mark is not the reset's). */
  daysStartedByPrice: number;
  /** Fills of orders placed while their market was closed (they filled at the open). */
  closedPlacedFills: number;
  /** IOC/FOK LIMIT orders refused with market_closed. */
  closedImmediateLimits: number;
  /** FOK orders expired, IOC remainders canceled (LIMIT). */
  fokExpired: number;
  iocLimitRemainders: number;
  /** Funding payments made by a tick at exactly its boundary; positions a boundary tick skipped (opened at or after
   * it); boundary ticks repeated for a boundary already paid. */
  fundingAtBoundary: number;
  fundingSkippedOpenedAfter: number;
  fundingRepeated: number;
  /** Resting orders' fills refused at fill time, by rule (the order canceled with the rule). */
  refusedFills: Record<string, number>;
  /** Orders left partly filled and working after a step (thin book). */
  partialFills: number;
  /** Orders (and closes) whose own fill terminated the account, by rule. */
  ownFillTerminations: Record<string, number>;
  /** Brink price moves made (an account with a position moved next to a limit). */
  brinks: number;
  /** Bracket children accepted; parents partly filled while they have children; OCO ends; re-armed children. */
  bracketChildren: number;
  partialParents: number;
  ocoCancels: number;
  childFills: number;
  rearmed: number;
}

export function newCounters(): LockstepCounters {
  return {
    steps: 0,
    liveSteps: 0,
    orders: 0,
    created: 0,
    rejected: {},
    fills: 0,
    breaches: 0,
    terminated: 0,
    passed: 0,
    funding: 0,
    midnightExact: {},
    daysWithPositions: 0,
    daysStartedByPrice: 0,
    closedPlacedFills: 0,
    closedImmediateLimits: 0,
    fokExpired: 0,
    iocLimitRemainders: 0,
    fundingAtBoundary: 0,
    fundingSkippedOpenedAfter: 0,
    fundingRepeated: 0,
    refusedFills: {},
    partialFills: 0,
    ownFillTerminations: {},
    brinks: 0,
    bracketChildren: 0,
    partialParents: 0,
    ocoCancels: 0,
    childFills: 0,
    rearmed: 0,
  };
}

const bump = (record: Record<string, number>, key: string, n = 1): void => {
  record[key] = (record[key] ?? 0) + n;
};

/** Adds `from` into `into`, field by field. */
export function addCounters(into: LockstepCounters, from: LockstepCounters): void {
  for (const [key, value] of Object.entries(from) as [keyof LockstepCounters, unknown][]) {
    if (typeof value === "number") (into[key] as number) += value;
    else
      for (const [k, n] of Object.entries(value as Record<string, number>))
        bump(into[key] as Record<string, number>, k, n);
  }
}

/** What a step's record needs of it: its kind (and a midnight's `then`); the rest is shown as JSON. */
export interface StepLabel {
  readonly t: string;
  readonly then?: string;
}

/** A placement's body as the Harness sends it. */
type PlaceBody = Parameters<Harness["place"]>[0];

/** A placement or a close sent with a client_id (`clientIds`), for a `retry` to send again. */
type Sent =
  | { clientId: string; what: "place"; request: OrderRequest; body: PlaceBody }
  | { clientId: string; what: "close"; symbol: string; venue: Venue; quantity: bigint | null };

/**
 * A retry of the `pick`-th placement sent with a client_id (none when nothing was): the same body, or with
 * `other` another one (the quantity one step larger; a close of the whole position made a close of the least).
 */
export interface RetryStep {
  t: "retry";
  pick: number;
  other: boolean;
}

/** A retry's engine reply, and the place of the placement it retried among those sent with a client_id. */
export interface Retried {
  reply: PlaceOrderReply;
  index: number;
}

/** The model before a step, for the counters of what it did. */
export interface StepStart {
  readonly dayBefore: number;
  readonly positionsBefore: number;
  readonly fillsBefore: ReadonlySet<number>;
}

export class Lockstep {
  readonly h: Harness;
  readonly m: AccountModel;
  private readonly refToId = new Map<number, string>();
  private readonly idToRef = new Map<string, number>();
  private readonly history: string[] = [];
  private index = 0;
  private mismatches: Mismatch[] = [];
  /** Placements sent with a client_id, in order (only with `clientIds`). */
  protected readonly sent: Sent[] = [];

  /**
   * `harness`: the engine side (a plain Harness unless given); `clientIds`: the market, limit, entry-stop and
   * close placements carry a client_id each, which a `retry` step sends again.
   */
  constructor(
    readonly plan: PlanSpec,
    readonly counters: LockstepCounters = newCounters(),
    harness: Harness = new Harness(WEDNESDAY_NOON),
    private readonly clientIds = false,
  ) {
    this.h = harness.open(plan.planId);
    this.m = new AccountModel(plan, WEDNESDAY_NOON, []);
    for (const symbol of SYMBOLS) {
      const spec = tickerOf(symbol);
      this.setPrice(symbol, spec.referenceTicks, spec.referenceTicks, 0);
    }
    this.compare("open");
  }

  // ---- resolving steps ----

  private venueFor(sym: number, alt: boolean): Venue {
    const symbol = this.symbolOf(sym);
    const gmx = this.plan.allowedVenues.includes("GMX") && tickerOf(symbol).venues.includes("GMX");
    const primary: Venue = gmx ? "GMX" : "OSTIUM";
    if (!alt) return primary;
    return primary === "GMX" ? "OSTIUM" : "GMX";
  }

  private symbolOf(sym: number): string {
    const symbol = SYMBOLS[sym % SYMBOLS.length];
    if (symbol === undefined) throw new Error("no symbol");
    return symbol;
  }

  private mark(symbol: string): bigint {
    return this.m.quote(symbol).mark;
  }

  /** Steps of an order worth `size` per mille of the starting balance (×10 for forex), on the grid. */
  private quantityFor(symbol: string, size: number): bigint {
    const spec = tickerOf(symbol);
    const scale = spec.assetClass === "forex" ? 10n : 1n;
    const target = (BigInt(this.plan.startingBalance) * 100_000_000n * BigInt(size) * scale) / 1000n;
    let steps = divRound(target, this.mark(symbol) * spec.unitsPerTickStep);
    if (steps < spec.minSteps) steps = spec.minSteps;
    const cap = spec.depthSteps * 3n;
    return steps > cap ? cap : steps;
  }

  private offset(mark: bigint, bp: number): bigint {
    const delta = divRound(mark * BigInt(bp), 10_000n);
    return delta === 0n && bp !== 0 ? (bp > 0 ? 1n : -1n) : delta;
  }

  private priceText(symbol: string, ticks: bigint): string {
    return decimalText(ticks, tickerOf(symbol).tick);
  }

  private qtyText(symbol: string, steps: bigint): string {
    return decimalText(steps, tickerOf(symbol).step);
  }

  private setPrice(symbol: string, mark: bigint, index: bigint, skew: number, thin = 0): void {
    const usual = tickerOf(symbol).depthSteps;
    let depth: bigint | undefined;
    if (thin > 0) {
      depth = (usual * BigInt(thin)) / 1000n;
      if (depth < 1n) depth = 1n;
    }
    const options = {
      index: this.priceText(symbol, index),
      skew,
      ...(depth === undefined ? {} : { depth: Number(depth) }),
    };
    this.h.price(symbol, this.priceText(symbol, mark), options);
    this.m.price(this.h.now, symbol, mark, index, skew, depth);
  }

  /** A price update of `sym` moving the mark `bp` basis points (kept within half and twice the reference). */
  private movePrice(sym: number, bp: number, indexBp: number, skew: number, thin = 0): void {
    const symbol = this.symbolOf(sym);
    const spec = tickerOf(symbol);
    let mark = this.mark(symbol) + this.offset(this.mark(symbol), bp);
    const low = spec.referenceTicks / 2n;
    const high = spec.referenceTicks * 2n;
    mark = mark < low ? low : mark > high ? high : mark;
    const index = mark + this.offset(mark, indexBp);
    this.setPrice(symbol, mark, index, skew, thin);
  }

  /** A funding tick for the latest boundary at or before now. */
  private boundaryTick(cryptoPpm: number, rolloverPpm: number): void {
    const boundary = Math.floor(this.h.now / FUNDING_INTERVAL_MS) * FUNDING_INTERVAL_MS;
    const skips = { ...this.m.fundingSkips };
    this.h.funding({ cryptoPpm, rolloverPpm }, boundary);
    this.m.funding(this.h.now, BigInt(cryptoPpm), BigInt(rolloverPpm), boundary);
    if (this.h.now === boundary) this.counters.fundingAtBoundary += this.m.last.funding.length;
    this.counters.fundingSkippedOpenedAfter += this.m.fundingSkips.openedAfter - skips.openedAfter;
    this.counters.fundingRepeated += this.m.fundingSkips.repeated - skips.repeated;
  }

  /** The mark that puts the account at `ppm` of a limit (see the `brink` step), or none. */
  private brink(rule: number, ppm: number, thin: number): void {
    const m = this.m;
    if (m.status === "TERMINATED") return;
    const bySymbol = new Map<string, bigint>();
    for (const p of m.positions.values()) {
      const spec = tickerOf(p.symbol);
      const slope = (p.side === "BUY" ? 1n : -1n) * p.quantity * spec.unitsPerTickStep;
      bySymbol.set(p.symbol, (bySymbol.get(p.symbol) ?? 0n) + slope);
    }
    let symbol: string | undefined;
    let slope = 0n;
    for (const [s, v] of bySymbol) {
      if ((v < 0n ? -v : v) > (slope < 0n ? -slope : slope)) [symbol, slope] = [s, v];
    }
    if (symbol === undefined || slope === 0n) return;
    const limits = m.limits();
    const target =
      rule === 0
        ? m.dayStartEquity - (limits.dailyLimit * BigInt(ppm)) / 1_000_000n
        : rule === 1
          ? limits.reference - (limits.allowance * BigInt(ppm)) / 1_000_000n
          : limits.target + (limits.dailyLimit * BigInt(ppm - 900_000)) / 100_000n;
    const ticks = (target - m.equity()) / slope;
    const mark = this.mark(symbol) + ticks;
    if (ticks === 0n || mark <= 0n) return;
    this.counters.brinks++;
    this.setPrice(symbol, mark, mark, m.quote(symbol).skew, thin);
  }

  run(step: Step): void {
    const start = this.enter(step);
    const h = this.h;
    const m = this.m;
    switch (step.t) {
      case "price":
        this.movePrice(step.sym, step.bp, step.indexBp, step.skew, step.thin ?? 0);
        break;
      case "market": {
        const symbol = this.symbolOf(step.sym);
        const venue = this.venueFor(step.sym, step.alt);
        const quantity = this.quantityFor(symbol, step.size);
        const request = { symbol, venue, side: step.side, kind: "MARKET" as const, quantity };
        const body = { symbol, venue, side: step.side, kind: "MARKET", quantity: this.qtyText(symbol, quantity) };
        if (step.test) {
          const reply = h.test(body);
          const model = m.place(h.now, request, true);
          this.compareTest(model, reply);
        } else {
          const clientId = this.send({ what: "place", request, body });
          this.comparePlace(m.place(h.now, request, false, clientId), h.place(withClientId(body, clientId)));
        }
        break;
      }
      case "limit": {
        const symbol = this.symbolOf(step.sym);
        const venue = this.venueFor(step.sym, step.alt);
        const quantity = this.quantityFor(symbol, step.size);
        const mark = this.mark(symbol);
        const away = step.cross ? -this.offset(mark, step.distBp % 60) : this.offset(mark, Math.max(1, step.distBp));
        const limit = step.side === "BUY" ? mark - away : mark + away;
        if (limit <= 0n) break;
        const tif = step.tif ?? "GTC";
        const postOnly = step.postOnly && tif === "GTC";
        const request: OrderRequest = {
          symbol,
          venue,
          side: step.side,
          kind: "LIMIT",
          quantity,
          limit,
          postOnly,
          timeInForce: tif,
        };
        const body: PlaceBody = {
          symbol,
          venue,
          side: step.side,
          kind: "LIMIT",
          quantity: this.qtyText(symbol, quantity),
          limit_price: this.priceText(symbol, limit),
          post_only: postOnly,
          time_in_force: tif,
        };
        const clientId = this.send({ what: "place", request, body });
        const model = m.place(h.now, request, false, clientId);
        const reply = h.place(withClientId(body, clientId));
        this.comparePlace(model, reply);
        if (model.kind === "rejected" && model.rule === "market_closed") this.counters.closedImmediateLimits++;
        break;
      }
      case "stop": {
        const positions = [...m.positions.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, p]) => p);
        const position = positions.length === 0 ? undefined : positions[step.pick % positions.length];
        const symbol = position?.symbol ?? this.symbolOf(step.sym);
        const venue = position?.venue ?? this.venueFor(step.sym, step.alt);
        const side: Side = position === undefined ? "SELL" : position.side === "BUY" ? "SELL" : "BUY";
        const spec = tickerOf(symbol);
        const mark = this.mark(symbol);
        const away = this.offset(mark, step.distBp);
        const trigger = side === "SELL" ? mark - away : mark + away;
        let quantity = ((position?.quantity ?? spec.minSteps) * BigInt(step.part)) / 4n;
        if (quantity < spec.minSteps) quantity = spec.minSteps;
        const model = m.place(h.now, { symbol, venue, side, kind: "STOP", quantity, trigger, reduceOnly: true });
        const reply = h.place({
          symbol,
          venue,
          side,
          kind: "STOP",
          quantity: this.qtyText(symbol, quantity),
          trigger_price: this.priceText(symbol, trigger),
          reduce_only: true,
        });
        this.comparePlace(model, reply);
        break;
      }
      case "entryStop": {
        const symbol = this.symbolOf(step.sym);
        const venue = this.venueFor(step.sym, step.alt);
        const quantity = this.quantityFor(symbol, step.size);
        const mark = this.mark(symbol);
        const away = this.offset(mark, step.distBp);
        const trigger = step.side === "BUY" ? mark + away : mark - away;
        if (trigger <= 0n) break;
        const request = { symbol, venue, side: step.side, kind: "STOP" as const, quantity, trigger };
        const body: PlaceBody = {
          symbol,
          venue,
          side: step.side,
          kind: "STOP",
          quantity: this.qtyText(symbol, quantity),
          trigger_price: this.priceText(symbol, trigger),
        };
        const clientId = this.send({ what: "place", request, body });
        this.comparePlace(m.place(h.now, request, false, clientId), h.place(withClientId(body, clientId)));
        break;
      }
      case "bracket":
        this.bracket(step);
        break;
      case "closeLargest": {
        const largest = this.largestPosition();
        if (largest !== undefined) this.closePosition(largest.symbol, largest.venue, step.part);
        break;
      }
      case "flatten": {
        const positions = [...m.positions.values()].sort((a, b) =>
          `${a.symbol}|${a.venue}` < `${b.symbol}|${b.venue}` ? -1 : 1,
        );
        positions.forEach((p, i) => {
          if (i > 0) this.compareEffects(false, this.m.last);
          this.closePosition(p.symbol, p.venue, 0);
        });
        break;
      }
      case "flipLargest": {
        const largest = this.largestPosition();
        if (largest === undefined) break;
        const { symbol, venue } = largest;
        const side: Side = largest.side === "BUY" ? "SELL" : "BUY";
        const quantity = (largest.quantity * BigInt(4 + step.extra)) / 4n;
        this.comparePlace(
          m.place(h.now, { symbol, venue, side, kind: "MARKET", quantity }),
          h.place({ symbol, venue, side, kind: "MARKET", quantity: this.qtyText(symbol, quantity) }),
        );
        break;
      }
      case "close":
        this.closePosition(this.symbolOf(step.sym), this.venueFor(step.sym, step.alt), step.part);
        break;
      case "cancel": {
        const working = m.working.filter((o) => o.ref > 0);
        const order = working.length === 0 ? undefined : working[step.pick % working.length];
        const id = order === undefined ? UNKNOWN_ORDER : (this.refToId.get(order.ref) ?? UNKNOWN_ORDER);
        const model = m.cancel(h.now, order?.ref ?? -1);
        const reply = h.cancel(id);
        const engine = reply.kind === "ok" ? "ok" : reply.code;
        this.check("cancel reply", model, engine);
        break;
      }
      case "funding":
        h.funding({ cryptoPpm: step.cryptoPpm, rolloverPpm: step.rolloverPpm });
        m.funding(h.now, BigInt(step.cryptoPpm), BigInt(step.rolloverPpm));
        break;
      case "news": {
        const before = this.plan.newsFreeze.minutesBefore * 60_000;
        const after = this.plan.newsFreeze.minutesAfter * 60_000;
        const edges = [step.offsetS * 1000, before, before + 1, -after, -after - 1];
        const at = h.now + (edges[step.edge] ?? 0);
        const target = TARGETS[step.target % TARGETS.length] ?? { symbols: [], assetClasses: [] };
        const event: NewsEvent = {
          id: `n${this.index}`,
          title: `news ${this.index}`,
          scheduled_at: new Date(at).toISOString(),
          at,
          symbols: [...target.symbols],
          asset_classes: [...target.assetClasses] as NewsEvent["asset_classes"],
        };
        h.calendar = [...h.calendar, event].sort((a, b) => a.at - b.at || a.id.localeCompare(b.id));
        const modelEvent: CalendarEvent = {
          at,
          symbols: [...target.symbols],
          assetClasses: [...target.assetClasses] as AssetClass[],
        };
        m.calendar.push(modelEvent);
        h.lastEvents = [];
        break;
      }
      case "wait":
        h.now += step.ms;
        h.lastEvents = [];
        break;
      case "day":
        h.now = (Math.floor(h.now / DAY_MS) + 1) * DAY_MS + step.minutes * 60_000;
        h.lastEvents = [];
        break;
      case "midnight":
        h.now = (Math.floor(h.now / DAY_MS) + 1) * DAY_MS;
        h.lastEvents = [];
        if (step.then === "price") this.movePrice(step.sym, step.bp, 0, 0);
        else if (step.then === "clock") this.clock();
        else if (step.then === "funding") this.boundaryTick(100, 20);
        break;
      case "clock":
        this.clock();
        break;
      case "session": {
        const [weekday, hour] = EDGES[step.edge % EDGES.length] ?? [null, 22];
        h.now = Math.max(h.now, nextEdge(h.now, weekday, hour) + step.deltaMs);
        h.lastEvents = [];
        break;
      }
      case "boundary":
        h.now = (Math.floor(h.now / FUNDING_INTERVAL_MS) + 1) * FUNDING_INTERVAL_MS + step.offsetMs;
        h.lastEvents = [];
        break;
      case "tick":
        this.boundaryTick(step.cryptoPpm, step.rolloverPpm);
        break;
      case "brink":
        this.brink(step.rule, step.ppm, step.thin ?? 0);
        break;
      case "reach": {
        const resting = m.working.filter((o) => o.ref > 0 && o.kind !== "MARKET");
        const order = resting[step.pick % Math.max(1, resting.length)];
        const price = order?.limit ?? order?.trigger;
        if (order === undefined || price === undefined || price === null) break;
        // Past a BUY LIMIT or a SELL STOP is below it; past a SELL LIMIT or a BUY STOP above it.
        const down = (order.kind !== "STOP") === (order.side === "BUY");
        const beyond = this.offset(price, step.beyondBp);
        const mark = down ? price - beyond : price + beyond;
        if (mark <= 0n) break;
        this.setPrice(order.symbol, mark, mark, m.quote(order.symbol).skew, step.thin ?? 0);
        break;
      }
    }
    this.settle(
      step,
      start,
      step.t === "wait" ||
        step.t === "day" ||
        step.t === "news" ||
        step.t === "session" ||
        step.t === "boundary" ||
        (step.t === "midnight" && step.then === "none"),
    );
  }

  /** Starts a step: counted, remembered for the failure message, nothing emitted yet on either side. */
  protected enter(step: StepLabel): StepStart {
    this.index++;
    this.counters.steps++;
    if (this.m.status !== "TERMINATED") this.counters.liveSteps++;
    this.history.push(`#${this.index} ${JSON.stringify(step)}`);
    if (this.history.length > 12) this.history.shift();
    this.h.lastEvents = [];
    this.m.idle();
    return {
      dayBefore: this.m.day,
      positionsBefore: this.m.positions.size,
      fillsBefore: new Set(this.m.working.filter((o) => o.ref > 0 && o.filled > 0n).map((o) => o.ref)),
    };
  }

  /**
   * Ends a step: compares what it emitted (the engine's `h.lastEvents` against the model's `effects`; nothing but
   * fills when `idle`) and the account after it. Throws on a mismatch.
   */
  protected settle(step: StepLabel, start: StepStart, idle: boolean, effects: Effects = this.m.last): void {
    const m = this.m;
    this.compareEffects(idle, effects);
    if (m.day !== start.dayBefore && effects.dayStarted !== null) {
      if (this.h.now % DAY_MS === 0)
        bump(this.counters.midnightExact, step.t === "midnight" ? `midnight:${step.then}` : step.t);
      if (start.positionsBefore > 0) this.counters.daysWithPositions++;
      if (start.positionsBefore > 0 && (step.t === "price" || (step.t === "midnight" && step.then === "price"))) {
        this.counters.daysStartedByPrice++;
      }
    }
    for (const o of m.working) {
      if (o.ref <= 0 || o.filled === 0n || start.fillsBefore.has(o.ref)) continue;
      this.counters.partialFills++;
      if (o.children.length > 0) this.counters.partialParents++;
    }
    this.compare(JSON.stringify(step));
  }

  /** A parent and its children (see the `bracket` step); each placement's effects are compared. */
  private bracket(step: Extract<Step, { t: "bracket" }>): void {
    const m = this.m;
    const h = this.h;
    const symbol = this.symbolOf(step.sym);
    const venue = this.venueFor(step.sym, step.alt);
    const quantity = this.quantityFor(symbol, step.size);
    const mark = this.mark(symbol);
    const long = step.side === "BUY";
    let entry = mark;
    let parentModel: PlaceResult;
    let parentReply: PlaceOrderReply;
    if (step.entry === "market") {
      parentModel = m.place(h.now, { symbol, venue, side: step.side, kind: "MARKET", quantity });
      parentReply = h.place({
        symbol,
        venue,
        side: step.side,
        kind: "MARKET",
        quantity: this.qtyText(symbol, quantity),
      });
    } else {
      const away = this.offset(mark, step.distBp);
      entry = step.entry === "rest" ? (long ? mark - away : mark + away) : long ? mark + away : mark - away;
      if (entry <= 0n) return;
      parentModel = m.place(h.now, { symbol, venue, side: step.side, kind: "LIMIT", quantity, limit: entry });
      parentReply = h.place({
        symbol,
        venue,
        side: step.side,
        kind: "LIMIT",
        quantity: this.qtyText(symbol, quantity),
        limit_price: this.priceText(symbol, entry),
      });
    }
    this.comparePlace(parentModel, parentReply);
    if (parentModel.kind !== "created") return;
    const parentId = this.refToId.get(parentModel.ref);
    if (parentId === undefined) return;
    const spec = tickerOf(symbol);
    let childQuantity = (quantity * BigInt(step.part)) / 4n;
    if (childQuantity < spec.minSteps) childQuantity = spec.minSteps;
    const exit: Side = long ? "SELL" : "BUY";
    const children: { kind: "TAKE_PROFIT" | "LIMIT" | "STOP"; price: bigint }[] = [];
    // Profit is above the entry for a long, below for a short; the loss the other way.
    const tp = entry + (long ? 1n : -1n) * this.offset(entry, step.tpBp);
    if (step.tpKind !== "none" && tp > 0n) children.push({ kind: step.tpKind, price: tp });
    const sl = entry - (long ? 1n : -1n) * this.offset(entry, step.slBp);
    if (step.slBp !== 0 && sl > 0n) children.push({ kind: "STOP", price: sl });
    for (const child of children) {
      this.compareEffects(false, this.m.last);
      const priced = child.kind === "LIMIT" ? { limit: child.price } : { trigger: child.price };
      const model = m.place(h.now, {
        symbol,
        venue,
        side: exit,
        kind: child.kind,
        quantity: childQuantity,
        ...priced,
        timeInForce: step.childTif,
        parent: parentModel.ref,
      });
      const reply = h.place({
        symbol,
        venue,
        side: exit,
        kind: child.kind,
        quantity: this.qtyText(symbol, childQuantity),
        ...(child.kind === "LIMIT"
          ? { limit_price: this.priceText(symbol, child.price) }
          : { trigger_price: this.priceText(symbol, child.price) }),
        time_in_force: step.childTif,
        parent_order_id: parentId,
      });
      this.comparePlace(model, reply);
      if (model.kind === "created") this.counters.bracketChildren++;
    }
  }

  /** The open position with the largest notional at the mark. */
  private largestPosition(): ModelPosition | undefined {
    let largest: ModelPosition | undefined;
    let value = -1n;
    for (const p of this.m.positions.values()) {
      const v = p.quantity * this.m.quote(p.symbol).mark * tickerOf(p.symbol).unitsPerTickStep;
      if (v > value) [largest, value] = [p, v];
    }
    return largest;
  }

  /** Closes (symbol, venue): all of it when `part` is 0, else `part` quarters. */
  private closePosition(symbol: string, venue: Venue, part: number): void {
    const spec = tickerOf(symbol);
    const position = this.m.positions.get(`${symbol}|${venue}`);
    let quantity: bigint | null = null;
    if (part > 0 && position !== undefined) {
      quantity = (position.quantity * BigInt(part)) / 4n;
      if (quantity < spec.minSteps) quantity = spec.minSteps;
      if (quantity > position.quantity) quantity = null;
    }
    this.comparePlace(
      ...this.closeBoth(symbol, venue, quantity, this.send({ what: "close", symbol, venue, quantity })),
    );
  }

  /** A close on both sides, with a client_id when given. */
  private closeBoth(
    symbol: string,
    venue: Venue,
    quantity: bigint | null,
    clientId: string | undefined,
  ): [PlaceResult, PlaceOrderReply] {
    const model = this.m.close(this.h.now, symbol, venue, quantity, clientId);
    const body = quantity === null ? { symbol, venue } : { symbol, venue, quantity: this.qtyText(symbol, quantity) };
    return [model, this.h.close(clientId === undefined ? body : { ...body, client_id: clientId })];
  }

  /** The client_id of a placement about to be sent (recorded for `retry`), or none without `clientIds`. */
  private send(sent: DistributiveOmit<Sent, "clientId">): string | undefined {
    if (!this.clientIds) return undefined;
    const clientId = `c-${this.sent.length + 1}`;
    this.sent.push({ ...sent, clientId });
    return clientId;
  }

  /**
   * A `retry` step: the placement it picks sent again with its client_id, the same body or another. The model
   * (which never forgets a client_id) answers the first answer or a conflict naming its order, or decides it anew
   * when the first placed nothing; the engine must agree, whatever it forgot since. Undefined when nothing was
   * sent with a client_id yet.
   */
  retry(step: RetryStep): Retried | undefined {
    const start = this.enter(step);
    const index = this.sent.length === 0 ? -1 : step.pick % this.sent.length;
    const sent = this.sent[index];
    let reply: PlaceOrderReply | undefined;
    if (sent?.what === "place") {
      const { request, body, clientId } = sent;
      const other = step.other ? request.quantity + 1n : request.quantity;
      const model = this.m.place(this.h.now, { ...request, quantity: other }, false, clientId);
      reply = this.h.place({ ...body, quantity: this.qtyText(request.symbol, other), client_id: clientId });
      this.compareRetry(model, reply, clientId);
    } else if (sent?.what === "close") {
      const { symbol, venue, quantity, clientId } = sent;
      const other = !step.other ? quantity : quantity === null ? tickerOf(symbol).minSteps : quantity + 1n;
      const [model, closeReply] = this.closeBoth(symbol, venue, other, clientId);
      reply = closeReply;
      this.compareRetry(model, reply, clientId);
    }
    this.settle(step, start, false);
    return reply === undefined ? undefined : { reply, index };
  }

  /** A retry's answer: as any placement's, and a replay or a conflict names the first answer's order. */
  private compareRetry(model: PlaceResult, reply: PlaceOrderReply, clientId: string): void {
    this.comparePlace(model, reply);
    if (!("first" in model)) return;
    const firstId = this.refToId.get(model.first.ref) ?? `ref ${model.first.ref}`;
    if (model.kind === "replayed") {
      this.check("replayed order", firstId, reply.kind === "error" ? null : reply.order.order_id);
      if (reply.kind !== "error") this.checkHeadroom(model.first.headroom, { ...reply.risk_headroom });
    } else {
      this.check("conflict", { client_id: clientId, order_id: firstId }, reply.kind === "error" ? reply.fields : null);
    }
  }

  private clock(): void {
    this.h.run({ type: "MarketUpdate" });
    this.m.clock(this.h.now);
  }

  // ---- comparing ----

  private check(what: string, model: unknown, engine: unknown): void {
    const a = typeof model === "bigint" ? show(model) : JSON.stringify(model, bigintJson);
    const b = typeof engine === "bigint" ? show(engine) : JSON.stringify(engine, bigintJson);
    if (a !== b) this.mismatches.push({ what, model: a, engine: b });
  }

  private checkHeadroom(model: Headroom, engine: Record<string, number>): void {
    this.check(
      "risk_headroom.daily_loss_remaining",
      model.dailyLoss,
      numberToUnits(engine.daily_loss_remaining ?? NaN),
    );
    this.check("risk_headroom.drawdown_remaining", model.drawdown, numberToUnits(engine.drawdown_remaining ?? NaN));
    this.check(
      "risk_headroom.symbol_exposure_remaining",
      model.symbolExposure,
      numberToUnits(engine.symbol_exposure_remaining ?? NaN),
    );
    this.check(
      "risk_headroom.total_exposure_remaining",
      model.totalExposure,
      numberToUnits(engine.total_exposure_remaining ?? NaN),
    );
  }

  private comparePlace(model: PlaceResult, reply: PlaceOrderReply): void {
    this.counters.orders++;
    const engineRule = reply.kind === "error" ? undefined : reply.violations[0]?.rule;
    const engineOutcome = reply.kind === "error" ? `error:${reply.code}` : `${reply.kind}:${engineRule ?? "-"}`;
    const modelOutcome = outcomeOf(model);
    if (model.kind === "created" && model.terminatedBy !== undefined) {
      bump(this.counters.ownFillTerminations, model.terminatedBy);
    }
    this.check("order outcome", modelOutcome, engineOutcome);
    if (model.kind === "created") this.counters.created++;
    if (model.kind === "rejected") this.counters.rejected[model.rule] = (this.counters.rejected[model.rule] ?? 0) + 1;
    if ((model.kind === "created" || model.kind === "rejected") && reply.kind !== "error") {
      this.refToId.set(model.ref, reply.order.order_id);
      this.idToRef.set(reply.order.order_id, model.ref);
      this.checkHeadroom(model.headroom, { ...reply.risk_headroom });
    }
  }

  private compareTest(model: PlaceResult, reply: ReturnType<Harness["test"]>): void {
    this.counters.orders++;
    const engine = reply.kind === "tested" ? reply.violations.map((v) => v.rule) : `error:${reply.code}`;
    const expected = model.kind === "tested" ? model.rules : `error:${model.kind === "error" ? model.code : "?"}`;
    this.check("order/test violations", expected, engine);
    if (model.kind === "tested" && reply.kind === "tested")
      this.checkHeadroom(model.headroom, { ...reply.risk_headroom });
  }

  private refOf(orderId: string): number | null {
    return this.idToRef.get(orderId) ?? null;
  }

  /** What the step emitted: day start, fills, cancels, breaches, termination, passing, funding. */
  private compareEffects(idle: boolean, effects: Effects): void {
    const events: readonly EngineEvent[] = this.h.lastEvents;
    const fills: string[] = [];
    const cancels: string[] = [];
    const breaches: string[] = [];
    const funding: string[] = [];
    const triggers: string[] = [];
    let day: bigint | null = null;
    let violation: string | null = null;
    let passed = false;
    for (const event of events) {
      switch (event.type) {
        case "DayStarted":
          day = BigInt(event.equity);
          break;
        case "OrderFilled": {
          const f = event.fill;
          fills.push(
            `${f.symbol}|${f.venue} ${this.refOf(f.order_id) ?? "risk"} ${f.side} ${f.quantity}@${f.price} fee ${f.fee} realized ${f.realized_pnl} ${f.liquidity} ${f.reason ?? "-"}`,
          );
          break;
        }
        case "OrderCanceled":
          cancels.push(`${this.refOf(event.order_id) ?? event.order_id} ${event.reason}`);
          break;
        case "OrderTriggered":
          triggers.push(`${this.refOf(event.order_id) ?? event.order_id} triggered`);
          break;
        case "OrderRearmed":
          triggers.push(`${this.refOf(event.order_id) ?? event.order_id} rearmed`);
          break;
        case "OrderExpired":
          cancels.push(`${this.refOf(event.order_id) ?? event.order_id} ${event.reason}`);
          break;
        case "BreachRecorded":
          breaches.push(
            `${event.breach.rule}:${event.breach.severity} ${event.breach.threshold} ${event.breach.value}`,
          );
          break;
        case "AccountTerminated":
          violation = `${event.violation.rule} ${event.violation.threshold} ${event.violation.value}`;
          break;
        case "AccountPassed":
          passed = true;
          break;
        case "FundingPaid":
          funding.push(`${event.payment.position_key} ${event.payment.rate_ppm} ${event.payment.amount}`);
          break;
        default:
          break;
      }
    }
    const byKey = (list: string[]): string[] => [...list].sort((a, b) => a.localeCompare(b));
    const modelFills = idle
      ? []
      : effects.fills.map(
          (f) =>
            `${f.symbol}|${f.venue} ${f.ref > 0 ? f.ref : "risk"} ${f.side} ${f.quantity}@${f.price} fee ${f.fee} realized ${f.realized} ${f.liquidity} ${f.reason ?? "-"}`,
        );
    const stable = (list: string[]): string[] =>
      list
        .map((text, i) => ({ key: text.slice(0, text.indexOf(" ")), i, text }))
        .sort((a, b) => a.key.localeCompare(b.key) || a.i - b.i)
        .map((x) => x.text);
    this.check("fills", stable(modelFills), stable(fills));
    this.counters.fills += fills.length;
    if (idle) return;
    this.check("day started at equity", effects.dayStarted, day);
    this.check("cancels", byKey(effects.cancels.map((c) => `${c.ref} ${c.reason}`)), byKey(cancels));
    for (const c of effects.cancels) {
      if (c.reason === "fok") this.counters.fokExpired++;
      else if (c.reason === "ioc_remainder") {
        if (this.m.orderKind(c.ref) === "LIMIT") this.counters.iocLimitRemainders++;
      } else if (
        ["drawdown_gate", "daily_loss_limit", "news_freeze", "exposure_cap", "insufficient_margin"].includes(c.reason)
      ) {
        bump(this.counters.refusedFills, c.reason);
      }
    }
    for (const f of effects.fills) {
      if (this.m.placedWhileClosed(f.ref)) this.counters.closedPlacedFills++;
      if (this.m.orders.get(f.ref)?.parent != null) this.counters.childFills++;
    }
    for (const c of effects.cancels) if (c.reason === "oco") this.counters.ocoCancels++;
    this.check(
      "triggered and re-armed",
      effects.triggers.map((x) => `${x.ref} ${x.what}`),
      triggers,
    );
    for (const x of effects.triggers) if (x.what === "rearmed") this.counters.rearmed++;
    this.check(
      "breaches",
      effects.breaches.map((b) => `${b.rule}:${b.severity} ${b.threshold} ${b.value}`),
      breaches,
    );
    this.counters.breaches += breaches.length;
    const v = effects.violation;
    this.check("termination", v === null ? null : `${v.rule} ${v.threshold} ${v.value}`, violation);
    if (violation !== null) this.counters.terminated++;
    this.check("passed", effects.passed, passed);
    if (passed) this.counters.passed++;
    this.check(
      "funding",
      byKey(effects.funding.map((f) => `${f.symbol}|${f.venue} ${f.ratePpm} ${f.amount}`)),
      byKey(funding),
    );
    this.counters.funding += funding.length;
  }

  /** The account after the step. Throws on the first step with a mismatch. */
  private compare(label: string): void {
    const h = this.h;
    const m = this.m;
    const account = h.account;
    const summary = accountSummary(account, h.market, h.now);
    this.check("balance", m.balance, BigInt(account.balance));
    this.check("equity", m.equity(), numberToUnits(summary.equity));
    this.check("unrealized", m.unrealized(), numberToUnits(summary.unrealized_pnl));
    this.check("realized_pnl_today", m.realizedToday(h.now), numberToUnits(summary.realized_pnl_today));
    this.check("margin_locked", m.marginLocked(), numberToUnits(summary.margin_locked));
    this.check("margin_available", m.marginAvailable(), numberToUnits(summary.margin_available));
    this.check("reserved", m.reserved(), BigInt(account.reserved_margin));
    this.check("high_water_mark", m.highWaterMark, BigInt(account.high_water_mark));
    this.check("day_start_equity", m.dayStartEquity, BigInt(account.day_start_equity));
    this.check("state", m.status, account.state);
    this.check("breaches so far", m.breaches.length, account.breaches.length);
    this.check("violations so far", m.violations.length, account.violations.length);
    const modelPositions = [...m.positions.entries()]
      .map(([key, p]) => `${key} ${p.side} ${p.quantity} cost ${p.cost} x${p.leverage}`)
      .sort();
    const enginePositions = [...account.positions]
      .map(([key, p]) => `${key} ${p.side} ${p.quantity} cost ${p.cost_basis} x${p.leverage}`)
      .sort();
    this.check("positions", modelPositions, enginePositions);
    const modelWorking = m.working
      .filter((o) => o.ref > 0)
      .map((o) => `${o.ref} ${o.kind} ${o.side} ${o.quantity - o.filled}`)
      .sort();
    const engineWorking = [...account.working.values()]
      .map((o) => `${this.refOf(o.order_id) ?? o.order_id} ${o.kind} ${o.side} ${o.quantity - o.filled_quantity}`)
      .sort();
    this.check("working orders", modelWorking, engineWorking);
    if (account.account_id !== ACCOUNT_ID) this.check("account", ACCOUNT_ID, account.account_id);
    if (this.mismatches.length > 0) {
      const lines = this.mismatches.map((x) => `  ${x.what}: model ${x.model} | engine ${x.engine}`);
      const what = this.mismatches.map((x) => x.what);
      this.mismatches = [];
      throw new ModelMismatch(
        `the engine and the model disagree after step ${this.index} ${label}:\n${lines.join("\n")}\n` +
          `recent steps:\n  ${this.history.join("\n  ")}`,
        this.index,
        what,
      );
    }
  }
}

/** `Omit` over each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A body with its client_id, when it has one. */
function withClientId(body: PlaceBody, clientId: string | undefined): PlaceBody {
  return clientId === undefined ? body : { ...body, client_id: clientId };
}

/** What a placement answered, as its reply's kind and first violation read. */
function outcomeOf(model: PlaceResult): string {
  switch (model.kind) {
    case "error":
      return `error:${model.code}`;
    case "rejected":
      return `rejected:${model.rule}`;
    case "created":
      return `created:${model.terminatedBy ?? "-"}`;
    case "replayed": {
      const first = model.first;
      return `replayed:${(first.kind === "rejected" ? first.rule : first.terminatedBy) ?? "-"}`;
    }
    case "tested":
      return "tested:-";
  }
}

function bigintJson(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

/** Runs steps in lockstep; the first disagreement, or undefined when they agree throughout. */
export function replay(plan: PlanSpec, steps: readonly Step[]): ModelMismatch | undefined {
  try {
    const lockstep = new Lockstep(plan, newCounters());
    for (const step of steps) lockstep.run(step);
    return undefined;
  } catch (error) {
    if (error instanceof ModelMismatch) return error;
    throw error;
  }
}

/** A shrunk failing sequence and its failure. */
export interface Shrunk<S> {
  steps: S[];
  failure: ModelMismatch;
}

/**
 * Shrinks a failing sequence to a small one failing the same way (same fields differing): cut after the
 * failing step, then drop chunks of steps, halving the chunk size down to single steps. It yields each candidate
 * and is given back the candidate's failure (or undefined), so a synchronous and an asynchronous replay share it.
 */
export function* shrinking<S>(
  steps: readonly S[],
  failure: ModelMismatch,
): Generator<S[], Shrunk<S>, ModelMismatch | undefined> {
  const same = (other: ModelMismatch | undefined): other is ModelMismatch =>
    other !== undefined && other.what.join() === failure.what.join();
  let current = steps.slice(0, failure.step);
  let last = failure;
  for (
    let size = Math.max(1, Math.floor(current.length / 2));
    size >= 1;
    size = size === 1 ? 0 : Math.floor(size / 2)
  ) {
    for (let i = current.length - size; i >= 0; i -= size) {
      const candidate = [...current.slice(0, i), ...current.slice(i + size)];
      const outcome = yield candidate;
      if (same(outcome)) {
        current = candidate.slice(0, outcome.step);
        last = outcome;
        i = Math.min(i, current.length);
      }
    }
  }
  return { steps: current, failure: last };
}

/** `shrinking` with the lockstep replay. */
export function minimize(plan: PlanSpec, steps: readonly Step[], failure: ModelMismatch): Shrunk<Step> {
  const shrink = shrinking(steps, failure);
  let next = shrink.next(undefined);
  while (next.done !== true) next = shrink.next(replay(plan, next.value));
  return next.value;
}
