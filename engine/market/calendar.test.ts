import { describe, expect, it } from "vitest";
import { CATALOGUE } from "./catalogue.js";
import { BIDI_MESSAGE } from "../../kernel/text.js";
import {
  NewsCalendar,
  affects,
  parseCalendar,
  parseCalendarFilter,
  shippedCalendar,
  type NewsEvent,
} from "./calendar.js";

const spec = (symbol: string) => {
  const found = CATALOGUE.byKey(symbol);
  if (found === undefined) throw new Error(symbol);
  return found;
};

function parsed(inputs: Parameters<typeof parseCalendar>[0]): NewsEvent[] {
  const result = parseCalendar(inputs, CATALOGUE);
  if ("issues" in result) throw new Error(JSON.stringify(result.issues));
  return result.ok;
}

describe("news calendar", () => {
  it("ships a valid calendar in time order", () => {
    const events = shippedCalendar(CATALOGUE);
    expect(events.length).toBeGreaterThan(10);
    const times = events.map((e) => e.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it("reports every bad event with its path", () => {
    const result = parseCalendar(
      [
        { id: "", title: "t", scheduled_at: "2027-01-01T00:00:00Z", symbols: ["BTC-USD"], asset_classes: [] },
        { id: "x", title: "t", scheduled_at: "tomorrow", symbols: ["NOPE"], asset_classes: ["bonds"] },
        { id: "x", title: "t", scheduled_at: "2027-01-01T00:00:00Z", symbols: [], asset_classes: [] },
      ],
      CATALOGUE,
    );
    expect("issues" in result && result.issues.map((i) => i.path)).toEqual([
      "events.0.id",
      "events.1.scheduled_at",
      "events.1.symbols.0",
      "events.1.asset_classes.0",
      "events.2.id",
      "events.2",
    ]);
  });

  it("refuses C1 controls and bidirectional formatting characters in an event's id or title, naming each", () => {
    const at = "2027-01-01T00:00:00Z";
    const result = parseCalendar(
      [
        { id: "fomc\u202e", title: "t", scheduled_at: at, symbols: ["BTC-USD"], asset_classes: [] },
        { id: "cpi", title: "CPI \u0085print", scheduled_at: at, symbols: ["BTC-USD"], asset_classes: [] },
        { id: "nfp", title: "\u2067NFP\u2069", scheduled_at: at, symbols: ["BTC-USD"], asset_classes: [] },
      ],
      CATALOGUE,
    );
    expect("issues" in result && result.issues).toEqual([
      { path: "events.0.id", message: BIDI_MESSAGE },
      { path: "events.1.title", message: "must not contain control characters" },
      {
        path: "events.2.title",
        message: BIDI_MESSAGE,
      },
    ]);
  });

  it("an event concerns a ticker named in it or of an asset class named in it", () => {
    const [byName, byClass] = parsed([
      { id: "a", title: "t", scheduled_at: "2027-01-01T00:00:00Z", symbols: ["eurusd"], asset_classes: [] },
      { id: "b", title: "t", scheduled_at: "2027-01-01T00:00:00Z", symbols: [], asset_classes: ["crypto"] },
    ]);
    if (byName === undefined || byClass === undefined) throw new Error("two events expected");
    expect(affects(byName, spec("EUR-USD"))).toBe(true);
    expect(affects(byName, spec("GBP-USD"))).toBe(false);
    expect(affects(byClass, spec("BTC-USD"))).toBe(true);
    expect(affects(byClass, spec("EUR-USD"))).toBe(false);
  });

  it("selects by inclusive bounds and by symbol", () => {
    const calendar = new NewsCalendar(
      parsed([
        { id: "1", title: "t", scheduled_at: "2027-01-01T00:00:00Z", symbols: ["BTC-USD"], asset_classes: [] },
        { id: "2", title: "t", scheduled_at: "2027-01-02T00:00:00Z", symbols: [], asset_classes: ["forex"] },
        { id: "3", title: "t", scheduled_at: "2027-01-03T00:00:00Z", symbols: ["ETH-USD"], asset_classes: [] },
      ]),
    );
    const ids = (filter: Parameters<NewsCalendar["select"]>[0]) => calendar.select(filter).map((e) => e.id);
    expect(ids({})).toEqual(["1", "2", "3"]);
    expect(ids({ from: Date.parse("2027-01-02T00:00:00Z") })).toEqual(["2", "3"]);
    expect(ids({ to: Date.parse("2027-01-02T00:00:00Z") })).toEqual(["1", "2"]);
    expect(ids({ from: Date.parse("2027-01-02T00:00:00.001Z") })).toEqual(["3"]);
    expect(ids({ spec: spec("EUR-USD") })).toEqual(["2"]);
    expect(ids({ spec: spec("SOL-USD") })).toEqual([]);
    calendar.replace([]);
    expect(ids({})).toEqual([]);
  });
});

describe("GetCalendar's filter", () => {
  it("reads optional ISO bounds and a symbol of the catalogue (normalised); empty fields are no filter", () => {
    expect(parseCalendarFilter({ from: "", to: "", symbol: "" }, CATALOGUE)).toEqual({ ok: {} });
    expect(
      parseCalendarFilter(
        { from: "2026-11-27T00:00:00Z", to: "2026-11-28T00:00:00+01:00", symbol: "eurusd" },
        CATALOGUE,
      ),
    ).toEqual({
      ok: {
        from: Date.parse("2026-11-27T00:00:00Z"),
        to: Date.parse("2026-11-27T23:00:00Z"),
        spec: spec("EUR-USD"),
      },
    });
  });

  it("reports every bad field with its path", () => {
    expect(parseCalendarFilter({ from: "2026-11-27", to: "soon", symbol: "NOPE" }, CATALOGUE)).toEqual({
      issues: [
        { path: "from", message: "must be an ISO 8601 date-time with a time zone" },
        { path: "to", message: "must be an ISO 8601 date-time with a time zone" },
        { path: "symbol", message: "unknown symbol" },
      ],
    });
    expect(
      parseCalendarFilter({ from: "2026-11-28T00:00:00Z", to: "2026-11-27T00:00:00Z", symbol: "" }, CATALOGUE),
    ).toEqual({ issues: [{ path: "from", message: "must not be after to" }] });
  });
});
