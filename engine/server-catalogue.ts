// engine.v1's catalogue calls: the tickers with their prices and market hours, the plans, and the news
// calendar (filtered by engine/market/calendar.ts's parseCalendarFilter).
import { ServiceError } from "../kernel/errors.js";
import { unary, type UnaryOptions } from "../kernel/grpc.js";
import type { Calendar } from "../proto/gen/engine/v1/Calendar.js";
import type { EngineHandlers } from "../proto/gen/engine/v1/Engine.js";
import type { ListPlansResponse } from "../proto/gen/engine/v1/ListPlansResponse.js";
import type { ListTickersResponse } from "../proto/gen/engine/v1/ListTickersResponse.js";
import type { Plan as PlanMessage } from "../proto/gen/engine/v1/Plan.js";
import type { Ticker } from "../proto/gen/engine/v1/Ticker.js";
import type { Plan } from "./basics/plans.js";
import { parseCalendarFilter, type NewsEvent } from "./market/calendar.js";
import type { TickerSpec } from "./market/catalogue.js";
import { isMarketOpen } from "../kernel/market-hours.js";
import type { PriceSource } from "./market/prices.js";
import type { EngineServerDeps } from "./server-deps.js";

/** The wire form of one catalogue row: numbers instead of decimal strings, prices and hours as of `nowMs`. */
export function tickerMessage(spec: TickerSpec, prices: PriceSource, nowMs: number): Ticker {
  const quote = prices.get(spec.symbol);
  return {
    symbol: spec.symbol,
    base: spec.base,
    quote: spec.quote,
    asset_class: spec.asset_class,
    venues: [...spec.venues],
    max_leverage: spec.max_leverage,
    tick_size: Number(spec.tick_size),
    quantity_step: Number(spec.quantity_step),
    min_quantity: Number(spec.min_quantity),
    ...(quote === undefined ? {} : { mark_price: quote.mark, index_price: quote.index }),
    market_open: isMarketOpen(spec.asset_class, nowMs),
  };
}

/** The wire form of one plan (fresh arrays and objects, so the frozen catalogue is never handed out). */
export function planMessage(plan: Plan): PlanMessage {
  return {
    ...plan,
    max_leverage: { ...plan.max_leverage },
    news_freeze: { ...plan.news_freeze },
    allowed_venues: [...plan.allowed_venues],
  };
}

/** The wire form of calendar events (GetCalendar's answer, WatchCatalogue's calendar). */
export function calendarMessage(events: readonly NewsEvent[]): Calendar {
  return {
    events: events.map((event) => ({
      id: event.id,
      title: event.title,
      scheduled_at: event.scheduled_at,
      symbols: [...event.symbols],
      asset_classes: [...event.asset_classes],
    })),
  };
}

export function catalogueHandlers(
  deps: Pick<EngineServerDeps, "catalogue" | "plans" | "prices" | "calendar" | "now">,
  options: UnaryOptions,
): Pick<EngineHandlers, "ListTickers" | "ListPlans" | "GetCalendar"> {
  return {
    ListTickers: unary(
      "ListTickers",
      (): ListTickersResponse => {
        const nowMs = deps.now();
        return { data: deps.catalogue.rows.map((spec) => tickerMessage(spec, deps.prices, nowMs)) };
      },
      options,
    ),
    ListPlans: unary("ListPlans", (): ListPlansResponse => ({ data: deps.plans.rows.map(planMessage) }), options),
    // The stored calendar filtered by optional ISO bounds and a symbol; bad filters are 400s.
    GetCalendar: unary(
      "GetCalendar",
      (request) => {
        const filter = parseCalendarFilter(request, deps.catalogue);
        if ("issues" in filter) throw ServiceError.invalid(filter.issues);
        return calendarMessage(deps.calendar.select(filter.ok));
      },
      options,
    ),
  };
}
