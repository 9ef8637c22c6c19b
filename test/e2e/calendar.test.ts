// The news calendar's life cycle: shipped by default, replaced through market.v1 SetCalendar (validated as a
// whole: a bad calendar changes nothing), and the last one set survives an engine crash. GET /v1/calendar is
// answered from the gateway's copy (docs/engine.md, "Catalogue reads"): after a replacement the test reads until
// the copy holds what the engine serves.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calendarEventJson } from "../../gateway/v1/records.js";
import { call, outgoingMetadata } from "../../kernel/grpc.js";
import type { Calendar__Output } from "../../proto/gen/engine/v1/Calendar.js";
import type { EngineClient } from "../../proto/gen/engine/v1/Engine.js";
import type { GetCalendarRequest } from "../../proto/gen/engine/v1/GetCalendarRequest.js";
import type { TestStack } from "../harness/backends.js";
import { v1, type CreatedKey } from "../harness/client.js";
import { eventually } from "../harness/eventually.js";
import type { Market } from "../harness/market.js";
import { pushStack, type PushStack } from "../harness/push-stack.js";

interface Row {
  id: string;
  title: string;
  scheduled_at: string;
  symbols: string[];
  asset_classes: string[];
}

describe("news calendar", () => {
  let pushed: PushStack;
  let stack: TestStack;
  let market: Market;
  let engine: EngineClient;
  let key: CreatedKey;
  let base: string;

  const calendar = async (query = ""): Promise<Row[]> => {
    const reply = await v1(base, `/v1/calendar${query}`, key);
    expect(reply.status).toBe(200);
    return reply.body.data as Row[];
  };
  /** Resolves once GET /v1/calendar answers what the engine's GetCalendar does (through the gateway's JSON). */
  const settled = async (): Promise<void> => {
    const request = { from: "", to: "", symbol: "" };
    await eventually(async () => {
      const served = await call<GetCalendarRequest, Calendar__Output>(
        engine.GetCalendar.bind(engine),
        request,
        outgoingMetadata(undefined, undefined),
      );
      return JSON.stringify(await calendar()) === JSON.stringify(served.events.map(calendarEventJson));
    }, "the gateway's calendar is the engine's");
  };

  beforeAll(async () => {
    pushed = await pushStack("postgres", "u-calendar");
    ({ stack, base, key, market, engine } = pushed);
  });
  afterAll(async () => {
    await pushed.stop();
  });

  it("serves the shipped calendar until one is set", async () => {
    const rows = await calendar();
    expect(rows.map((r) => r.title)).toContain("FOMC rate decision");
    expect(rows.map((r) => r.title)).toContain("US Non-Farm Payrolls");
  });

  it("replaces the calendar as a whole, normalising symbols, and keeps it across a crash", async () => {
    await market.setCalendar([
      { id: "b", title: "CPI", scheduled_at: "2027-01-13T13:30:00Z", symbols: [], asset_classes: ["forex"] },
      { id: "a", title: "Gold", scheduled_at: "2027-01-13T08:30:00+05:00", symbols: ["xauusd"], asset_classes: [] },
    ]);
    const expected: Row[] = [
      { id: "a", title: "Gold", scheduled_at: "2027-01-13T03:30:00.000Z", symbols: ["XAU-USD"], asset_classes: [] },
      { id: "b", title: "CPI", scheduled_at: "2027-01-13T13:30:00.000Z", symbols: [], asset_classes: ["forex"] },
    ];
    await settled();
    expect(await calendar()).toEqual(expected);
    expect(await calendar("?symbol=EUR-USD")).toEqual([expected[1]]);

    // A calendar with one bad event is refused whole; the current one stays.
    await expect(
      market.setCalendar([
        { id: "c", title: "ok", scheduled_at: "2027-02-01T00:00:00Z", symbols: ["BTC-USD"], asset_classes: [] },
        { id: "d", title: "bad", scheduled_at: "2027-02-01T00:00:00Z", symbols: ["NOPE-USD"], asset_classes: [] },
      ]),
    ).rejects.toThrow(/symbols/);
    expect(await calendar()).toEqual(expected);

    await stack.restartEngine();
    expect(await calendar()).toEqual(expected);
  });

  it("refuses control characters in an event's title or id with 400 (not 500), changing nothing", async () => {
    const before = await calendar();
    for (const event of [
      { id: "n", title: "a\u0000b", scheduled_at: "2027-03-01T00:00:00Z", symbols: ["BTC-USD"], asset_classes: [] },
      { id: "n\n", title: "ok", scheduled_at: "2027-03-01T00:00:00Z", symbols: ["BTC-USD"], asset_classes: [] },
    ]) {
      await expect(market.setCalendar([event])).rejects.toMatchObject({ code: 3 });
    }
    expect(await calendar()).toEqual(before);
  });

  it("keeps the served and the stored calendar the same under concurrent replacements", async () => {
    const one = (n: number) => [
      {
        id: `r-${String(n)}`,
        title: `Event ${String(n)}`,
        scheduled_at: "2027-04-01T00:00:00Z",
        symbols: ["BTC-USD"],
        asset_classes: [],
      },
    ];
    for (let round = 0; round < 3; round++) {
      await Promise.all(Array.from({ length: 12 }, (_, n) => market.setCalendar(one(round * 100 + n))));
      await settled();
      const served = await calendar();
      await stack.restartEngine();
      expect(await calendar(), `round ${String(round)}`).toEqual(served);
    }
  });
});
