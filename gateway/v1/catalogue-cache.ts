// The gateway's copy of the engine's catalogue reads (tickers, plans, news calendar), kept current by one engine
// WatchCatalogue stream, so GET /v1/tickers, /v1/plans and /v1/calendar cost no engine call (docs/engine.md,
// "Catalogue reads"). Each answer is the engine's: the same messages, a ticker's market_open computed with the
// engine's hours (kernel/market-hours.ts) at the read, the calendar filtered by kernel/calendar-filter.ts. Until
// the stream's first (whole) reply, after it breaks, and when nothing came for STALE_MS, every read answers
// undefined and the caller asks the engine instead.
import * as grpc from "@grpc/grpc-js";
import { readCalendarFilter, selectCalendar, type CalendarQuery } from "../../kernel/calendar-filter.js";
import { fromGrpcError, ServiceError } from "../../kernel/errors.js";
import { CHANNEL_OPTIONS, loadEngineProto } from "../../kernel/grpc.js";
import type { Logger } from "../../kernel/log.js";
import { isMarketOpen, type MarketClass } from "../../kernel/market-hours.js";
import { parseIsoDateTime } from "../../kernel/time.js";
import type { Calendar__Output } from "../../proto/gen/engine/v1/Calendar.js";
import type { CalendarEvent__Output } from "../../proto/gen/engine/v1/CalendarEvent.js";
import type { CatalogueUpdate__Output } from "../../proto/gen/engine/v1/CatalogueUpdate.js";
import type { ListPlansResponse__Output } from "../../proto/gen/engine/v1/ListPlansResponse.js";
import type { ListTickersResponse__Output } from "../../proto/gen/engine/v1/ListTickersResponse.js";
import type { Plan__Output } from "../../proto/gen/engine/v1/Plan.js";
import type { Ticker__Output } from "../../proto/gen/engine/v1/Ticker.js";

/**
 * The longest the cache serves without hearing from its engine: the engine sends at least one reply a second
 * (a heartbeat when nothing changed), so a silence this long means the stream or the engine is stuck.
 */
export const STALE_MS = 5_000;

/** Waits before reopening a broken stream, by consecutive failures. */
const BACKOFF_MS = [250, 500, 1_000, 2_000, 5_000];

/** Opens WatchCatalogue on engine `attempt` modulo the engines: each reopen tries the next one. */
export type OpenCatalogue = (attempt: number) => grpc.ClientReadableStream<CatalogueUpdate__Output>;

/** What the catalogue routes read: each undefined when the engine must answer instead. */
export interface CatalogueReads {
  listTickers(): ListTickersResponse__Output | undefined;
  listPlans(): ListPlansResponse__Output | undefined;
  /** Throws invalid_payload for a bad filter, as GetCalendar does. */
  getCalendar(query: CalendarQuery): Calendar__Output | undefined;
}

type Event = CalendarEvent__Output & { at: number };

interface Copy {
  /** By symbol, in catalogue order (updates keep each ticker's place). */
  tickers: Map<string, Ticker__Output>;
  plans: Plan__Output[];
  events: Event[];
}

const eventsOf = (calendar: Calendar__Output): Event[] =>
  calendar.events.map((event) => ({ ...event, at: parseIsoDateTime(event.scheduled_at) }));

export class CatalogueCache implements CatalogueReads {
  private copy: Copy | undefined;
  private heardAt = 0;
  private call: grpc.ClientReadableStream<CatalogueUpdate__Output> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private attempts = 0;
  private closed = false;

