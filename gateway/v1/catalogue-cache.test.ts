// The gateway's catalogue copy on fake engine streams: nothing is served before the whole reply, each later reply
// updates it, a silence past STALE_MS and a broken stream send reads to the engine, a reopened stream (on the next
// engine) serves again once whole; the calendar filter answers and refuses as GetCalendar does.
import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../kernel/log.js";
import type { CalendarEvent__Output } from "../../proto/gen/engine/v1/CalendarEvent.js";
import type { CatalogueUpdate__Output } from "../../proto/gen/engine/v1/CatalogueUpdate.js";
import type { Plan__Output } from "../../proto/gen/engine/v1/Plan.js";
import type { Ticker__Output } from "../../proto/gen/engine/v1/Ticker.js";
import { CatalogueCache, STALE_MS, type OpenCatalogue } from "./catalogue-cache.js";

class FakeCall extends EventEmitter {
  cancelled = false;
  cancel(): void {
    this.cancelled = true;
  }
  send(update: Partial<CatalogueUpdate__Output>): void {
    this.emit("data", { whole: false, tickers: [], plans: [], calendar: null, ...update });
  }
}

/** A Saturday noon (UTC): crypto trades, forex does not. */
const SATURDAY = Date.parse("2026-11-28T12:00:00.000Z");
/** The Monday after, noon: both trade. */
const MONDAY = Date.parse("2026-11-30T12:00:00.000Z");

const ticker = (symbol: string, assetClass: string, mark?: number): Ticker__Output => ({
  symbol,
  base: symbol.split("-")[0] ?? "",
  quote: "USD",
  asset_class: assetClass,
  venues: ["OSTIUM"],
  max_leverage: 10,
  tick_size: 0.01,
  quantity_step: 0.001,
  min_quantity: 0.001,
  ...(mark === undefined ? {} : { mark_price: mark, index_price: mark }),
  market_open: false,
});

const PLAN = { plan_id: "p1", name: "One" } as Plan__Output;

const event = (id: string, at: string, symbols: string[], classes: string[]): CalendarEvent__Output => ({
  id,
  title: id,
  scheduled_at: at,
  symbols,
  asset_classes: classes,
});

const CALENDAR = {
  events: [
    event("nfp", "2026-12-04T13:30:00.000Z", [], ["forex"]),
    event("btc", "2026-12-05T00:00:00.000Z", ["BTC-USD"], []),
  ],
};

const WHOLE: Partial<CatalogueUpdate__Output> = {
  whole: true,
  tickers: [ticker("BTC-USD", "crypto", 50_000), ticker("EUR-USD", "forex", 1.1)],
  plans: [PLAN],
  calendar: CALENDAR,
};

function cache() {
  let now = SATURDAY;
  const calls: { attempt: number; call: FakeCall }[] = [];
  const open = ((attempt: number) => {
    const call = new FakeCall();
    calls.push({ attempt, call });
    return call;
  }) as unknown as OpenCatalogue;
  const subject = new CatalogueCache(open, createLogger("test", "silent"), () => now);
  subject.start();
  return {
    subject,
    calls,
    call: (i = calls.length - 1): FakeCall => {
      const found = calls[i]?.call;
      if (found === undefined) throw new Error(`no call ${i}`);
      return found;
    },
    advance: (ms: number) => {
      now += ms;
    },
    at: (ms: number) => {
      now = ms;
    },
  };
}

const marks = (subject: CatalogueCache) => subject.listTickers()?.data.map((t) => [t.symbol, t.mark_price]);
const ALL = { from: "", to: "", symbol: "" };

