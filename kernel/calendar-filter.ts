// The news calendar's read filter (`from`, `to`, `symbol`), one implementation for the engine's GetCalendar
// (engine/market/calendar.ts) and the gateway's catalogue cache (gateway/v1/catalogue-cache.ts), so both accept,
// refuse and select alike (docs/engine.md, "Catalogue reads").
import type { Issue } from "./errors.js";
import { spelledSymbol } from "./symbols.js";
import { parseIsoDateTime } from "./time.js";

/** What the filter needs of a ticker: its symbol and asset class. */
export interface CalendarTicker {
  readonly symbol: string;
  readonly asset_class: string;
}

/** What the filter needs of an event: when, and what it concerns. */
export interface CalendarEntry {
  /** Epoch ms of its scheduled_at. */
  readonly at: number;
  readonly symbols: readonly string[];
  readonly asset_classes: readonly string[];
}

export interface CalendarFilter<T extends CalendarTicker = CalendarTicker> {
  /** Epoch ms, inclusive; absent: unbounded. */
  from?: number;
  to?: number;
  spec?: T;
}

/** GetCalendar's filter as it arrives: each field empty when absent. */
export interface CalendarQuery {
  from: string;
  to: string;
  symbol: string;
}

/** Does the event concern this ticker (by symbol or by asset class)? */
export function concerns(event: CalendarEntry, spec: CalendarTicker): boolean {
  return event.symbols.includes(spec.symbol) || event.asset_classes.includes(spec.asset_class);
}

/**
 * Reads the filter: `from` and `to` ISO 8601 date-times with a time zone (`from` not after `to`) and a symbol
 * `tickerOf` lists (any spelling kernel/symbols.ts reads), each optional; every problem is reported with its path.
 */
export function readCalendarFilter<T extends CalendarTicker>(
  query: CalendarQuery,
  tickerOf: (symbol: string) => T | undefined,
): { ok: CalendarFilter<T> } | { issues: Issue[] } {
  const issues: Issue[] = [];
  const bound = (name: "from" | "to"): number | undefined => {
    const text = query[name];
    if (text === "") return undefined;
    const at = parseIsoDateTime(text);
    if (Number.isNaN(at)) issues.push({ path: name, message: "must be an ISO 8601 date-time with a time zone" });
    return at;
  };
  const from = bound("from");
  const to = bound("to");
  if (from !== undefined && to !== undefined && from > to)
    issues.push({ path: "from", message: "must not be after to" });
  let spec: T | undefined;
  if (query.symbol !== "") {
    const symbol = spelledSymbol(query.symbol);
    spec = symbol === undefined ? undefined : tickerOf(symbol);
    if (spec === undefined) issues.push({ path: "symbol", message: "unknown symbol" });
  }
  if (issues.length > 0) return { issues };
  return {
    ok: {
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
      ...(spec === undefined ? {} : { spec }),
    },
  };
}

/** The events in [from, to] that concern the filter's ticker (each bound optional), in the order given. */
export function selectCalendar<E extends CalendarEntry>(events: readonly E[], filter: CalendarFilter): E[] {
  const { from, to, spec } = filter;
  return events.filter(
    (event) =>
      (from === undefined || event.at >= from) &&
      (to === undefined || event.at <= to) &&
      (spec === undefined || concerns(event, spec)),
  );
}
