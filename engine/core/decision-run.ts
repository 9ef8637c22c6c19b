// One decision in progress: the `Run` the placement, execution and risk modules work with. It records the
// events they emit and applies them to a copy-on-write draft of the state (before the state is next read),
// so execution sees its own fills exactly as a replay will; it counts the book depth the decision's own fills
// took, which the shard's market view does not show until the decision is journaled.
import { DEFAULT_MAX_WORKING_ORDERS } from "../accounts/limits.js";
import { forkState, type AccountState, type IdempotencyRecord } from "../basics/account-state.js";
import type { BookSide, MarketView } from "../market/book.js";
import type { NewsEvent } from "../market/calendar.js";
import type { EngineEvent } from "../basics/events.js";
import type { Run } from "../basics/run.js";
import { apply } from "./apply.js";
import type { DecideContext } from "./commands.js";

const NO_EVENTS: readonly NewsEvent[] = Object.freeze([]);

export class DecisionRun implements Run {
  readonly events: EngineEvent[] = [];
  private activatedIds: string[] | undefined;
  private fills = 0;
  private draft: AccountState | undefined;
  /** Events emitted but not yet applied to the draft: applied when the state is next read. */
  private applied = 0;
  /** Steps taken by this decision from the first quote it filled on: most decisions touch one symbol. */
  private takenSymbol: string | undefined;
  private takenBuy = 0;
  private takenSell = 0;
  /** Steps taken per other quote: [buy, sell]. */
  private takenOther: Map<string, [number, number]> | undefined;

  constructor(
    private readonly base: AccountState,
    private readonly ctx: DecideContext,
    readonly dayAt: number = ctx.now,
  ) {}

  get now(): number {
    return this.ctx.now;
  }

  get market(): MarketView {
    return this.ctx.market;
  }

  get calendar(): readonly NewsEvent[] {
    return this.ctx.calendar ?? NO_EVENTS;
  }

  get maxWorkingOrders(): number {
    return this.ctx.maxWorkingOrders ?? DEFAULT_MAX_WORKING_ORDERS;
  }

  /** Whether the decision has filled anything (equity moved: the limits must be looked at). */
  get filled(): boolean {
    return this.fills > 0;
  }

  recalled(clientId: string): IdempotencyRecord | undefined {
    const recalled = this.ctx.recalled;
    return recalled !== undefined && recalled.clientId === clientId ? recalled.record : undefined;
  }

  /** Made on first use: only a parent's first fill activates children. */
  get activated(): string[] {
    return (this.activatedIds ??= []);
  }

  get state(): AccountState {
    if (this.applied < this.events.length) this.catchUp();
    return this.draft ?? this.base;
  }

  nextId(): string {
    return this.ctx.nextId();
  }

  get emitted(): number {
    return this.events.length;
  }

  emit(event: EngineEvent): void {
    this.events.push(event);
    if (event.type === "OrderFilled") {
      this.fills++;
      this.addTaken(event.fill.symbol, event.fill.side, event.fill.quantity);
    }
  }

  localTaken(symbol: string, side: BookSide): number {
    if (symbol === this.takenSymbol) return side === "BUY" ? this.takenBuy : this.takenSell;
    const sides = this.takenOther?.get(symbol);
    return sides === undefined ? 0 : sides[side === "BUY" ? 0 : 1];
  }

  /**
   * Applies the pending events to the draft. Deferred until a read, so the event that ends most decisions
   * (IdempotencyRecorded, after the reply is built) is never applied twice: nothing reads it in the draft.
   */
  private catchUp(): void {
    const draft = (this.draft ??= forkState(this.base));
    const events = this.events;
    while (this.applied < events.length) apply(draft, events[this.applied++] as EngineEvent);
  }

  private addTaken(symbol: string, side: BookSide, steps: number): void {
    this.takenSymbol ??= symbol;
    if (symbol === this.takenSymbol) {
      if (side === "BUY") this.takenBuy += steps;
      else this.takenSell += steps;
      return;
    }
    const taken = (this.takenOther ??= new Map<string, [number, number]>());
    let sides = taken.get(symbol);
    if (sides === undefined) {
      sides = [0, 0];
      taken.set(symbol, sides);
    }
    sides[side === "BUY" ? 0 : 1] += steps;
  }
}
