// A client_id is unique per account forever, end to end (docs/openapi.yaml "Idempotency", docs/engine.md
// "Idempotency"): the engine keeps only the newest 100 client_id records per account in memory here
// (ENGINE_CLIENT_IDS_KEPT, its lowest setting), and a retry of an older one still answers the first response with
// `Idempotent-Replayed: true` (read from engine_client_ids), another body 409, through the gateway and gRPC.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
const KEPT = 100;

/** REJECTED at once (a post-only buy above the mark): nothing changes on the account. */
const REFUSED = { symbol: "SOL-USD", side: "BUY", kind: "LIMIT", quantity: 1, limit_price: 110, post_only: true };

describe("client_ids past the records the engine keeps in memory", () => {
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

  beforeAll(async () => {
    stack = await stackOn("postgres", {
      env: { PRICE_FEED: "push" },
      engineEnv: { ENGINE_CLIENT_IDS_KEPT: String(KEPT) },
      gatewayEnv: { RATE_LIMIT_MAX: "100000" },
    });
    market = marketClient(stack.engineGrpc);
    base = stack.gateways[0]?.v1 ?? "";
    trader = await newKey(stack.gateways[0]?.api ?? "", "client-ids-trader", {
      label: "algo",
      permissions: ["READ_ONLY", "TRADE"],
    });
    await market.push({ "SOL-USD": 100 });
  });
  afterAll(async () => {
    market?.close();
    await stack?.stop();
  });

  it("replays the first answer of a client_id the engine forgot, and refuses another body with 409", async () => {
    const created = await post("/v1/account", { plan_id: PLAN_10K });
    expect(created.status).toBe(201);
    const account = String(created.body.account_id);
    const first = await post("/v1/order", { account_id: account, ...REFUSED, client_id: "intent-0" });
    expect(first.status).toBe(200);
    for (let i = 1; i <= KEPT; i++) {
      expect((await post("/v1/order", { account_id: account, ...REFUSED, client_id: `intent-${i}` })).status).toBe(200);
    }
    const retry = await post("/v1/order", { account_id: account, ...REFUSED, client_id: "intent-0" });
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body).toEqual(first.body);

    const other = await post("/v1/order", { account_id: account, ...REFUSED, quantity: 2, client_id: "intent-0" });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({
      error: "conflict",
      client_id: "intent-0",
      order_id: (first.body.order as Record<string, unknown>).order_id,
    });
  });
});
