// The order lookups (docs/engine.md, "The order archive"): the actor answers the orders it holds in memory, hands
// each order it forgets to the archive as its record, and the engine merges the two pages of the history. Driven
// through the actor core as a shard drives it (decide, apply, forget with the archive), with a small retention,
// and the archive kept in a list that pages like engine/store/order-archive.ts (its SQL is tested on PostgreSQL
// in engine/store/order-archive.test.ts).
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { OrderRecord } from "./basics/order-records.js";
import type { AccountState, EngineEvent, Reply } from "./core.js";
import type { MarketView } from "./market/book.js";
import { beforeInHistory, mergeHistory } from "./server-order-lookups.js";
import type { ArchivedRecord } from "./shard/core-contract.js";
import { createCore, type AccountQuery } from "./trading-core.js";

const core = createCore();

const PLAN_ID = "15ef9280-770d-4664-9de7-93fcd7677a98";
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);

/** A BUY LIMIT resting below the mark of 50,000: NEW. */
const RESTING = { side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "40000" };
/** A post-only BUY LIMIT above the mark: REJECTED (post_only_would_take). */
const REFUSED = { side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "60000", post_only: true };
/** A BUY MARKET: FILLED at once. */
const MARKET = { side: "BUY", kind: "MARKET", quantity: "0.001" };

class Account {
  readonly id = randomUUID();
  readonly market: MarketView | undefined = core.updateMarket?.(
    undefined,
    { prices: [{ symbol: "BTC-USD", mark: 500_000, index: 500_000, skew: 0 }] },
    NOW,
  );
  state: AccountState | undefined;
  /** What the shard journals into the order archive, in the order it is forgotten. */
  readonly archive: ArchivedRecord[] = [];

  constructor() {
    const decision = core.decide(
      undefined,
      {
        userId: "u-1",
        command: { type: "OpenAccount", request: { account_id: this.id, user_id: "u-1", plan_id: PLAN_ID } },
      },
      { now: NOW, market: this.market, nextId: randomUUID },
    );
    this.run(decision.events);
  }

  run(events: readonly EngineEvent[]): void {
    for (const event of events) this.state = core.apply(this.state, event);
    if (this.state !== undefined) core.forget?.(this.state, (record) => this.archive.push(record));
  }

  decide(command: unknown, now: number): Reply {
    const decision = core.decide(
      this.state,
      { userId: "u-1", command: command as never },
      {
        now,
        market: this.market,
        nextId: randomUUID,
      },
    );
    this.run(decision.events);
    return decision.reply;
  }

  place(request: Record<string, unknown>, now = NOW): string {
    const reply = this.decide(
      { type: "PlaceOrder", request: { account_id: this.id, symbol: "BTC-USD", ...request } },
      now,
    );
    if (!("order" in reply)) throw new Error(`no order in ${JSON.stringify(reply)}`);
    return reply.order.order_id;
  }

  cancel(orderId: string, now = NOW): void {
    this.decide({ type: "CancelOrder", request: { order_id: orderId } }, now);
  }

  query(query: AccountQuery, userId = "u-1"): unknown {
    return core.query(this.state, { userId, query }, { now: NOW, market: this.market });
  }

  /** One page of the archive, as engine/store/order-archive.ts reads it (bounds, cursor, order, limit). */
  archivePage(from: number | null, afterId: string | null, limit: number): OrderRecord[] {
    return this.archive
      .filter(
        (r) => from === null || r.createdAt > from || (r.createdAt === from && (afterId === null || r.id > afterId)),
      )
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map((r) => JSON.parse(r.data) as OrderRecord);
  }

  /** The history page the engine answers: the actor's page merged with the archive's. */
  history(limit: number, from: string | null = null, afterId: string | null = null) {
    const memory = this.query({
      type: "orderHistory",
      from: from ?? "",
      to: "",
      limit,
      after_id: afterId ?? "",
    }) as { data: OrderRecord[] };
    const archived = this.archivePage(from === null ? null : Date.parse(from), afterId, limit + 1);
    return mergeHistory(memory.data, archived, limit);
  }

  /** Every order through the history, page after page with the cursor. */
  allHistory(limit: number): OrderRecord[] {
    const all: OrderRecord[] = [];
    let page = this.history(limit);
    all.push(...page.data);
    while (page.has_more) {
      const last = page.data[page.data.length - 1] as OrderRecord;
      page = this.history(limit, last.created_at, last.order_id);
      all.push(...page.data);
    }
    return all;
  }
}

afterEach(() => {
  core.configure?.({});
});

