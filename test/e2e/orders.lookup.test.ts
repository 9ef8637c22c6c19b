// Order lookup and history end to end (docs/openapi.yaml: GET /v1/order/{order_id}, GET
// /v1/account/{account_id}/orders/history, GET /v1/account/{account_id}/orders?client_id=; docs/engine.md "The
// order archive"), on each database backend with prices pushed over market.v1. The engine keeps only 3 final
// orders per account in memory here (ENGINE_FINAL_ORDERS_KEPT), so most final orders of a test have left the
// actor's memory (cancelling them is 404) and are read from the order archive.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { eventually } from "../harness/eventually.js";
import { marketClient, type Market } from "../harness/market.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
const KEPT = 3;
const SOME_ID = "00000000-0000-4000-8000-000000000000";

type Row = Record<string, unknown>;

const orderOf = (response: JsonResponse): Row => response.body.order as Row;
const idOf = (response: JsonResponse): string => String(orderOf(response).order_id);
const dataOf = (response: JsonResponse): Row[] => response.body.data as Row[];

/** Orders that change nothing on the account: each is REJECTED at once (a post-only buy above the mark). */
const REFUSED = { symbol: "SOL-USD", side: "BUY", kind: "LIMIT", quantity: 1, limit_price: 110, post_only: true };
/** A buy limit resting below the mark: NEW. */
const RESTING = { symbol: "SOL-USD", side: "BUY", kind: "LIMIT", quantity: 1, limit_price: 90 };

