// The catalogue routes over a fake engine and a fake copy: a current copy answers with no engine call, and a
// copy that cannot answer (undefined) sends the read to the engine, with the same JSON either way.
import type { Request, RequestHandler, Response } from "express";
import { describe, expect, it, vi } from "vitest";
import type { Clients } from "../clients.js";
import type { CatalogueReads } from "./catalogue-cache.js";
import { getCalendar, listPlans, listTickers } from "./catalogue.js";

const TICKERS = { data: [{ symbol: "BTC-USD", base: "BTC", quote: "USD", asset_class: "crypto", market_open: true }] };
const PLANS = { data: [{ plan_id: "p1", name: "One" }] };
const CALENDAR = { events: [{ id: "e", title: "CPI", scheduled_at: "2027-01-13T13:30:00.000Z" }] };

function clients(copy: CatalogueReads | undefined) {
  const engine = {
    listTickers: vi.fn(() => Promise.resolve(TICKERS)),
    listPlans: vi.fn(() => Promise.resolve(PLANS)),
    getCalendar: vi.fn(() => Promise.resolve(CALENDAR)),
  };
  return { engine, clients: { engine, ...(copy === undefined ? {} : { catalogue: copy }) } as unknown as Clients };
}

async function answer(handler: RequestHandler, query: Record<string, string> = {}): Promise<unknown> {
  let body: unknown;
  const res = {
    locals: {},
    status: () => res,
    json: (json: unknown) => {
      body = json;
      return res;
    },
  };
  await handler({ query } as unknown as Request, res as unknown as Response, () => undefined);
  return body;
}

const ROUTES = [
  ["tickers", listTickers, "listTickers"],
  ["plans", listPlans, "listPlans"],
  ["calendar", getCalendar, "getCalendar"],
] as const;

describe("the catalogue routes", () => {
  it.each(ROUTES)("%s: a current copy answers and the engine is not called", async (_name, route, method) => {
    const calendarReads = vi.fn(() => CALENDAR);
    const copy = {
      listTickers: () => TICKERS,
      listPlans: () => PLANS,
      getCalendar: calendarReads,
    } as unknown as CatalogueReads;
    const { engine, clients: withCopy } = clients(copy);
    const { clients: without } = clients(undefined);
    const query: Record<string, string> = method === "getCalendar" ? { symbol: "btcusd" } : {};
    expect(await answer(route(withCopy), query)).toEqual(await answer(route(without), query));
    expect(engine[method]).not.toHaveBeenCalled();
    if (method === "getCalendar") expect(calendarReads).toHaveBeenCalledWith({ from: "", to: "", symbol: "btcusd" });
  });

  it.each(ROUTES)("%s: a copy that cannot answer sends the read to the engine", async (_name, route, method) => {
    const copy = { listTickers: () => undefined, listPlans: () => undefined, getCalendar: () => undefined };
    const { engine, clients: withCopy } = clients(copy);
    await answer(route(withCopy));
    expect(engine[method]).toHaveBeenCalledTimes(1);
  });
});
