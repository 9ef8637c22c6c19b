// A restart is invisible in the books (docs/engine.md, "Restarts"; docs/risk.md, "Funding"), on PostgreSQL and on
// the embedded database: the engine runs its simulator and a short funding interval, holds a BTC position, and is
// killed with SIGKILL right after a simulated move; it stays down across a funding boundary and starts again on the
// same data (with a simulator that does not step again, so the marks after the start are the kept ones). Every
// mark is the last one before the kill, the position's value and the balance are unchanged but for funding, and
// every boundary since the position opened, the one passed while down included, is paid exactly once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";

const PLAN_200K = "15ef9280-770d-4664-9de7-93fcd7677a98";
const FUNDING_INTERVAL_MS = 20_000;
/** Funding per interval on crypto, ppm of the notional (the default). */
const CRYPTO_PPM = 100;

type Row = Record<string, unknown>;
const dataOf = (response: JsonResponse): Row[] => response.body.data as Row[];
/** Money as integer units of 1e-8 USD, so sums are exact. */
const units = (value: unknown): number => Math.round(Number(value) * 1e8);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Funding boundaries in (from, to]. */
const boundariesIn = (from: number, to: number): number =>
  Math.floor(to / FUNDING_INTERVAL_MS) - Math.floor(from / FUNDING_INTERVAL_MS);

describe.each(BACKENDS)("a kill -9 and a start on the same data (%s)", (backend) => {
  let stack: TestStack;
  let key: CreatedKey;
  let account = "";
  const get = async (path: string): Promise<JsonResponse> => {
    const response = await v1(stack.gateways[0]?.v1 ?? "", path, key);
    expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBe(200);
    return response;
  };
  const marks = async (): Promise<Map<string, string>> => {
    const tickers = dataOf(await get("/v1/tickers"));
    return new Map(tickers.map((t) => [String(t.symbol), `${String(t.mark_price)}/${String(t.index_price)}`]));
  };

  beforeAll(async () => {
    stack = await stackOn(backend, {
      env: { PRICE_FEED: "simulator", SIMULATOR_INTERVAL_MS: "1000", FUNDING_INTERVAL_MS: String(FUNDING_INTERVAL_MS) },
    });
    key = await newKey(stack.gateways[0]?.api ?? "", `restart-${backend}`, {
      label: "restart",
      permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
    });
    const created = await v1(stack.gateways[0]?.v1 ?? "", "/v1/account", key, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ plan_id: PLAN_200K, label: "restart" }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    account = String(created.body.account_id);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("keeps every mark, values the position as before and pays each funding boundary once", async () => {
    const placed = await v1(stack.gateways[0]?.v1 ?? "", "/v1/order", key, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ account_id: account, symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.05" }),
    });
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    const openedAt = Date.parse(String((placed.body.order as Row).created_at));

    // Right after a simulated move (the next one is a second away): what the books show, then the kill.
    const seen = await marks();
    for (let now = await marks(); ; now = await marks()) {
      if (now.get("BTC-USD") !== seen.get("BTC-USD")) break;
      await sleep(10);
    }
    const before = await marks();
    const positionBefore = dataOf(await get(`/v1/account/${account}/positions`))[0] as Row;
    const accountBefore = (await get(`/v1/account/${account}`)).body;
    const paidBefore = dataOf(await get(`/v1/account/${account}/funding`));
    await stack.killEngine(0, "SIGKILL");
    const killedAt = Date.now();

    // Down across a funding boundary, then a start on the same data whose simulator does not step again.
    await sleep(FUNDING_INTERVAL_MS - (killedAt % FUNDING_INTERVAL_MS) + 500);
    await stack.restartEngine({ env: { SIMULATOR_INTERVAL_MS: "3600000" } });

    expect(await marks()).toEqual(before);
    const positionAfter = dataOf(await get(`/v1/account/${account}/positions`))[0] as Row;
    expect(positionAfter.mark_price).toBe(positionBefore.mark_price);
    expect(positionAfter.unrealized_pnl).toBe(positionBefore.unrealized_pnl);

    // Every boundary since the position opened is paid once: those the running engine paid, and the one (or
    // more) passed while it was down, paid after the start at the prices it starts with.
    let paid: Row[] = [];
    const deadline = Date.now() + 60_000;
    for (;;) {
      const readAt = Date.now();
      paid = dataOf(await get(`/v1/account/${account}/funding`));
      const due = boundariesIn(openedAt, readAt);
      if (paid.length === due && boundariesIn(readAt, Date.now()) === 0) break;
      expect(paid.length, "no boundary is paid twice").toBeLessThanOrEqual(boundariesIn(openedAt, Date.now()));
      if (Date.now() > deadline) throw new Error(`${paid.length} payments, ${due} boundaries`);
      await sleep(200);
    }
    const afterStart = paid.slice(paidBefore.length);
    expect(afterStart.length).toBeGreaterThanOrEqual(1);
    const [mark, index] = (before.get("BTC-USD") ?? "").split("/").map(Number) as [number, number];
    const notional = (units(mark) * 5) / 100; // 0.05 BTC, exact in units
    const expected = mark === index ? 0 : Math.round((notional * CRYPTO_PPM) / 1e6) * (mark > index ? -1 : 1);
    for (const payment of afterStart) expect(units(payment.amount)).toBe(expected);

    // The balance moved by the funding paid since, and by nothing else.
    const accountAfter = (await get(`/v1/account/${account}`)).body;
    const fundedSince = afterStart.reduce((sum, payment) => sum + units(payment.amount), 0);
    expect(units(accountAfter.balance)).toBe(units(accountBefore.balance) + fundedSince);
    expect(units(accountAfter.equity)).toBe(units(accountBefore.equity) + fundedSince);
  });
});
