// engine.v1's server-streaming calls (docs/streaming.md): WatchAccount, an account's webhook events from a
// sequence on, committed then live (engine/webhooks/watch.ts), and WatchTickers, the tickers as their prices
// change, and WatchCatalogue, the catalogue reads (tickers, plans, calendar) as they change. Internal token
// required like every call; a failure ends the stream with the registry's status (its `fts-error-bin` trailer). On shutdown every open stream ends UNAVAILABLE: its caller reopens it elsewhere or
// later from the last sequence it got.
import type * as grpc from "@grpc/grpc-js";
import { ServiceError, toGrpcStatus } from "../kernel/errors.js";
import { internalTokenCheck } from "../kernel/grpc.js";
import type { Logger } from "../kernel/log.js";
import type { EngineHandlers } from "../proto/gen/engine/v1/Engine.js";
import type { Ticker } from "../proto/gen/engine/v1/Ticker.js";
import type { WatchAccountReply } from "../proto/gen/engine/v1/WatchAccountReply.js";
import type { WatchAccountRequest__Output } from "../proto/gen/engine/v1/WatchAccountRequest.js";
import type { WatchTickersRequest__Output } from "../proto/gen/engine/v1/WatchTickersRequest.js";
import type { CatalogueUpdate } from "../proto/gen/engine/v1/CatalogueUpdate.js";
import type { WatchCatalogueRequest__Output } from "../proto/gen/engine/v1/WatchCatalogueRequest.js";
import type { PlanCatalogue } from "./basics/plans.js";
import type { NewsCalendar } from "./market/calendar.js";
import type { Catalogue, TickerSpec } from "./market/catalogue.js";
import type { LivePrices } from "./market/prices.js";
import { normalizeSymbol } from "./market/symbols.js";
import { calendarMessage, planMessage, tickerMessage } from "./server-catalogue.js";
import { accountIdOf, requireUser } from "./server-wire.js";
import { eventMessage } from "./webhooks/handlers.js";
import type { AccountWatches } from "./webhooks/watch.js";

export interface StreamDeps {
  watches: AccountWatches;
  catalogue: Catalogue;
  plans: PlanCatalogue;
  calendar: NewsCalendar;
  prices: LivePrices;
  now: () => number;
  internalToken: string | undefined;
  log: Logger;
}

type Stream<Req, Res> = grpc.ServerWritableStream<Req, Res>;

/** The open streams, ended UNAVAILABLE when the server shuts down. */
export class OpenStreams {
  private readonly calls = new Set<Stream<unknown, unknown>>();

  /** Holds `call` among the open streams until it ends, however it ends; then `closed` runs, once. */
  hold(call: Stream<unknown, unknown>, closed: () => void): void {
    this.calls.add(call);
    let done = false;
    const once = (): void => {
      if (done) return;
      done = true;
      this.calls.delete(call);
      closed();
    };
    call.on("cancelled", once);
    call.on("close", once);
    call.on("error", once);
    call.on("finish", once);
  }

  endAll(): void {
    for (const call of this.calls) fail(call, new ServiceError("engine_unavailable", {}, "engine stopping"));
    this.calls.clear();
  }
}

/** Ends a stream with the registry status of `error`. */
function fail(call: Stream<unknown, unknown>, error: unknown): void {
  if (call.destroyed || call.writableEnded) return;
  call.emit("error", toGrpcStatus(error));
}

/** Writes `message` to a stream that is still open (a stream that ended takes nothing more). */
function send<Res>(call: Stream<unknown, Res>, message: Res): void {
  if (!call.destroyed && !call.writableEnded) call.write(message);
}

/** A streaming handler that serves only calls carrying the internal token; any other ends `unauthorized`. */
function guarded<Req, Res>(
  deps: StreamDeps,
  serve: (call: Stream<Req, Res>) => void,
): (call: Stream<Req, Res>) => void {
  const authorized = internalTokenCheck(deps.internalToken);
  return (call) => {
    if (authorized(call.metadata)) serve(call);
    else fail(call, new ServiceError("unauthorized", {}, "internal token required"));
  };
}