describe("CatalogueCache", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers nothing until the whole reply, then the engine's messages with market_open as of the read", () => {
    const { subject, call, at } = cache();
    expect(subject.listTickers()).toBeUndefined();
    expect(subject.listPlans()).toBeUndefined();
    expect(subject.getCalendar(ALL)).toBeUndefined();
    call().send({ tickers: [ticker("BTC-USD", "crypto", 1)] });
    expect(subject.listTickers()).toBeUndefined();

    call().send(WHOLE);
    expect(subject.listTickers()?.data).toEqual([
      { ...ticker("BTC-USD", "crypto", 50_000), market_open: true },
      { ...ticker("EUR-USD", "forex", 1.1), market_open: false },
    ]);
    expect(subject.listPlans()).toEqual({ data: [PLAN] });
    expect(subject.getCalendar(ALL)).toEqual(CALENDAR);
    at(MONDAY);
    call().send({});
    expect(subject.listTickers()?.data.map((t) => t.market_open)).toEqual([true, true]);
  });

  it("applies each changed ticker in its place and each replaced calendar; a heartbeat changes nothing", () => {
    const { subject, call } = cache();
    call().send(WHOLE);
    call().send({ tickers: [ticker("EUR-USD", "forex", 1.2)] });
    call().send({});
    expect(marks(subject)).toEqual([
      ["BTC-USD", 50_000],
      ["EUR-USD", 1.2],
    ]);
    const replaced = { events: [event("cpi", "2027-01-13T13:30:00.000Z", [], ["forex"])] };
    call().send({ calendar: replaced });
    expect(subject.getCalendar(ALL)).toEqual(replaced);
    expect(subject.listPlans()).toEqual({ data: [PLAN] });
  });

  it("filters the calendar by bounds and symbol (any spelling) and refuses bad filters as GetCalendar does", () => {
    const { subject, call } = cache();
    call().send(WHOLE);
    const ids = (query: Partial<typeof ALL>) => subject.getCalendar({ ...ALL, ...query })?.events.map((e) => e.id);
    expect(ids({ symbol: "eurusd" })).toEqual(["nfp"]);
    expect(ids({ symbol: "BTC/USD" })).toEqual(["btc"]);
    expect(ids({ from: "2026-12-04T13:30:00Z", to: "2026-12-04T23:00:00+01:00" })).toEqual(["nfp"]);
    expect(() => subject.getCalendar({ from: "2026-12-05", to: "soon", symbol: "NOPE" })).toThrow(
      expect.objectContaining({
        code: "invalid_payload",
        fields: {
          issues: [
            { path: "from", message: "must be an ISO 8601 date-time with a time zone" },
            { path: "to", message: "must be an ISO 8601 date-time with a time zone" },
            { path: "symbol", message: "unknown symbol" },
          ],
        },
      }),
    );
  });

  it("sends reads to the engine after STALE_MS without a reply, and serves again on the next reply", () => {
    const { subject, call, advance } = cache();
    call().send(WHOLE);
    advance(STALE_MS);
    expect(subject.listTickers()).toBeDefined();
    advance(1);
    expect(subject.listTickers()).toBeUndefined();
    expect(subject.listPlans()).toBeUndefined();
    expect(subject.getCalendar(ALL)).toBeUndefined();
    call().send({});
    expect(subject.listPlans()).toEqual({ data: [PLAN] });
  });

  it("sends reads to the engine once the stream breaks, reopens on the next engine and serves once whole", () => {
    vi.useFakeTimers();
    const { subject, calls, call } = cache();
    call().send(WHOLE);
    call().emit("error", Object.assign(new Error("gone"), { code: 14, details: "gone" }));
    expect(subject.listTickers()).toBeUndefined();
    expect(calls).toHaveLength(1);
    vi.advanceTimersByTime(250);
    expect(calls.map((c) => c.attempt)).toEqual([0, 1]);
    call(0).send(WHOLE);
    expect(subject.listTickers()).toBeUndefined();
    call(1).send({ ...WHOLE, tickers: [ticker("BTC-USD", "crypto", 51_000)] });
    expect(marks(subject)).toEqual([["BTC-USD", 51_000]]);
    call(1).emit("end");
    expect(subject.listTickers()).toBeUndefined();
    subject.close();
    vi.advanceTimersByTime(60_000);
    expect(calls).toHaveLength(2);
  });

  it("close cancels the stream and never reopens it", () => {
    vi.useFakeTimers();
    const { subject, calls, call } = cache();
    call().send(WHOLE);
    subject.close();
    expect(call().cancelled).toBe(true);
    expect(subject.listPlans()).toBeUndefined();
    call().emit("error", Object.assign(new Error("cancelled"), { code: 1, details: "cancelled" }));
    vi.advanceTimersByTime(60_000);
    expect(calls).toHaveLength(1);
  });
});
