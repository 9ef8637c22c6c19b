import { describe, expect, it } from "vitest";
import { Harness, PLAN, usd } from "../core.testing.js";
import {
  accountRecord,
  accountSummary,
  LIST_LIMIT_DEFAULT,
  openPositions,
  parseListQuery,
  positionHistory,
  trades,
  workingOrders,
  type ListQuery,
} from "./queries.js";

const iso = (text: string): number => Date.parse(text);

/** 10K account long 0.01 BTC at 100000.0 on GMX, marked at 101000.0. */
function marked(): Harness {
  const h = new Harness().open(PLAN.c10k);
  h.quote("BTC-USD", "100000");
  h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
  h.quote("BTC-USD", "101000");
  return h;
}

const all: ListQuery = { from: null, to: null, limit: 1000 };

describe("the account record", () => {
  it("carries exactly the contract's fields, in numbers", () => {
    const h = marked();
    const record = accountRecord(h.account, h.market);
    expect(Object.keys(record).sort()).toEqual(
      [
        "account_id",
        "plan_id",
        "label",
        "state",
        "default_venue",
        "allowed_venues",
        "balance",
        "equity",
        "starting_balance",
        "high_water_mark",
        "day_start_equity",
        "risk",
        "created_at",
        "terminated_at",
      ].sort(),
    );
    expect(record).toMatchObject({
      plan_id: PLAN.c10k,
      state: "ACTIVE",
      default_venue: "GMX",
      allowed_venues: ["GMX", "OSTIUM"],
      balance: 9999.4,
      equity: 10009.4,
      starting_balance: 10000,
      high_water_mark: 10000,
      day_start_equity: 10000,
      risk: { max_drawdown_pct: 10, daily_loss_pct: 5, max_leverage: { crypto: 2 }, max_total_notional: 50000 },
      created_at: "2026-11-25T12:00:00.000Z",
      terminated_at: null,
    });
  });
});

describe("the summary", () => {
  it("values margin, unrealized P&L and today's realized P&L at the marks", () => {
    const h = marked();
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "99000" });
    expect(accountSummary(h.account, h.market, h.now)).toEqual({
      account_id: h.account.account_id,
      state: "ACTIVE",
      balance: 9999.4,
      equity: 10009.4,
      margin_locked: 500,
      // equity − locked − 495 reserved by the resting limit
      margin_available: 9014.4,
      unrealized_pnl: 10,
      realized_pnl_today: -0.6,
      as_of: "2026-11-25T12:00:00.000Z",
    });
  });

  it("counts realized P&L minus fees of fills since 00:00 UTC only", () => {
    const h = new Harness(iso("2026-11-24T23:59:00.000Z")).open(PLAN.c10k);
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.02" });
    h.now = iso("2026-11-25T00:00:00.000Z");
    expect(accountSummary(h.account, h.market, h.now).realized_pnl_today).toBe(0);
    h.quote("BTC-USD", "101000");
    h.placed({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.01" });
    // +10 realized − 0.606 fee
    expect(accountSummary(h.account, h.market, h.now).realized_pnl_today).toBe(9.394);
  });

  it("counts today's funding too: the figure the daily loss rule judges (docs/risk.md)", () => {
    const h = new Harness(iso("2026-11-24T16:00:00.000Z")).open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { index: "99000" });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" });
    // The long pays 0.01% of 10,000 = 1 per tick: once yesterday, twice today.
    h.funding({ cryptoPpm: 100, rolloverPpm: 0 });
    h.now = iso("2026-11-25T00:00:00.000Z");
    h.funding({ cryptoPpm: 100, rolloverPpm: 0 });
    h.now = iso("2026-11-25T08:00:00.000Z");
    h.funding({ cryptoPpm: 100, rolloverPpm: 0 });
    const summary = accountSummary(h.account, h.market, h.now);
    expect(summary.realized_pnl_today).toBe(-2);
    // Flat at an unchanged mark, the day's loss is exactly what the summary shows as realized today.
    h.close({ symbol: "BTC-USD" });
    const after = accountSummary(h.account, h.market, h.now);
    expect(after.realized_pnl_today).toBe(-2 - 6);
    expect(h.account.day_start_equity - h.account.balance).toBe(usd("8"));
  });
});

