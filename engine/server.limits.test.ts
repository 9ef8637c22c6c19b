// The engine's limits through its gRPC surface, on the embedded database (docs/engine.md, "Limits"): the cap
// on accounts per user (counted in the database, whichever shard each account is on) and on working orders
// per account (the setting reaches the shard threads), each a 409 naming its limit.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClients, type Clients } from "../gateway/clients.js";
import { untraced } from "../gateway/origin.js";
import { fromGrpcError } from "../kernel/errors.js";
import { TestEngine, restingBuy } from "./main.testing.js";
import { CATALOGUE } from "./market/catalogue.js";
import { marketClient } from "../test/harness/market.js";

const TOKEN = "engine-limits-test-token";
const PLAN_ID = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
const engine = new TestEngine("engine-limits", TOKEN, {
  PRICE_FEED: "push",
  ENGINE_SHARDS: "2",
  ENGINE_MAX_ACCOUNTS_PER_USER: "3",
  ENGINE_MAX_WORKING_ORDERS: "2",
  WEBHOOKS_ENABLED: "false",
});
let clients: Clients;

beforeAll(async () => {
  await engine.start();
  const market = marketClient(engine.address, TOKEN);
  await market.push({ "BTC-USD": Number(CATALOGUE.byKey("BTC-USD")?.reference_price) });
  market.close();
  clients = createClients("127.0.0.1:9", [engine.address], TOKEN, undefined, true);
});

afterAll(async () => {
  clients.close();
  await engine.stop();
});

const create = (userId: string, planId = PLAN_ID) =>
  clients.engine.createAccount({ user_id: userId, plan_id: planId }, untraced("req-create")).then(
    (account) => ({ ok: true as const, account }),
    (error: unknown) => ({ ok: false as const, error: fromGrpcError(error) }),
  );

describe("the cap on accounts per user", () => {
  it("refuses the fourth account with 409 account_limit_reached and the limit", async () => {
    for (let i = 0; i < 3; i++) expect((await create("user-cap")).ok).toBe(true);
    const fourth = await create("user-cap");
    expect(fourth.ok).toBe(false);
    if (fourth.ok) return;
    expect(fourth.error.httpStatus).toBe(409);
    expect(fourth.error.body()).toEqual({ error: "account_limit_reached", limit: 3 });
    expect((await create("user-other")).ok).toBe(true);
  });

  it("opens exactly one of two parallel creations at the limit − 1", async () => {
    for (let round = 0; round < 5; round++) {
      const user = `user-race-${round}`;
      for (let i = 0; i < 2; i++) expect((await create(user)).ok).toBe(true);
      const answers = await Promise.all([create(user), create(user)]);
      expect(answers.filter((a) => a.ok)).toHaveLength(1);
      const refused = answers.find((a) => !a.ok);
      expect(refused === undefined || refused.ok ? undefined : refused.error.body()).toEqual({
        error: "account_limit_reached",
        limit: 3,
      });
    }
  });

  it("does not count a creation the engine refused (an unknown plan)", async () => {
    for (let i = 0; i < 2; i++) expect((await create("user-refused")).ok).toBe(true);
    const unknownPlan = await create("user-refused", "00000000-0000-4000-8000-000000000000");
    expect(unknownPlan.ok ? undefined : unknownPlan.error.code).toBe("invalid_payload");
    expect((await create("user-refused")).ok).toBe(true);
  });
});

describe("the cap on working orders per account", () => {
  it("refuses a third working order with 409 order_limit_reached and the limit", async () => {
    const opened = await create("user-orders");
    if (!opened.ok) throw opened.error;
    const place = () =>
      clients.engine.placeOrder(restingBuy("user-orders", opened.account.account_id), untraced("req-place"));
    expect((await place()).order?.status).toBe("NEW");
    expect((await place()).order?.status).toBe("NEW");
    const third = await place().catch((error: unknown) => fromGrpcError(error));
    expect("body" in third ? third.body() : third).toEqual({ error: "order_limit_reached", limit: 2 });
    expect("httpStatus" in third ? third.httpStatus : 0).toBe(409);
  });
});