describe("the actor's order lookups", () => {
  it("answers an order it holds in any state, and not_found for another user or an id it does not hold", () => {
    const account = new Account();
    const working = account.place(RESTING);
    const rejected = account.place(REFUSED);
    const filled = account.place(MARKET);
    const canceled = account.place(RESTING);
    account.cancel(canceled);
    const expired = account.place({ ...RESTING, time_in_force: "GTD", expire_at: new Date(NOW + 1000).toISOString() });
    // The next decision after its expire_at ends it.
    account.place(REFUSED, NOW + 2000);
    const statusOf = (id: string) => (account.query({ type: "order", order_id: id }) as OrderRecord).status;
    expect(statusOf(working)).toBe("NEW");
    expect(statusOf(rejected)).toBe("REJECTED");
    expect(statusOf(filled)).toBe("FILLED");
    expect(statusOf(canceled)).toBe("CANCELED");
    expect(statusOf(expired)).toBe("EXPIRED");
    expect(() => account.query({ type: "order", order_id: working }, "u-2")).toThrow("not_found");
    expect(() => account.query({ type: "order", order_id: randomUUID() })).toThrow("not_found");
  });

  it("hands each forgotten order to the archive as the record it last answered", () => {
    core.configure?.({ finalOrdersKept: 2 });
    const account = new Account();
    const first = account.place(REFUSED, NOW + 1);
    const before = account.query({ type: "order", order_id: first });
    account.place(REFUSED, NOW + 2);
    expect(account.archive).toEqual([]);
    account.place(REFUSED, NOW + 3);
    expect(account.archive.map((r) => r.id)).toEqual([first]);
    expect(() => account.query({ type: "order", order_id: first })).toThrow("not_found");
    const archived = account.archive[0] as ArchivedRecord;
    expect(JSON.parse(archived.data)).toEqual(before);
    expect(archived).toMatchObject({ createdAt: NOW + 1, clientId: null });
  });

  it("lists every order across the forgotten ones, oldest first, each exactly once through the cursor", () => {
    core.configure?.({ finalOrdersKept: 3 });
    const account = new Account();
    const ids: string[] = [];
    // Three orders per instant: ties in created_at are ordered by order_id and split across pages.
    for (let i = 0; i < 12; i++) {
      const at = NOW + Math.floor(i / 3) * 1000;
      ids.push(account.place(i % 4 === 0 ? RESTING : REFUSED, at));
    }
    expect(account.archive.length).toBeGreaterThan(4);
    const expected = account.archive
      .map((r) => JSON.parse(r.data) as OrderRecord)
      .concat(
        (
          account.query({ type: "orderHistory", from: "", to: "", limit: 1000, after_id: "" }) as {
            data: OrderRecord[];
          }
        ).data,
      )
      .sort((a, b) => (beforeInHistory(a, b) ? -1 : 1));
    expect(expected.map((o) => o.order_id).sort()).toEqual([...ids].sort());
    for (const limit of [1, 2, 3, 5, 12, 100]) {
      expect(
        account.allHistory(limit).map((o) => o.order_id),
        `limit ${limit}`,
      ).toEqual(expected.map((o) => o.order_id));
    }
    const page = account.history(12);
    expect(page.has_more).toBe(false);
    expect(account.history(11).has_more).toBe(true);
    expect(page.data.filter((o) => o.status === "NEW")).toHaveLength(3);
  });

  it("merges an order forgotten between the two reads once", () => {
    const record = (id: string, at: number) =>
      ({ order_id: id, created_at: new Date(at).toISOString() }) as OrderRecord;
    const a = record("00000000-0000-4000-8000-00000000000a", NOW);
    const b = record("00000000-0000-4000-8000-00000000000b", NOW);
    const c = record("00000000-0000-4000-8000-00000000000c", NOW + 1);
    expect(mergeHistory([a, b], [b, c], 2)).toEqual({ data: [a, b], has_more: true });
    expect(mergeHistory([a, b], [b, c], 3)).toEqual({ data: [a, b, c], has_more: false });
    expect(mergeHistory([], [a], 1)).toEqual({ data: [a], has_more: false });
  });

  it("finds the newest order of a client_id in memory, and none for an unused one", () => {
    core.configure?.({ clientIdWindowMs: 1000 });
    const account = new Account();
    const old = account.place({ ...RESTING, client_id: "bot-1" }, NOW);
    // Past the replay window (its record forgotten after the next decision) the same client_id places a new order.
    account.place(REFUSED, NOW + 5000);
    const renewed = account.place({ ...RESTING, client_id: "bot-1" }, NOW + 6000);
    expect(renewed).not.toBe(old);
    const found = account.query({ type: "clientOrder", client_id: "bot-1" }) as { data: OrderRecord | null };
    expect(found.data?.order_id).toBe(renewed);
    expect(account.query({ type: "clientOrder", client_id: "bot-2" })).toEqual({ data: null });
    expect(() => account.query({ type: "clientOrder", client_id: "bot-1" }, "u-2")).toThrow("not_found");
  });

  it("refuses bad history bounds with invalid_payload", () => {
    const account = new Account();
    expect(() => account.query({ type: "orderHistory", from: "", to: "", limit: 0, after_id: randomUUID() })).toThrow(
      "after_id",
    );
    expect(() => account.query({ type: "orderHistory", from: "soon", to: "", limit: 0, after_id: "" })).toThrow("from");
  });
});
