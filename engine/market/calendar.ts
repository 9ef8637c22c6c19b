// The high-impact news calendar (market.v1 SetCalendar replaces it as a whole). Each event names the
// symbols or asset classes it affects; the news-freeze rule reads it.
import calendarJson from "./calendar.json" with { type: "json" };
import {
  concerns,
  readCalendarFilter,
  selectCalendar,
  type CalendarFilter as SharedFilter,
  type CalendarQuery,
} from "../../kernel/calendar-filter.js";
import type { Issue } from "../../kernel/errors.js";
import { unreadableText } from "../../kernel/text.js";
import { parseIsoDateTime } from "../../kernel/time.js";
import type { Catalogue, TickerSpec } from "./catalogue.js";
import { normalizeSymbol } from "./symbols.js";
import { ASSET_CLASSES, type AssetClass } from "./types.js";

export interface NewsEvent {
  id: string;
  title: string;
  scheduled_at: string;
  /** Epoch ms of `scheduled_at`. */
  at: number;
  symbols: string[];
  asset_classes: AssetClass[];
}

export interface NewsEventInput {
  id: string;
  title: string;
  scheduled_at: string;
  symbols: string[];
  asset_classes: string[];
}

/** Validates a whole calendar; every problem is reported with its path. */
export function parseCalendar(
  inputs: readonly NewsEventInput[],
  catalogue: Catalogue,
): { ok: NewsEvent[] } | { issues: Issue[] } {
  const issues: Issue[] = [];
  const events: NewsEvent[] = [];
  const ids = new Set<string>();
  inputs.forEach((input, i) => {
    const path = `events.${i}`;
    const unreadableId = unreadableText(input.id);
    if (input.id.trim() === "") issues.push({ path: `${path}.id`, message: "required" });
    else if (unreadableId !== undefined) issues.push({ path: `${path}.id`, message: unreadableId });
    else if (ids.has(input.id)) issues.push({ path: `${path}.id`, message: "must be unique" });
    ids.add(input.id);
    const title = unreadableText(input.title);
    if (title !== undefined) issues.push({ path: `${path}.title`, message: title });
    const at = parseIsoDateTime(input.scheduled_at);
    if (Number.isNaN(at))
      issues.push({ path: `${path}.scheduled_at`, message: "must be an ISO 8601 date-time with a time zone" });
    const symbols: string[] = [];
    input.symbols.forEach((raw, j) => {
      const symbol = normalizeSymbol(raw, catalogue);
      if (symbol === undefined) issues.push({ path: `${path}.symbols.${j}`, message: "unknown symbol" });
      else symbols.push(symbol);
    });
    const classes: AssetClass[] = [];
    input.asset_classes.forEach((raw, j) => {
      const assetClass = ASSET_CLASSES.find((c) => c === raw);
      if (assetClass === undefined) issues.push({ path: `${path}.asset_classes.${j}`, message: "unknown asset class" });
      else classes.push(assetClass);
    });
    if (input.symbols.length === 0 && input.asset_classes.length === 0) {
      issues.push({ path: path, message: "must name at least one symbol or asset class" });
    }
    events.push({
      id: input.id,
      title: input.title,
      scheduled_at: Number.isNaN(at) ? input.scheduled_at : new Date(at).toISOString(),
      at,
      symbols,
      asset_classes: classes,
    });
  });
  if (issues.length > 0) return { issues };
  return { ok: events.sort((a, b) => a.at - b.at || a.id.localeCompare(b.id)) };
}

/** The calendar shipped with the engine (calendar.json), validated against the catalogue; throws if bad. */
export function shippedCalendar(catalogue: Catalogue): NewsEvent[] {
  const parsed = parseCalendar(calendarJson.events, catalogue);
  if ("issues" in parsed) {
    const problems = parsed.issues.map((issue) => `  - ${issue.path}: ${issue.message}`);
    throw new Error(`invalid shipped news calendar:\n${problems.join("\n")}`);
  }
  return parsed.ok;
}

/** Does the event concern this ticker (by symbol or by asset class)? */
export function affects(event: NewsEvent, spec: TickerSpec): boolean {
  return concerns(event, spec);
}

export type CalendarFilter = SharedFilter<TickerSpec>;
export type { CalendarQuery };

/** Reads GetCalendar's filter against the catalogue (kernel/calendar-filter.ts, shared with the gateway). */
export function parseCalendarFilter(
  query: CalendarQuery,
  catalogue: Catalogue,
): { ok: CalendarFilter } | { issues: Issue[] } {
  return readCalendarFilter(query, (symbol) => catalogue.byKey(symbol));
}

export class NewsCalendar {
  private current: readonly NewsEvent[];
  private readonly listeners = new Set<(events: readonly NewsEvent[]) => void>();

  constructor(events: readonly NewsEvent[] = []) {
    this.current = Object.freeze([...events]);
  }

  replace(events: readonly NewsEvent[]): void {
    this.current = Object.freeze([...events]);
    for (const listener of this.listeners) listener(this.current);
  }

  /** Calls `listener` with the calendar after every replacement from now on; returns how to stop. */
  onReplace(listener: (events: readonly NewsEvent[]) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  events(): readonly NewsEvent[] {
    return this.current;
  }

  /** The events in [from, to] that concern `spec` (each bound optional), in time order. */
  select(filter: CalendarFilter): NewsEvent[] {
    return selectCalendar(this.current, filter);
  }
}
