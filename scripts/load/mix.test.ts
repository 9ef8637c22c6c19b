import { describe, expect, it } from "vitest";
import {
  KeyMix,
  MIX,
  buildRequest,
  classOf,
  learn,
  newKeyState,
  planSymbol,
  plannedOperation,
  resolveOperation,
  stepText,
  toStep,
  type RequestContext,
} from "./mix.js";

const ctx: RequestContext = {
  accountId: "acc-1",
  clientId: "c-1",
  plan: { symbol: "BTC-USD", mark: 50_000, buyLimit: "25000.0", sellLimit: "100000.0", quantity: "0.0010" },
};

describe("the mix", () => {
  it("is 70% reads, 25% place/cancel and 5% close", () => {
    const counts = { read: 0, "place/cancel": 0, close: 0 };
    for (const op of MIX) counts[classOf(op)]++;
    expect(MIX).toHaveLength(20);
    expect(counts).toEqual({ read: 14, "place/cancel": 5, close: 1 });
  });

  it("places before it cancels and buys before it closes, within one cycle", () => {
    const firstIndex = (op: string): number => MIX.indexOf(op as never);
    expect(firstIndex("place-limit")).toBeLessThan(firstIndex("cancel"));
    expect(firstIndex("place-market")).toBeLessThan(firstIndex("close"));
    expect(MIX.filter((op) => op === "place-limit")).toHaveLength(MIX.filter((op) => op === "cancel").length);
  });

  it("cycles by sequence number", () => {
    expect(plannedOperation(0)).toBe(MIX[0]);
    expect(plannedOperation(21)).toBe(MIX[1]);
  });
});

describe("key state", () => {
  it("reads instead of cancelling or closing what it does not have", () => {
    const state = newKeyState();
    expect(resolveOperation("cancel", state)).toBe("orders");
    expect(resolveOperation("close", state)).toBe("positions");
    expect(resolveOperation("summary", state)).toBe("summary");
  });

  it("cancels the resting orders it learnt, oldest first, and closes what it bought", () => {
    const state = newKeyState();
    const first = buildRequest("place-limit", ctx, state);
    expect(JSON.parse(first.body ?? "")).toMatchObject({ side: "BUY", kind: "LIMIT", limit_price: "25000.0" });
    const second = buildRequest("place-limit", ctx, state);
    expect(JSON.parse(second.body ?? "")).toMatchObject({ side: "SELL", limit_price: "100000.0" });
    learn("place-limit", 201, { order: { order_id: "o-1", status: "NEW" } }, state);
    learn("place-limit", 201, { order: { order_id: "o-2", status: "NEW" } }, state);
    learn("place-limit", 200, { order: { order_id: "o-3", status: "REJECTED" } }, state);
    learn("place-limit", 429, { error: "rate_limited" }, state);
    expect(state.restingOrders).toEqual(["o-1", "o-2"]);
    expect(resolveOperation("cancel", state)).toBe("cancel");
    expect(buildRequest("cancel", ctx, state)).toEqual({ method: "DELETE", path: "/v1/order/o-1", body: undefined });
    expect(state.restingOrders).toEqual(["o-2"]);

    learn("place-market", 201, { order: { order_id: "m-1", status: "FILLED" } }, state);
    learn("place-market", 201, { order: { order_id: "m-2", status: "CANCELED" } }, state);
    expect(state.openBuys).toBe(1);
    const close = buildRequest("close", ctx, state);
    expect(close.path).toBe("/v1/position/close");
    expect(JSON.parse(close.body ?? "")).toEqual({
      account_id: "acc-1",
      symbol: "BTC-USD",
      quantity: "0.0010",
      client_id: "c-1",
    });
    expect(state.openBuys).toBe(0);
    expect(resolveOperation("close", state)).toBe("positions");
  });

  it("builds the reads on the key's account", () => {
    const state = newKeyState();
    expect(buildRequest("summary", ctx, state).path).toBe("/v1/account/acc-1/summary");
    expect(buildRequest("tickers", ctx, state).path).toBe("/v1/tickers");
  });
});

describe("a key's course through the mix", () => {
  it("sends the planned operations, resolved against what the expected answers taught it", () => {
    const mix = new KeyMix("acc-1", ctx.plan);
    const sent = (seq: number): string => {
      const { op, request } = mix.next(seq, `c-${seq}`);
      return `${op} ${request.method} ${request.path}`;
    };
    expect(sent(0)).toBe("account GET /v1/account/acc-1");
    expect(sent(1)).toBe("place-limit POST /v1/order");
    // A refused place teaches nothing, so the cancel is sent as a read of the orders.
    mix.answered("place-limit", 429, () => ({ order: { order_id: "o-0", status: "NEW" } }));
    expect(sent(4)).toBe("orders GET /v1/account/acc-1/orders");
    mix.answered("place-limit", 201, () => ({ order: { order_id: "o-1", status: "NEW" } }));
    expect(sent(4)).toBe("cancel DELETE /v1/order/o-1");
    mix.answered("place-market", 201, () => ({ order: { order_id: "m-1", status: "FILLED" } }));
    const close = mix.next(16, "c-16");
    expect(close.op).toBe("close");
    expect(JSON.parse(close.request.body ?? "")).toMatchObject({ account_id: "acc-1", client_id: "c-16" });
  });

  it("reads the answer body only when the status is the expected one and the operation needs it", () => {
    const mix = new KeyMix("acc-1", ctx.plan);
    const read: string[] = [];
    const body = (label: string) => (): unknown => {
      read.push(label);
      return {};
    };
    mix.answered("place-limit", 429, body("refused place"));
    mix.answered("account", 200, body("read"));
    mix.answered("place-market", 201, body("placed"));
    expect(read).toEqual(["placed"]);
  });
});

describe("prices and sizes", () => {
  it("rounds down to the step and prints its digits", () => {
    expect(toStep(48_206.15, "0.1")).toBe("48206.1");
    expect(toStep(0.001, "0.0001")).toBe("0.0010");
    expect(toStep(1706.28, "0.01")).toBe("1706.28");
    expect(toStep(7, "5")).toBe("5");
  });

  it("prints numeric steps as decimals", () => {
    expect(stepText(0.0001)).toBe("0.0001");
    expect(stepText(1e-7)).toBe("0.0000001");
    expect(stepText("0.01")).toBe("0.01");
  });

  it("plans far-from-the-mark limits and ten steps of quantity", () => {
    expect(
      planSymbol({
        symbol: "ETH-USD",
        mark_price: "3412.56",
        tick_size: 0.01,
        quantity_step: "0.001",
        min_quantity: "0.001",
      }),
    ).toEqual({ symbol: "ETH-USD", mark: 3412.56, buyLimit: "1706.28", sellLimit: "6825.12", quantity: "0.010" });
    expect(() =>
      planSymbol({ symbol: "X", mark_price: null, tick_size: "1", quantity_step: "1", min_quantity: "1" }),
    ).toThrow(/no mark price/);
  });
});
