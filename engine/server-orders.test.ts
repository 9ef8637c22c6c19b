// Flatten over the wire: the core's reply as engine.v1.Engine/Flatten sends it (proto/engine/v1/engine.proto),
// and as the gateway renders it for /v1: the protective orders a position kept travel as any order record.
import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { flattenJson } from "../gateway/v1/bulk.js";
import { loadEngineProto } from "../kernel/grpc.js";
import { ACCOUNT_ID, Harness, PLAN, USER_ID } from "./core.testing.js";
import { bulkHandlers } from "./server-orders.js";

const FRIDAY_NOON = Date.parse("2026-11-27T12:00:00.000Z");
const SATURDAY_NOON = Date.parse("2026-11-28T12:00:00.000Z");

/** An OSTIUM EUR-USD long with its stop-loss and take-profit, and a BTC-USD long, on a Saturday. */
function closedForex() {
  const h = new Harness(FRIDAY_NOON).open(PLAN.c200k, "OSTIUM");
  h.quote("EUR-USD", "1.08452");
  h.quote("BTC-USD", "100000");
  h.placed({ symbol: "EUR-USD", side: "BUY", kind: "MARKET", quantity: 10_000 });
  const exit = { symbol: "EUR-USD", side: "SELL", quantity: 10_000, reduce_only: true } as const;
  h.placed({ ...exit, kind: "STOP", trigger_price: "1.07" });
  h.placed({ ...exit, kind: "TAKE_PROFIT", trigger_price: "1.1" });
  h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
  h.now = SATURDAY_NOON;
  h.quote("EUR-USD", "1.08452");
  h.quote("BTC-USD", "100000");
  return h;
}

/** Calls the Flatten handler as the gRPC server would, and returns the response's bytes. */
function flattenOverWire(h: Harness): Promise<Buffer> {
  const handlers = bulkHandlers(
    {
      command: (_user, _account, command) => Promise.resolve(h.run(command)),
      query: () => Promise.reject(new Error("no query expected")),
    },
    { internalToken: undefined },
  );
  const service = loadEngineProto().engine.v1.Engine.service;
  const call = { request: { user_id: USER_ID, account_id: ACCOUNT_ID }, metadata: new grpc.Metadata() };
  type FlattenCall = Parameters<typeof handlers.Flatten>[0];
  return new Promise((resolve, reject) => {
    handlers.Flatten(call as unknown as FlattenCall, (error, value) => {
      if (error !== null || value === undefined || value === null)
        reject(new Error(`flatten failed: ${JSON.stringify(error)}`));
      else resolve(service.Flatten.responseSerialize(value));
    });
  });
}

describe("engine.v1.Engine/Flatten", () => {
  it("sends the protective orders each close kept, which the gateway answers as the core's order records", async () => {
    const wire = closedForex();
    const bytes = await flattenOverWire(wire);
    const service = loadEngineProto().engine.v1.Engine.service;
    const json = flattenJson(service.Flatten.responseDeserialize(bytes));

    // The same flatten decided by the core directly, on the same account.
    const direct = closedForex().run({ type: "Flatten", request: { account_id: ACCOUNT_ID } });
    if (direct.kind !== "flattened") throw new Error(JSON.stringify(direct));
    const [eur, btc] = direct.closes;
    expect(eur?.kept_orders.map((o) => o.kind)).toEqual(["STOP", "TAKE_PROFIT"]);
    expect(btc?.kept_orders).toEqual([]);
    expect(json.closes).toMatchObject([
      { symbol: "EUR-USD", violations: [{ rule: "market_closed" }], kept_orders: eur?.kept_orders },
      { symbol: "BTC-USD", kept_orders: [] },
    ]);
  });
});