describe("open positions", () => {
  it("list the seed's fields plus id, opening time, margin and liquidation price", () => {
    const h = marked();
    const position = [...h.account.positions.values()][0];
    expect(openPositions(h.account, h.market)).toEqual({
      data: [
        {
          position_id: position?.position_id,
          symbol: "BTC-USD",
          side: "BUY",
          quantity: 0.01,
          entry_price: 100000,
          mark_price: 101000,
          unrealized_pnl: 10,
          leverage: 2,
          venue: "GMX",
          opened_at: "2026-11-25T12:00:00.000Z",
          margin: 500,
          liquidation_price: 50000,
        },
      ],
    });
  });
});

describe("working orders", () => {
  it("list NEW, PARTIALLY_FILLED and HELD orders only", () => {
    const h = marked();
    const parent = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "99000",
    }).order;
    const child = h.placed({
      symbol: "BTC-USD",
      side: "SELL",
      kind: "STOP",
      quantity: "0.01",
      trigger_price: "98000",
      parent_order_id: parent.order_id,
    }).order;
    const canceled = h.placed({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "98000",
    }).order;
    h.cancel(canceled.order_id);
    expect(workingOrders(h.account, h.market).data.map((o) => [o.order_id, o.status])).toEqual([
      [parent.order_id, "NEW"],
      [child.order_id, "HELD"],
    ]);
  });
});

describe("list queries", () => {
  it.each<[Record<string, unknown>, ListQuery]>([
    [{}, { from: null, to: null, limit: LIST_LIMIT_DEFAULT, after_id: null }],
    [{ limit: "10" }, { from: null, to: null, limit: 10, after_id: null }],
    [{ limit: 5000 }, { from: null, to: null, limit: 1000, after_id: null }],
    [
      { from: "2026-11-25T00:00:00Z", to: "2026-11-25T01:00:00.000+01:00" },
      { from: iso("2026-11-25T00:00:00Z"), to: iso("2026-11-25T00:00:00Z"), limit: 100, after_id: null },
    ],
    [
      { from: "2026-11-25T12:00:00.000Z", after_id: "0A0A0A0A-0000-4000-8000-00000000000F" },
      { from: iso("2026-11-25T12:00:00.000Z"), to: null, limit: 100, after_id: "0a0a0a0a-0000-4000-8000-00000000000f" },
    ],
  ])("read %j", (input, query) => {
    expect(parseListQuery(input)).toEqual({ ok: true, query });
  });

  it.each<[Record<string, unknown>, string[]]>([
    [{ limit: "0" }, ["limit"]],
    [{ limit: "ten" }, ["limit"]],
    [{ limit: 2.5 }, ["limit"]],
    [{ from: "yesterday" }, ["from"]],
    [{ to: "2026-11-25" }, ["to"]],
    [{ from: "2026-11-26T00:00:00Z", to: "2026-11-25T00:00:00Z" }, ["from"]],
    [{ after_id: "0a0a0a0a-0000-4000-8000-00000000000f" }, ["after_id"]],
    [{ after_id: "0a0a0a0a-0000-4000-8000-00000000000f", to: "2026-11-25T00:00:00Z" }, ["after_id"]],
    [{ from: "2026-11-25T00:00:00Z", after_id: "fill-1" }, ["after_id"]],
    [{ from: "2026-11-25T00:00:00Z", after_id: "" }, ["after_id"]],
  ])("refuse %j", (input, paths) => {
    const result = parseListQuery(input);
    expect(result.ok ? [] : result.issues.map((issue) => issue.path)).toEqual(paths);
  });
});

