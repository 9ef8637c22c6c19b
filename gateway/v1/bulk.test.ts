// POST /v1/orders/batch with an engine that fails on some orders: each order is answered in its place as
// POST /v1/order would answer it, the later ones are still sent, and a failure is reported as the error
// responder reports a failed request (logged, counted when the engine did not answer). Cancel-all and flatten
// refuse a body that is not empty and a query field they do not read, before the engine is asked.
import http from "node:http";
import express from "express";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ServiceError } from "../../kernel/errors.js";
import { createLogger } from "../../kernel/log.js";
import type { Clients } from "../clients.js";
import { errorResponder } from "../http/errors.js";
import { jsonBody } from "../http/body.js";
import { requestId } from "../http/request.js";
import { batchUnits, cancelAllOrders, flatten, placeBatch } from "./bulk.js";

const ACCOUNT = "0a0a0a0a-0000-4000-8000-000000000001";
const order = { account_id: ACCOUNT, symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" };

/** `app` on a loopback port of its own, and the base URL to reach it. */
async function listening(app: express.Express): Promise<{ server: http.Server; base: string }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return { server, base: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}` };
}

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
    ({ server, base } = await listening(app));
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
    expect(warn.mock.calls[0]?.[0]).toMatchObject({ order_index: 1, code: "engine_unavailable", upstream: "engine" });
    expect(warn.mock.calls[0]?.[0]).not.toHaveProperty("service");
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

describe("cancelAllOrders and flatten", () => {
  const log = createLogger("test", "silent");
  const cancelAll = vi.fn();
  const flattenAccount = vi.fn();
  let server: http.Server;
  let base = "";

  beforeAll(async () => {
    const clients = { engine: { cancelAllOrders: cancelAll, flatten: flattenAccount } } as unknown as Clients;
    const app = express();
    app.use(requestId());
    app.use((_req, res, next) => {
      res.locals.caller = { userId: "u", keyId: "k", permissions: ["TRADE", "MANAGE_ORDERS"] };
      next();
    });
    app.delete("/account/:account_id/orders", jsonBody(1024), cancelAllOrders(clients, { log }));
    app.post("/account/:account_id/flatten", jsonBody(1024), flatten(clients, { log }));
    app.use(errorResponder(log));
    ({ server, base } = await listening(app));
  });
  afterAll(() => {
    server.close();
  });

  const json = { "content-type": "application/json" };
  const cancelPath = (account = ACCOUNT, query = "") => `${base}/account/${account}/orders${query}`;
  const flattenPath = (account = ACCOUNT, query = "") => `${base}/account/${account}/flatten${query}`;
  const answer = async (response: Response) => ({ status: response.status, body: await response.json() });

  it("refuse a body with fields, naming each, and ask the engine nothing", async () => {
    cancelAll.mockClear();
    flattenAccount.mockClear();
    const body = JSON.stringify({ symbol: "ETH-USD", side: "BUY" });
    const issues = [
      { path: "symbol", message: "unknown field" },
      { path: "side", message: "unknown field" },
    ];
    for (const [url, method] of [
      [cancelPath(), "DELETE"],
      [flattenPath(), "POST"],
    ] as const) {
      expect(await answer(await fetch(url, { method, headers: json, body }))).toEqual({
        status: 400,
        body: { error: "invalid_payload", issues },
      });
    }
    expect(cancelAll).not.toHaveBeenCalled();
    expect(flattenAccount).not.toHaveBeenCalled();
  });

  it("refuse a body that is not an object, and one that is not JSON", async () => {
    for (const init of [
      { headers: json, body: "[]" },
      { headers: json, body: '"x"' },
      { headers: { "content-type": "text/plain" }, body: "symbol=ETH-USD" },
    ]) {
      for (const [url, method] of [
        [cancelPath(), "DELETE"],
        [flattenPath(), "POST"],
      ] as const) {
        const refused = await answer(await fetch(url, { method, ...init }));
        expect(refused, `${method} ${init.body}`).toMatchObject({
          status: 400,
          body: { error: "invalid_payload", issues: [{ path: "" }] },
        });
      }
    }
    expect(cancelAll).not.toHaveBeenCalled();
    expect(flattenAccount).not.toHaveBeenCalled();
  });

  it("flatten refuses any query parameter; cancel-all reports its query and its body together", async () => {
    const flat = await answer(await fetch(flattenPath(ACCOUNT, "?symbol=ETH-USD"), { method: "POST" }));
    expect(flat).toEqual({
      status: 400,
      body: { error: "invalid_payload", issues: [{ path: "symbol", message: "unknown field" }] },
    });
    const both = await fetch(cancelPath(ACCOUNT, "?side=BUY"), {
      method: "DELETE",
      headers: json,
      body: JSON.stringify({ symbol: "ETH-USD" }),
    });
    expect(await answer(both)).toEqual({
      status: 400,
      body: {
        error: "invalid_payload",
        issues: [
          { path: "side", message: "unknown field" },
          { path: "symbol", message: "unknown field" },
        ],
      },
    });
    expect(cancelAll).not.toHaveBeenCalled();
    expect(flattenAccount).not.toHaveBeenCalled();
  });

  it("answer 404 for a malformed account id before judging the query or the body", async () => {
    const body = JSON.stringify({ symbol: "ETH-USD" });
    const cancel = await fetch(cancelPath("nope", "?side=BUY"), { method: "DELETE", headers: json, body });
    expect(await answer(cancel)).toEqual({ status: 404, body: { error: "not_found" } });
    const flat = await fetch(flattenPath("nope", "?symbol=ETH-USD"), { method: "POST", headers: json, body });
    expect(await answer(flat)).toEqual({ status: 404, body: { error: "not_found" } });
  });

  it("accept no body and an empty JSON object", async () => {
    cancelAll.mockResolvedValue({ data: [] });
    flattenAccount.mockResolvedValue({ canceled: [], closes: [], positions: [] });
    for (const init of [{}, { headers: json, body: "{}" }, { headers: json, body: "" }]) {
      expect((await fetch(cancelPath(ACCOUNT, "?symbol=ETH-USD"), { method: "DELETE", ...init })).status).toBe(200);
      expect((await fetch(flattenPath(), { method: "POST", ...init })).status).toBe(200);
    }
    expect(cancelAll).toHaveBeenCalledTimes(3);
    expect(cancelAll.mock.calls[0]?.[0]).toEqual({ user_id: "u", account_id: ACCOUNT, symbol: "ETH-USD" });
    expect(flattenAccount).toHaveBeenCalledTimes(3);
    expect(flattenAccount.mock.calls[0]?.[0]).toEqual({ user_id: "u", account_id: ACCOUNT });
  });
});
