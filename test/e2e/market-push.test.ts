// market.v1 PushPrices refusals (proto/market/v1/market.proto: "applied in order, on every shard, before it
// returns"): a push is one market update, so a symbol named twice in it is refused rather than decided at its last
// price only, and a price no symbol could trade at (beyond the engine's exact integer range once multiplied by a
// position) is refused. The gateway serves GET /v1/tickers, /v1/plans and /v1/calendar from its copy of the
// engine's (docs/engine.md, "Catalogue reads"): a push shows there, and once the copy is primed those reads ask
// the engine nothing, answering exactly what the engine's calls answer through the same JSON.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calendarEventJson, planJson, tickerJson } from "../../gateway/v1/records.js";
import { call, outgoingMetadata } from "../../kernel/grpc.js";
import type { Calendar__Output } from "../../proto/gen/engine/v1/Calendar.js";
import type { EngineClient } from "../../proto/gen/engine/v1/Engine.js";
import type { GetCalendarRequest } from "../../proto/gen/engine/v1/GetCalendarRequest.js";
import type { ListPlansResponse__Output } from "../../proto/gen/engine/v1/ListPlansResponse.js";
import type { ListTickersResponse__Output } from "../../proto/gen/engine/v1/ListTickersResponse.js";
import type { TestStack } from "../harness/backends.js";
import { v1, type CreatedKey } from "../harness/client.js";
import { eventually } from "../harness/eventually.js";
import type { Market } from "../harness/market.js";
import { pushStack, type PushStack } from "../harness/push-stack.js";

const CATALOGUE_CALLS = ["ListTickers", "ListPlans", "GetCalendar"];

/** The engine's count of catalogue calls (either path: unary or session frame), from its /metrics. */
async function catalogueCalls(admin: string): Promise<number> {
  const page = await (await fetch(`${admin}/metrics`)).text();
  let sum = 0;
  for (const line of page.split("\n")) {
    const match = /^grpc_server_handling_seconds_count\{(.*)\} (\S+)$/.exec(line);
    const method = /grpc_method="(\w+)"/.exec(match?.[1] ?? "")?.[1];
    if (method !== undefined && CATALOGUE_CALLS.includes(method)) sum += Number(match?.[2]);
  }
  return sum;
}

// One stack serves both parts: the refusals, then the gateway's copy.
let pushed: PushStack;
let stack: TestStack;
let market: Market;
let engine: EngineClient;
let key: CreatedKey;
let base: string;

beforeAll(async () => {
  pushed = await pushStack("pglite", "u-push");
  ({ stack, base, key, market, engine } = pushed);
});
afterAll(async () => {
  await pushed.stop();
});

describe("market.v1 PushPrices", () => {
  const markOf = async (symbol: string): Promise<unknown> => {
    const reply = await v1(base, "/v1/tickers", key);
    const rows = reply.body.data as { symbol: string; mark_price?: number }[];
    return rows.find((r) => r.symbol === symbol)?.mark_price;
  };

  beforeAll(async () => {
    await market.push({ "BTC-USD": 50_000 });
    await eventually(async () => (await markOf("BTC-USD")) === 50_000, "the pushed price on GET /v1/tickers");
  });

  it("refuses a symbol named twice in one push (INVALID_ARGUMENT), applying nothing", async () => {
    await expect(
      market.pushList([
        { symbol: "BTC-USD", mark_price: 44_000, index_price: 44_000 },
        { symbol: "btcusd", mark_price: 50_100, index_price: 50_100 },
      ]),
    ).rejects.toMatchObject({ code: 3, details: expect.stringContaining("prices.1.symbol") as unknown });
    expect(await markOf("BTC-USD")).toBe(50_000);
  });

  it("refuses a price above 1,000 times the ticker's reference price, and takes one just below it", async () => {
    await expect(market.push({ "BTC-USD": 9e14 })).rejects.toMatchObject({ code: 3 });
    expect(await markOf("BTC-USD")).toBe(50_000);
    await market.push({ "BTC-USD": 60_000 });
    // The gateway's copy shows a push once the engine's stream carried it there (docs/engine.md, "Catalogue reads").
    await eventually(async () => (await markOf("BTC-USD")) === 60_000, "the pushed price on GET /v1/tickers");
  });
});

describe("GET /v1/tickers, /v1/plans and /v1/calendar from the gateway's copy", () => {
  const get = async (path: string) => {
    const reply = await v1(base, path, key);
    return { status: reply.status, text: JSON.stringify(reply.body) };
  };
  const reads = ["/v1/tickers", "/v1/plans", "/v1/calendar", "/v1/calendar?symbol=eurusd&from=2027-01-01T00:00:00Z"];

  it("shows a pushed price and calendar, and once primed asks the engine nothing, answering as the engine does", async () => {
    await market.push({ "ETH-USD": 3_210 });
    await eventually(async () => (await get("/v1/tickers")).text.includes('"mark_price":3210'), "the pushed price");
    const events = [
      { id: "cpi", title: "CPI", scheduled_at: "2027-01-13T13:30:00Z", symbols: [], asset_classes: ["forex"] },
      { id: "eth", title: "Upgrade", scheduled_at: "2027-02-01T00:00:00Z", symbols: ["eth-usd"], asset_classes: [] },
    ];
    await market.setCalendar(events);
    await eventually(async () => (await get("/v1/calendar")).text.includes('"id":"eth"'), "the calendar set");

    // Primed: a round of reads leaves the engine's count of catalogue calls where it was.
    await eventually(async () => {
      const before = await catalogueCalls(stack.engineAdmin);
      for (const path of reads) await get(path);
      return (await catalogueCalls(stack.engineAdmin)) === before;
    }, "the catalogue reads served by the gateway");
    const before = await catalogueCalls(stack.engineAdmin);
    const served = [];
    for (let round = 0; round < 10; round++) for (const path of reads) served.push(await get(path));
    const refused = await get("/v1/calendar?from=2027-02-01T00:00:00Z&to=2027-01-01T00:00:00Z&symbol=NOPE");
    expect(await catalogueCalls(stack.engineAdmin)).toBe(before);

    // The engine's answers through the gateway's JSON: the same text.
    const md = outgoingMetadata(undefined, undefined);
    const tickers = await call<object, ListTickersResponse__Output>(engine.ListTickers.bind(engine), {}, md);
    const plans = await call<object, ListPlansResponse__Output>(engine.ListPlans.bind(engine), {}, md);
    const calendar = (request: GetCalendarRequest) =>
      call<GetCalendarRequest, Calendar__Output>(engine.GetCalendar.bind(engine), request, md);
    const all = await calendar({ from: "", to: "", symbol: "" });
    const eur = await calendar({ from: "2027-01-01T00:00:00Z", to: "", symbol: "eurusd" });
    const expected = [
      { data: tickers.data.map(tickerJson) },
      { data: plans.data.map(planJson) },
      { data: all.events.map(calendarEventJson) },
      { data: eur.events.map(calendarEventJson) },
    ].map((body) => ({ status: 200, text: JSON.stringify(body) }));
    expect(served.slice(-4)).toEqual(expected);
    expect(eur.events.map((e) => e.id)).toEqual(["cpi"]);
    expect(refused).toEqual({
      status: 400,
      text: JSON.stringify({
        error: "invalid_payload",
        issues: [
          { path: "from", message: "must not be after to" },
          { path: "symbol", message: "unknown symbol" },
        ],
      }),
    });
  });
});
