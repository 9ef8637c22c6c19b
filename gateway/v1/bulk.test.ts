// POST /v1/orders/batch with an engine that fails on some orders: each order is answered in its place as
// POST /v1/order would answer it, the later ones are still sent, and a failure is reported as the error
// responder reports a failed request (logged, counted when the engine did not answer).
import http from "node:http";
import express from "express";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ServiceError } from "../../kernel/errors.js";
import { createLogger } from "../../kernel/log.js";
import type { Clients } from "../clients.js";
import { errorResponder } from "../http/errors.js";
import { requestId } from "../http/request.js";
import { batchUnits, placeBatch } from "./bulk.js";

const ACCOUNT = "0a0a0a0a-0000-4000-8000-000000000001";
const order = { account_id: ACCOUNT, symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" };

describe("placeBatch", () => {
  const log = createLogger("test", "silent");
  const warn = vi.spyOn(log, "warn");
  const error = vi.spyOn(log, "error");
  const unavailable: string[] = [];
  const placeOrder = vi.fn();
  let server: http.Server;
  let base = "";

  beforeAll(async () => {
    const clients = { engine: { placeOrder } } as unknown as Clients;
    const app = express();
    app.use(requestId());
    app.use(express.json());
    app.use((_req, res, next) => {
      res.locals.caller = { userId: "u", keyId: "k", permissions: ["TRADE"] };
      next();
    });
    app.post("/batch", placeBatch(clients, { log, onUnavailable: (d) => unavailable.push(d) }));
    app.use(errorResponder(log));
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  });
  afterAll(() => {
    server.close();
  });

  it("answers each order in its place, goes on after a failure, and reports the failures", async () => {
    placeOrder
      .mockRejectedValueOnce(new ServiceError("engine_unavailable"))
      .mockRejectedValueOnce(new ServiceError("engine_error"))
      .mockRejectedValueOnce(new ServiceError("not_found"));
    const response = await fetch(`${base}/batch`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ orders: [{ ...order, side: "HOLD" }, order, order, order] }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { status: number; body: { error: string } }[] };
    expect(body.data.map((item) => [item.status, item.body.error])).toEqual([
      [400, "invalid_payload"],
      [503, "engine_unavailable"],
      [500, "engine_error"],
      [404, "not_found"],
    ]);
    // The invalid order never reached the engine; the three others did, in order, with the caller's user.
    expect(placeOrder).toHaveBeenCalledTimes(3);
    expect(placeOrder.mock.calls[0]?.[0]).toMatchObject({ ...order, user_id: "u" });
    expect(unavailable).toEqual(["engine"]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toMatchObject({ order_index: 1, code: "engine_unavailable" });
    expect(error).toHaveBeenCalledTimes(1);
    expect(error.mock.calls[0]?.[0]).toMatchObject({ order_index: 2, code: "engine_error" });
  });

  it("counts a batch one unit per order when it is one, else one", () => {
    expect(batchUnits({ orders: [1, 2, 3] })).toBe(3);
    expect(batchUnits({ orders: Array.from({ length: 20 }) })).toBe(20);
    expect(batchUnits({ orders: Array.from({ length: 21 }) })).toBe(1);
    expect(batchUnits({ orders: [] })).toBe(1);
    expect(batchUnits({ orders: "x" })).toBe(1);
    expect(batchUnits(null)).toBe(1);
    expect(batchUnits([1, 2])).toBe(1);
    // Refused 400 as a whole (a field besides `orders`): one request, whatever `orders` holds.
    expect(batchUnits({ orders: Array.from({ length: 20 }), dry: true })).toBe(1);
  });
});