describe("trades and position history", () => {
  /** Fills at 12:00 (two levels), 12:01 and 12:02; the 12:01 ids run backwards to test tie order. */
  function session(): Harness {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { depth: 10 });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.002" });
    h.now += 60_000;
    let id = 0xfff;
    h.nextId = () => `00000000-0000-4000-8000-${(id--).toString(16).padStart(12, "0")}`;
    h.price("BTC-USD", "100000", { depth: 10 });
    h.placed({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.002" });
    h.now += 60_000;
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.001" });
    return h;
  }

  it("list trades oldest first, ties by id, with inclusive bounds", () => {
    const h = session();
    const page = trades(h.account, h.market, all);
    expect(page.has_more).toBe(false);
    expect(page.data.map((f) => f.executed_at)).toEqual([
      "2026-11-25T12:00:00.000Z",
      "2026-11-25T12:00:00.000Z",
      "2026-11-25T12:01:00.000Z",
      "2026-11-25T12:01:00.000Z",
      "2026-11-25T12:02:00.000Z",
    ]);
    const minute = page.data.filter((f) => f.executed_at === "2026-11-25T12:01:00.000Z").map((f) => f.fill_id);
    expect(minute).toEqual([...minute].sort());
    expect(
      h.account.fills.filter((f) => f.executed_at === iso("2026-11-25T12:01:00.000Z")).map((f) => f.fill_id),
    ).toEqual([...minute].reverse());
    const bounded = trades(h.account, h.market, {
      from: iso("2026-11-25T12:01:00.000Z"),
      to: iso("2026-11-25T12:02:00.000Z"),
      limit: 100,
    });
    expect(bounded.data).toHaveLength(3);
  });

  it("page with limit and has_more", () => {
    const h = session();
    const first = trades(h.account, h.market, { ...all, limit: 3 });
    expect(first.has_more).toBe(true);
    expect(first.data).toHaveLength(3);
    expect(first.data[2]?.executed_at).toBe("2026-11-25T12:01:00.000Z");
    expect(trades(h.account, h.market, { ...all, limit: 5 }).has_more).toBe(false);
    const ties = trades(h.account, h.market, { ...all, limit: 3 }).data.map((f) => f.fill_id);
    expect(ties[2]).toBe(trades(h.account, h.market, all).data[2]?.fill_id);
  });

  it("list closed positions with the contract's fields", () => {
    const h = session();
    const history = positionHistory(h.account, h.market, all);
    expect(history.has_more).toBe(false);
    expect(history.data).toHaveLength(1);
    const row = history.data[0];
    expect(row && Object.keys(row).sort()).toEqual(
      [
        "position_id",
        "symbol",
        "side",
        "quantity",
        "entry_price",
        "exit_price",
        "realized_pnl",
        "fees",
        "funding",
        "leverage",
        "venue",
        "opened_at",
        "closed_at",
        "r_multiple",
      ].sort(),
    );
    // Entered 0.001 at 100000.0 and 0.001 at 100000.1; left at 100000.0 and 99999.9.
    expect(row).toMatchObject({
      side: "BUY",
      quantity: 0.002,
      entry_price: 100000.05,
      exit_price: 99999.95,
      realized_pnl: -0.0002,
      funding: 0,
      leverage: 2,
      closed_at: "2026-11-25T12:01:00.000Z",
    });
    // No stop-loss was placed: R is the realized P&L (before fees and funding) over 1% of the starting balance
    // (docs/risk.md, "Analytics"): −0.0002 / 100 is 0 at 4 decimals, where the net P&L
    // (fees included) would have made it negative.
    if (row === undefined) throw new Error("no row");
    const oneR = (h.account.starting_balance / 1e8) * 0.01;
    // Exactly 0 (never −0: the ratio is rounded from the integers, halves away from zero).
    expect(row.r_multiple).toBe(0);
    expect(Object.is(row.r_multiple, -0)).toBe(false);
    expect(row.realized_pnl / oneR).toBeLessThan(0);
    expect(Math.round(((row.realized_pnl - row.fees) / oneR) * 10_000)).toBeLessThan(0);
    expect(positionHistory(h.account, h.market, { ...all, from: iso("2026-11-25T12:01:00.001Z") }).data).toEqual([]);
  });
});

/**
 * The loop docs/openapi.yaml gives clients: ask with `limit`; while `has_more`, ask again with `from` = the last
 * row's time and `after_id` = its id. Returns every row collected, in order.
 */
function drain<T>(
  list: (query: ListQuery) => { data: T[]; has_more: boolean },
  cursorOf: (row: T) => { from: string; after_id: string },
  limit: number,
): T[] {
  const rows: T[] = [];
  let input: Record<string, unknown> = { limit };
  for (let round = 0; round < 50; round++) {
    const parsed = parseListQuery(input);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    const page = list(parsed.query);
    rows.push(...page.data);
    const last = page.data.at(-1);
    if (!page.has_more) return rows;
    if (last === undefined) throw new Error("has_more with an empty page");
    input = { limit, ...cursorOf(last) };
  }
  throw new Error("the loop did not end");
}

describe("paging past rows that share a time (after_id)", () => {
  /** Fills at 12:00 (two levels), three at 12:01 from one price update (ids running backwards), one at 12:02. */
  function ties(): Harness {
    const h = new Harness().open(PLAN.c10k);
    h.quote("BTC-USD", "100000", { depth: 10 });
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.002" });
    h.now += 60_000;
    let id = 0xfff;
    h.nextId = () => `00000000-0000-4000-8000-${(id--).toString(16).padStart(12, "0")}`;
    for (const limit of ["99000", "99000", "99000"]) {
      h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: limit });
    }
    // Below the limits: the three take one level of the book each, none above 99,000.
    h.price("BTC-USD", "98990", { depth: 10 });
    h.now += 60_000;
    h.placed({ symbol: "BTC-USD", side: "SELL", kind: "MARKET", quantity: "0.001" });
    return h;
  }
  const fillCursor = (f: { executed_at: string; fill_id: string }) => ({ from: f.executed_at, after_id: f.fill_id });

  it("has three fills at one time, stored out of id order", () => {
    const h = ties();
    const minute = iso("2026-11-25T12:01:00.000Z");
    const stored = h.account.fills.filter((f) => f.executed_at === minute).map((f) => f.fill_id);
    expect(stored).toHaveLength(3);
    expect(stored).toEqual([...stored].sort().reverse());
  });

  it.each([1, 2, 3])("reaches every fill exactly once, in order, with limit %i", (limit) => {
    const h = ties();
    const everything = trades(h.account, h.market, all).data;
    expect(everything).toHaveLength(6);
    const drained = drain((q) => trades(h.account, h.market, q), fillCursor, limit);
    expect(drained.map((f) => f.fill_id)).toEqual(everything.map((f) => f.fill_id));
  });

  it("starts strictly after (from, after_id): higher ids at that time, then every later time", () => {
    const h = ties();
    const everything = trades(h.account, h.market, all).data;
    const at = everything[2];
    if (at === undefined) throw new Error("no fill");
    expect(at.executed_at).toBe("2026-11-25T12:01:00.000Z");
    const after = trades(h.account, h.market, {
      from: iso(at.executed_at),
      to: null,
      limit: 100,
      after_id: at.fill_id,
    });
    expect(after).toEqual({ data: everything.slice(3), has_more: false });
    const one = trades(h.account, h.market, { from: iso(at.executed_at), to: null, limit: 1, after_id: at.fill_id });
    expect(one).toEqual({ data: everything.slice(3, 4), has_more: true });
    // A cursor between stored ids (an id no row has) is a position in (time, id) order all the same.
    const between = trades(h.account, h.market, {
      from: iso(at.executed_at),
      to: null,
      limit: 100,
      after_id: "00000000-0000-4000-8000-000000000000",
    });
    expect(between.data).toEqual(everything.slice(2));
    // The cursor and `to` together: only the rows of the cursor's time.
    const bounded = trades(h.account, h.market, {
      from: iso(at.executed_at),
      to: iso(at.executed_at),
      limit: 100,
      after_id: at.fill_id,
    });
    expect(bounded).toEqual({ data: everything.slice(3, 5), has_more: false });
  });

  it("pages closed positions that closed at one time by position_id", () => {
    const h = new Harness().open(PLAN.c10k);
    const legs = [
      ["BTC-USD", "100000", "0.001"],
      ["ETH-USD", "2500", "0.01"],
      ["SOL-USD", "100", "0.1"],
    ] as const;
    for (const [symbol, mark, quantity] of legs) {
      h.quote(symbol, mark, { depth: 10 });
      h.placed({ symbol, side: "BUY", kind: "MARKET", quantity });
    }
    h.now += 60_000;
    // Closed in the reverse of the order they opened in: the history holds them out of id order.
    for (const [symbol] of [...legs].reverse()) h.close({ symbol });
    const everything = positionHistory(h.account, h.market, all).data;
    expect(everything).toHaveLength(3);
    expect(new Set(everything.map((p) => p.closed_at)).size).toBe(1);
    const ids = everything.map((p) => p.position_id);
    expect(ids).toEqual([...ids].sort());
    expect(h.account.closed_positions.map((p) => p.position_id)).toEqual([...ids].reverse());
    for (const limit of [1, 2]) {
      const drained = drain(
        (q) => positionHistory(h.account, h.market, q),
        (p) => ({ from: p.closed_at, after_id: p.position_id }),
        limit,
      );
      expect(
        drained.map((p) => p.position_id),
        `limit ${limit}`,
      ).toEqual(ids);
    }
  });
});
