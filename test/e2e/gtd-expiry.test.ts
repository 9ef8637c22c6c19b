// GTD orders expire on time with nobody touching the account (docs/engine.md "Execution", GTD): prices are
// pushed over market.v1 (PRICE_FEED=push) once, before the order, and never again; only reads (which decide
// nothing) reach the account afterwards. The shard's clock must expire the order, journal it and send the
// `order.cancel` webhook (status EXPIRED, reason gtd), never before `expire_at`. (How soon after it is a
// figure of the shard's timer, documented in docs/engine.md, not something a test on a busy machine can hold.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";
import { makeTestCa, startReceiver, type Envelope, type Receiver, type TestCa } from "../harness/receiver.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
/**
 * The test gives up (the order is still NEW) this long after `expire_at`: far beyond the documented second,
 * so only an expiry that never comes fails it. Without the shard's clock nothing expires the order at all.
 */
const GIVE_UP_MS = 20_000;
/** How far ahead the GTD order expires: room for the first reads to see it working. */
const EXPIRES_IN_MS = 3_000;

type Row = Record<string, unknown>;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const dataOf = (response: JsonResponse): Row[] => response.body.data as Row[];

describe("GTD expiry with no traffic on the account", () => {
  let ca: TestCa;
  let receiver: Receiver;
  let stack: TestStack;
  let market: Market;
  let base: string;
  let trader: CreatedKey;

  const post = (path: string, body: unknown): Promise<JsonResponse> =>
    v1(base, path, trader, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const get = (path: string): Promise<JsonResponse> => v1(base, path, trader);

  beforeAll(async () => {
    ca = makeTestCa();
    receiver = await startReceiver(ca);
    stack = await stackOn("postgres", {
      env: { PRICE_FEED: "push", WEBHOOK_ALLOW_PRIVATE: "true" },
      engineEnv: { WEBHOOK_CA_FILE: ca.caFile, WEBHOOK_POLL_MS: "50" },
    });
    market = marketClient(stack.engineGrpc);
    base = stack.gateways[0]?.v1 ?? "";
    trader = await newKey(stack.gateways[0]?.api ?? "", "gtd-trader", {
      label: "algo",
      permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
      webhookUrl: `${receiver.origin}/gtd`,
    });
    if (trader.webhookSecret === undefined) throw new Error("no webhookSecret");
    receiver.secrets.set("/gtd", trader.webhookSecret);
  });
  afterAll(async () => {
    market?.close();
    await stack?.stop();
    await receiver?.close();
    ca?.remove();
  });

  it("expires a resting GTD order after its expire_at with no traffic, journals it and sends order.cancel (gtd)", async () => {
    await market.push({ "ETH-USD": 3_000 });
    const created = await post("/v1/account", { plan_id: PLAN_10K });
    expect(created.status).toBe(201);
    const account = String(created.body.account_id);
    const resting = { symbol: "ETH-USD", side: "BUY", kind: "LIMIT", quantity: "0.1", limit_price: "2500" };
    // A GTC order beside it: the clock expires what is due, nothing else.
    const gtc = await post("/v1/order", { account_id: account, ...resting });
    expect(gtc.status).toBe(201);
    const gtcId = String((gtc.body.order as Row).order_id);
    const expireAt = Date.now() + EXPIRES_IN_MS;
    const gtd = await post("/v1/order", {
      account_id: account,
      ...resting,
      time_in_force: "GTD",
      expire_at: new Date(expireAt).toISOString(),
    });
    expect(gtd.status).toBe(201);
    const gtdOrder = gtd.body.order as Row;
    expect(gtdOrder).toMatchObject({ status: "NEW", time_in_force: "GTD" });
    const gtdId = String(gtdOrder.order_id);

    // Reads only from here on (queries decide nothing), no price: only the engine's clock can expire it.
    let goneAt: number | undefined;
    let seenBefore = false;
    while (goneAt === undefined) {
      const listed = await get(`/v1/account/${account}/orders`);
      expect(listed.status).toBe(200);
      const at = Date.now();
      const byId = new Map(dataOf(listed).map((o) => [String(o.order_id), o]));
      expect(byId.get(gtcId)).toMatchObject({ status: "NEW" });
      const order = byId.get(gtdId);
      if (order === undefined) {
        goneAt = at;
        break;
      }
      expect(order.status).toBe("NEW");
      if (at < expireAt) seenBefore = true;
      if (at > expireAt + GIVE_UP_MS) {
        throw new Error(`GTD order still ${String(order.status)} ${at - expireAt} ms after its expire_at`);
      }
      await sleep(100);
    }
    // Not expired early: it was listed as working before its time, and left the list after it.
    expect(seenBefore).toBe(true);
    expect(goneAt).toBeGreaterThanOrEqual(expireAt);

    // The catch-up log (every committed webhook event): its order.cancel, decided at or after expire_at.
    const events = await get(`/v1/account/${account}/events`);
    expect(events.status).toBe(200);
    const cancels = (dataOf(events) as unknown as Envelope[]).filter((e) => e.type === "order.cancel");
    expect(cancels).toHaveLength(1);
    const cancel = cancels[0] as Envelope;
    expect(cancel.data).toMatchObject({ order_id: gtdId, status: "EXPIRED", reason: "gtd" });
    const decidedAt = Date.parse(cancel.created_at);
    expect(decidedAt).toBeGreaterThanOrEqual(expireAt);

    // The webhook itself, signed, with the same event.
    await receiver.until((all) => all.some((r) => r.path === "/gtd" && r.envelope?.type === "order.cancel"), 10_000);
    const delivered = receiver.on("/gtd").find((r) => r.envelope?.type === "order.cancel");
    expect(delivered?.verified).toBe(true);
    expect(delivered?.envelope).toMatchObject({ id: cancel.id, data: { order_id: gtdId, status: "EXPIRED" } });

    // Final: a cancel now answers the expired order unchanged.
    const late = await v1(base, `/v1/order/${gtdId}`, trader, { method: "DELETE" });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error: "conflict", reason: "order_final" });
    expect(late.body.order).toMatchObject({ order_id: gtdId, status: "EXPIRED" });
  });
});