  constructor(
    private readonly open: OpenCatalogue,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Opens the stream (engine 0 first). */
  start(): void {
    this.closed = false;
    this.follow();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    const call = this.call;
    this.call = undefined;
    this.copy = undefined;
    call?.cancel();
  }

  /** The copy when it may answer: primed by a whole reply on the open stream, heard from within STALE_MS. */
  private current(): Copy | undefined {
    if (this.copy === undefined || this.now() - this.heardAt > STALE_MS) return undefined;
    return this.copy;
  }

  listTickers(): ListTickersResponse__Output | undefined {
    const copy = this.current();
    if (copy === undefined) return undefined;
    const nowMs = this.now();
    const data = [...copy.tickers.values()].map((ticker) => ({
      ...ticker,
      market_open: isMarketOpen(ticker.asset_class as MarketClass, nowMs),
    }));
    return { data };
  }

  listPlans(): ListPlansResponse__Output | undefined {
    const copy = this.current();
    return copy === undefined ? undefined : { data: copy.plans };
  }

  getCalendar(query: CalendarQuery): Calendar__Output | undefined {
    const copy = this.current();
    if (copy === undefined) return undefined;
    const filter = readCalendarFilter(query, (symbol) => copy.tickers.get(symbol));
    if ("issues" in filter) throw ServiceError.invalid(filter.issues);
    const events = selectCalendar(copy.events, filter.ok).map(
      ({ id, title, scheduled_at, symbols, asset_classes }) => ({ id, title, scheduled_at, symbols, asset_classes }),
    );
    return { events };
  }

  private follow(): void {
    this.timer = undefined;
    const call = this.open(this.attempts++);
    this.call = call;
    call.on("data", (update: CatalogueUpdate__Output) => {
      if (call !== this.call) return;
      this.heardAt = this.now();
      this.apply(update);
    });
    call.on("error", (error: unknown) => {
      if (call !== this.call) return;
      this.broken(fromGrpcError(error).message);
    });
    call.on("end", () => {
      if (call !== this.call) return;
      this.broken("the engine ended the catalogue stream");
    });
  }

  private apply(update: CatalogueUpdate__Output): void {
    if (update.whole) {
      this.failures = 0;
      this.copy = {
        tickers: new Map(update.tickers.map((ticker) => [ticker.symbol, ticker])),
        plans: update.plans,
        events: eventsOf(update.calendar ?? { events: [] }),
      };
      return;
    }
    const copy = this.copy;
    if (copy === undefined) return;
    for (const ticker of update.tickers) if (copy.tickers.has(ticker.symbol)) copy.tickers.set(ticker.symbol, ticker);
    if (update.calendar !== null) copy.events = eventsOf(update.calendar);
  }

  /** The stream is gone: reads go to the engine until the next whole reply; it reopens on the next engine. */
  private broken(reason: string): void {
    this.call = undefined;
    this.copy = undefined;
    if (this.closed) return;
    const delay = BACKOFF_MS[Math.min(this.failures++, BACKOFF_MS.length - 1)] ?? 5_000;
    this.log.warn({ err: reason, delay }, "catalogue stream reopens");
    this.timer = setTimeout(() => {
      this.follow();
    }, delay);
    this.timer.unref();
  }
}

/**
 * WatchCatalogue over channels of its own, one per engine target (`close` closes them): its reopens while an
 * engine is down put only these channels into reconnect backoff, never the ones the requests use (those stay idle
 * and connect on the next call, as without the copy).
 */
export function catalogueStreams(
  targets: readonly string[],
  credentials: grpc.ChannelCredentials,
  metadata: () => grpc.Metadata,
): { open: OpenCatalogue; close: () => void } {
  const def = loadEngineProto().engine.v1.Engine.service.WatchCatalogue;
  const options = { ...CHANNEL_OPTIONS, "grpc.max_reconnect_backoff_ms": 2_000, "grpc.use_local_subchannel_pool": 1 };
  const clients = targets.map((target) => new grpc.Client(target, credentials, options));
  return {
    open: (attempt) => {
      const client = clients[attempt % clients.length];
      if (client === undefined) throw new Error("no engine");
      return client.makeServerStreamRequest(def.path, def.requestSerialize, def.responseDeserialize, {}, metadata());
    },
    close: () => {
      for (const client of clients) client.close();
    },
  };
}