describe.each(BACKENDS)("order lookup and history end to end on %s", (backend) => {
  let stack: TestStack;
  let market: Market;
  let base: string;
  let trader: CreatedKey;
  let stranger: CreatedKey;

  const get = (path: string, key: CreatedKey = trader): Promise<JsonResponse> => v1(base, path, key);
  const post = (path: string, body: unknown): Promise<JsonResponse> =>
    v1(base, path, trader, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const cancel = (orderId: string): Promise<JsonResponse> =>
    v1(base, `/v1/order/${orderId}`, trader, { method: "DELETE" });
  const openAccount = async (): Promise<string> => {
    const created = await post("/v1/account", { plan_id: PLAN_10K });
    expect(created.status).toBe(201);
    return String(created.body.account_id);
  };
  const place = async (accountId: string, body: Row): Promise<JsonResponse> => {
    const placed = await post("/v1/order", { account_id: accountId, ...body });
    expect([200, 201]).toContain(placed.status);
    return placed;
  };
  const lookup = async (orderId: string): Promise<Row> => {
    const found = await get(`/v1/order/${orderId}`);
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    return orderOf(found);
  };
  /** Enough final orders after it that the actor has forgotten `orderId`: cancelling it is then 404. */
  const pushOutOfMemory = async (accountId: string, orderId: string): Promise<void> => {
    for (let i = 0; i < KEPT; i++) await place(accountId, REFUSED);
    expect((await cancel(orderId)).status).toBe(404);
  };
  /** The whole history through the cursor, `limit` at a time. */
  const history = async (accountId: string, limit: number): Promise<Row[]> => {
    const rows: Row[] = [];
    let query = `limit=${limit}`;
    for (;;) {
      const page = await get(`/v1/account/${accountId}/orders/history?${query}`);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      const data = dataOf(page);
      expect(data.length).toBeLessThanOrEqual(limit);
      rows.push(...data);
      if (page.body.has_more !== true) return rows;
      const last = data[data.length - 1] as Row;
      query = new URLSearchParams({
        limit: String(limit),
        from: String(last.created_at),
        after_id: String(last.order_id),
      }).toString();
    }
  };

  beforeAll(async () => {
    stack = await stackOn(backend, {
      env: { PRICE_FEED: "push" },
      engineEnv: { ENGINE_FINAL_ORDERS_KEPT: String(KEPT) },
      gatewayEnv: { RATE_LIMIT_MAX: "100000" },
    });
    market = marketClient(stack.engineGrpc);
    base = stack.gateways[0]?.v1 ?? "";
    const api = stack.gateways[0]?.api ?? "";
    trader = await newKey(api, "lookup-trader", {
      label: "algo",
      permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
    });
    stranger = await newKey(api, "lookup-stranger", { label: "nosy", permissions: ["READ_ONLY", "TRADE"] });
    await market.push({ "SOL-USD": 100 });
  });
  afterAll(async () => {
    market?.close();
    await stack?.stop();
  });

  it("looks an order up in every state, the same record as its answers, in memory and once forgotten", async () => {
    const account = await openAccount();
    const parent = await place(account, RESTING);
    const held = await place(account, {
      symbol: "SOL-USD",
      side: "SELL",
      kind: "STOP",
      quantity: 1,
      trigger_price: 80,
      parent_order_id: idOf(parent),
    });
    const filled = await place(account, { symbol: "SOL-USD", side: "BUY", kind: "MARKET", quantity: 1 });
    const rejected = await place(account, REFUSED);
    const toCancel = await place(account, RESTING);
    const canceled = await cancel(idOf(toCancel));
    expect(canceled.status).toBe(200);
    const gtd = await place(account, {
      ...RESTING,
      time_in_force: "GTD",
      expire_at: new Date(Date.now() + 1500).toISOString(),
    });
    await eventually(async () => (await lookup(idOf(gtd))).status === "EXPIRED", "the GTD order to expire");
    const expired = await lookup(idOf(gtd));

    const expected: [string, Row, string][] = [
      [idOf(parent), orderOf(parent), "NEW"],
      [idOf(held), orderOf(held), "HELD"],
      [idOf(filled), orderOf(filled), "FILLED"],
      [idOf(rejected), orderOf(rejected), "REJECTED"],
      [idOf(toCancel), orderOf(canceled), "CANCELED"],
    ];
    for (const [id, answered, status] of expected) {
      expect(answered.status).toBe(status);
      expect(await lookup(id)).toEqual(answered);
    }
    expect(expired).toMatchObject({ order_id: idOf(gtd), status: "EXPIRED", time_in_force: "GTD" });

    // The final ones leave the actor's memory; the lookup answers them unchanged from the archive.
    await pushOutOfMemory(account, idOf(gtd));
    for (const [id, answered] of expected.slice(2)) {
      expect((await cancel(id)).status, id).toBe(404);
      expect(await lookup(id)).toEqual(answered);
    }
    expect(await lookup(idOf(gtd))).toEqual(expired);
    // Working orders are never forgotten.
    expect((await lookup(idOf(parent))).status).toBe("NEW");
    expect((await lookup(idOf(held))).status).toBe("HELD");
  });

  it("never loses an order while lookups race the placements that push it out of memory", async () => {
    const account = await openAccount();
    const targets: JsonResponse[] = [];
    for (let round = 0; round < 8; round++) {
      targets.push(await place(account, { ...REFUSED, client_id: `race-${round}` }));
      // Placements that make the actor forget the targets, with lookups of every target in flight meanwhile.
      const reads = await Promise.all([
        ...Array.from({ length: KEPT + 1 }, () => place(account, REFUSED)),
        ...targets.flatMap((target) => [
          get(`/v1/order/${idOf(target)}`),
          get(`/v1/account/${account}/orders?client_id=race-${targets.indexOf(target)}`),
        ]),
        get(`/v1/account/${account}/orders/history?limit=1000`),
      ]);
      for (const reply of reads.slice(KEPT + 1)) expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      for (const [i, target] of targets.entries()) {
        expect(orderOf(reads[KEPT + 1 + 2 * i] as JsonResponse)).toEqual(orderOf(target));
        expect(dataOf(reads[KEPT + 2 + 2 * i] as JsonResponse)).toEqual([orderOf(target)]);
      }
      const history = dataOf(reads[reads.length - 1] as JsonResponse).map((o) => o.order_id);
      for (const target of targets) expect(history).toContain(idOf(target));
      expect(new Set(history).size).toBe(history.length);
    }
  });

  it("answers 404 for another user's order exactly as for an unknown or malformed id, in memory or archived", async () => {
    const account = await openAccount();
    const working = idOf(await place(account, RESTING));
    const archived = idOf(await place(account, REFUSED));
    await pushOutOfMemory(account, archived);
    const unknown = await get(`/v1/order/${SOME_ID}`);
    expect(unknown.status).toBe(404);
    for (const id of [working, archived, working.toUpperCase()]) {
      const refused = await get(`/v1/order/${id}`, stranger);
      expect(refused.status).toBe(404);
      expect(refused.body).toEqual(unknown.body);
    }
    const malformed = await get("/v1/order/not-an-id");
    expect(malformed.status).toBe(404);
    expect(malformed.body).toEqual(unknown.body);
    expect((await lookup(working.toUpperCase())).order_id).toBe(working);
  });

  it("lists every order oldest first across many more than the actor keeps, each exactly once per page size", async () => {
    const account = await openAccount();
    const placed: string[] = [];
    placed.push(idOf(await place(account, RESTING)));
    for (let i = 0; i < 4 * KEPT; i++) placed.push(idOf(await place(account, i % 3 === 0 ? RESTING : REFUSED)));
    placed.push(idOf(await place(account, { symbol: "SOL-USD", side: "BUY", kind: "MARKET", quantity: 1 })));
    const first = placed[0] as string;
    expect((await cancel(first)).status).toBe(200);
    for (const limit of [1, 4, 100]) {
      const rows = await history(account, limit);
      expect(
        rows.map((o) => o.order_id),
        `limit ${limit}`,
      ).toEqual(placed);
    }
    const rows = await history(account, 100);
    expect(rows[0]).toMatchObject({ order_id: first, status: "CANCELED" });
    expect(rows.filter((o) => o.status === "NEW")).toHaveLength(4);
    expect(rows.filter((o) => o.status === "REJECTED")).toHaveLength(8);
    expect(rows[rows.length - 1]).toMatchObject({ status: "FILLED" });
    for (const row of rows) expect(await lookup(String(row.order_id))).toEqual(row);

    // Bounds are inclusive; the created_at of one order selects it.
    const middle = rows[5] as Row;
    const only = await get(
      `/v1/account/${account}/orders/history?from=${String(middle.created_at)}&to=${String(middle.created_at)}`,
    );
    expect(dataOf(only).map((o) => o.order_id)).toContain(middle.order_id);
  });

  it("refuses bad history bounds with 400 and another user's account with 404", async () => {
    const account = await openAccount();
    for (const query of [
      "limit=0",
      "from=yesterday",
      `after_id=${SOME_ID}`,
      "cursor=1",
      "from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z",
    ]) {
      const refused = await get(`/v1/account/${account}/orders/history?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error).toBe("invalid_payload");
    }
    const other = await get(`/v1/account/${account}/orders/history`, stranger);
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ error: "not_found" });
  });

  it("finds the order of a client_id in any state, forgotten ones included, and refuses bad queries", async () => {
    const account = await openAccount();
    const working = await place(account, { ...RESTING, client_id: "lookup-working" });
    const rejected = await place(account, { ...REFUSED, client_id: "lookup-rejected" });
    const byClientId = async (clientId: string, key: CreatedKey = trader): Promise<JsonResponse> =>
      get(`/v1/account/${account}/orders?client_id=${encodeURIComponent(clientId)}`, key);

    expect((await byClientId("lookup-working")).body).toEqual({ data: [orderOf(working)] });
    expect((await byClientId("lookup-rejected")).body).toEqual({ data: [orderOf(rejected)] });
    await pushOutOfMemory(account, idOf(rejected));
    expect((await byClientId("lookup-rejected")).body).toEqual({ data: [orderOf(rejected)] });
    expect((await byClientId("never-used")).body).toEqual({ data: [] });

    // Without the parameter: the working orders only, as before.
    expect(dataOf(await get(`/v1/account/${account}/orders`)).map((o) => o.order_id)).toEqual([idOf(working)]);

    for (const bad of ["", "x".repeat(65), "tab\there"]) {
      const refused = await byClientId(bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.body).toMatchObject({ error: "invalid_payload", issues: [{ path: "client_id" }] });
    }
    const twice = await get(`/v1/account/${account}/orders?client_id=a&client_id=b`);
    expect(twice.status).toBe(400);
    expect((await get(`/v1/account/${account}/orders?symbol=SOL-USD`)).status).toBe(400);
    const other = await byClientId("lookup-working", stranger);
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ error: "not_found" });
  });
});