function watchAccount(deps: StreamDeps, open: OpenStreams): EngineHandlers["WatchAccount"] {
  return guarded(deps, (call: Stream<WatchAccountRequest__Output, WatchAccountReply>) => {
    const r = call.request;
    let closeWatch: (() => void) | undefined;
    let ended = false;
    open.hold(call, () => {
      ended = true;
      closeWatch?.();
    });
    const start = async (): Promise<void> => {
      const userId = requireUser(r.user_id);
      const accountId = accountIdOf(r.account_id);
      const watch = await deps.watches.open(userId, accountId, r.after ?? undefined, {
        send: (event) => {
          send(call, { event: eventMessage(event) });
        },
        fail: (error) => {
          deps.log.warn({ err: error, accountId }, "account watch failed");
          fail(call, error);
        },
      });
      if (ended) {
        watch.close();
        return;
      }
      closeWatch = () => {
        watch.close();
      };
      call.write({ after: watch.after });
    };
    start().catch((error: unknown) => {
      fail(call, error);
    });
  });
}

/** The tickers a price update moved (only those of `wanted`, when given), in the update's order. */
function movedTickers(deps: StreamDeps, symbols: Iterable<string>, wanted?: ReadonlySet<string>): Ticker[] {
  const nowMs = deps.now();
  const tickers: Ticker[] = [];
  for (const symbol of symbols) {
    const spec = wanted === undefined || wanted.has(symbol) ? deps.catalogue.byKey(symbol) : undefined;
    if (spec !== undefined) tickers.push(tickerMessage(spec, deps.prices, nowMs));
  }
  return tickers;
}

function watchTickers(deps: StreamDeps, open: OpenStreams): EngineHandlers["WatchTickers"] {
  return guarded(deps, (call: Stream<WatchTickersRequest__Output, Ticker>) => {
    const wanted = new Set<string>();
    const issues: { path: string; message: string }[] = [];
    call.request.symbols.forEach((raw, i) => {
      const symbol = normalizeSymbol(raw, deps.catalogue);
      if (symbol === undefined) issues.push({ path: `symbols.${i}`, message: "unknown symbol" });
      else wanted.add(symbol);
    });
    if (issues.length > 0) {
      fail(call, ServiceError.invalid(issues));
      return;
    }
    const specs: TickerSpec[] = deps.catalogue.rows.filter((spec) => wanted.size === 0 || wanted.has(spec.symbol));
    const sendTicker = (spec: TickerSpec): void => {
      send(call, tickerMessage(spec, deps.prices, deps.now()));
    };
    const stop = deps.prices.onUpdate((symbols) => {
      for (const ticker of movedTickers(deps, symbols, wanted.size === 0 ? undefined : wanted)) send(call, ticker);
    });
    open.hold(call, stop);
    for (const spec of specs) sendTicker(spec);
  });
}

/** How long WatchCatalogue stays silent at most: an empty reply says the stream is alive. */
export const CATALOGUE_HEARTBEAT_MS = 1_000;

function watchCatalogue(deps: StreamDeps, open: OpenStreams): EngineHandlers["WatchCatalogue"] {
  return guarded(deps, (call: Stream<WatchCatalogueRequest__Output, CatalogueUpdate>) => {
    let quiet = true;
    const update = (message: CatalogueUpdate): void => {
      quiet = false;
      send(call, message);
    };
    const stopPrices = deps.prices.onUpdate((symbols) => {
      const tickers = movedTickers(deps, symbols);
      if (tickers.length > 0) update({ whole: false, tickers });
    });
    const stopCalendar = deps.calendar.onReplace((events) => {
      update({ whole: false, calendar: calendarMessage(events) });
    });
    const heartbeat = setInterval(() => {
      if (quiet) send(call, { whole: false });
      quiet = true;
    }, CATALOGUE_HEARTBEAT_MS);
    heartbeat.unref();
    open.hold(call, () => {
      clearInterval(heartbeat);
      stopPrices();
      stopCalendar();
    });
    const nowMs = deps.now();
    update({
      whole: true,
      tickers: deps.catalogue.rows.map((spec) => tickerMessage(spec, deps.prices, nowMs)),
      plans: deps.plans.rows.map(planMessage),
      calendar: calendarMessage(deps.calendar.events()),
    });
  });
}

/** The server-streaming methods (not served on the session stream). */
export type StreamMethod = "WatchAccount" | "WatchTickers" | "WatchCatalogue";

export function streamHandlers(deps: StreamDeps, open: OpenStreams): Pick<EngineHandlers, StreamMethod> {
  return {
    WatchAccount: watchAccount(deps, open),
    WatchTickers: watchTickers(deps, open),
    WatchCatalogue: watchCatalogue(deps, open),
  };
}
