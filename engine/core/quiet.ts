// The cheap answer to most price updates: an account that nothing can trigger, fill, expire or breach on
// this update is answered without building a decision.
import type { AccountState } from "../basics/account-state.js";
import type { EngineEvent } from "../basics/events.js";
import { crosses, triggerReached } from "../basics/entry.js";
import { monitorWouldAct } from "../orders/monitor.js";
import { cachedBand } from "../risk/quiet-band.js";
import { cancelAfterDue } from "../orders/cancel-after.js";
import type { DecideContext, Decision } from "./commands.js";

/** The answer of a quiet update, shared (frozen: no consumer adds to a decision's events). */
export const QUIET: Decision = Object.freeze({
  events: Object.freeze([]) as unknown as EngineEvent[],
  reply: Object.freeze({ kind: "ok" }),
});

/**
 * True when a price update can change nothing for this account (see decide). `useBand` false skips the
 * quiet band (tests hold the band to the full check with it).
 */
export function quietUpdate(
  state: AccountState,
  symbols: ReadonlySet<string> | undefined,
  ctx: DecideContext,
  useBand = true,
): boolean {
  // A terminated account holds nothing and records nothing more (not even a new day).
  if (state.state === "TERMINATED") return true;
  if (ctx.now >= state.next_day_at) return false;
  // A dead-man's switch whose deadline came (docs/risk.md, "Cancel-after").
  if (cancelAfterDue(state, ctx.now)) return false;
  // The quiet band: a few numbers next to the state instead of its maps (risk/quiet-band.ts).
  if (useBand) {
    const band = cachedBand(state, ctx.market);
    if (band.symbol !== null && ctx.now < band.until) {
      if (band.symbol === "" || (symbols !== undefined && !symbols.has(band.symbol))) return true;
      const mark = ctx.market.quotes.get(band.symbol)?.mark;
      if (mark !== undefined && mark >= band.low && mark <= band.high) return true;
    }
  }
  if (state.expiries.size > 0) for (const expireAt of state.expiries.values()) if (expireAt <= ctx.now) return false;
  for (const order of state.working.values()) {
    if (order.status === "HELD" || (symbols !== undefined && !symbols.has(order.symbol))) continue;
    const quote = ctx.market.quotes.get(order.symbol);
    if (quote === undefined) continue;
    if (order.kind === "LIMIT") {
      if (crosses(order, quote.mark)) return false;
    } else if (order.kind === "MARKET" || order.triggered || triggerReached(order, quote)) {
      return false;
    }
  }
  return !monitorWouldAct(state, ctx.market);
}
