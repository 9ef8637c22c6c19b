// The request id the router mints for each place and close call (docs/engine.md, "Request ids"; docs/scale-out.md,
// "Hand-over") against stand-in engines that share one journal and deduplicate by it, as the engine does: a call
// cut after it ran is sent again with the same id and answered with the first result (as created or rejected: the
// caller sent it once); each call gets its own id; any other write cut after it was sent stays 503.
import { describe, expect, it } from "vitest";
import { ServiceError } from "../kernel/errors.js";
import type { AnyRequest } from "./engine-methods.js";
import { EngineRouter, type EngineCalls } from "./engine-router.js";
import { untraced } from "./origin.js";
import { accountOn, cut, holding, notServingError, order, orderOn } from "./router-fixtures.testing.js";

const origin = untraced("request-ids");

/** The engines' shared journal: what each request id placed. */
class Ledger {
  readonly placed = new Map<string, { order_id: string; status: string }>();
  /** The status each order placed gets. */
  status = "NEW";
  /** Every request each target received: target, method, request id. */
  readonly received: [string, string, string | undefined][] = [];
}

/**
 * A stand-in engine target on `ledger`: places an order once per request id (a resend answers the first order,
 * `outcome` "replayed"), or fails with `before` (did not run) or `after` (ran, its answer lost) in turn first.
 */
function target(
  name: string,
  ledger: Ledger,
  failures: { before?: () => Error; after?: () => Error }[] = [],
): EngineCalls {
  let failed = 0;
  return {
    call: (method: string, request: AnyRequest) => {
      const requestId = (request as { request_id?: string }).request_id;
      ledger.received.push([name, method, requestId]);
      const failure = failures[failed];
      if (failure !== undefined) failed++;
      if (failure?.before !== undefined) return Promise.reject(failure.before());
      let answer: unknown = { engine: name };
      if (requestId !== undefined) {
        const first = ledger.placed.get(requestId);
        const placed = first ?? { order_id: `order-${ledger.placed.size + 1}`, status: ledger.status };
        ledger.placed.set(requestId, placed);
        answer = { order: placed, outcome: first === undefined ? "created" : "replayed" };
      }
      return failure?.after !== undefined ? Promise.reject(failure.after()) : Promise.resolve(answer);
    },
  } as unknown as EngineCalls;
}

describe("the request id of a place or close call", () => {
  it("when a place is cut after it ran on the old owner, then the successor answers it by the same request id", async () => {
    const ledger = new Ledger();
    const router = new EngineRouter(
      [[target("old", ledger, [{ after: cut }]), target("successor", ledger)]],
      holding(5_000).settings,
    );
    const answer = await router.placeOrder(order(accountOn(0, 1)), origin);
    // The engine replayed it; the caller, who sent it once, gets it as created (no Idempotent-Replayed).
    expect(answer).toEqual({ order: { order_id: "order-1", status: "NEW" }, outcome: "created" });
    expect(ledger.placed.size).toBe(1);
    const [first, again] = ledger.received;
    expect(first?.[0]).toBe("old");
    expect(again?.[0]).toBe("successor");
    expect(first?.[2]).toEqual(expect.any(String));
    expect(again?.[2]).toBe(first?.[2]);
  });

  it("when a close is cut and the successor is not serving yet, then it is held and sent with the same id", async () => {
    const ledger = new Ledger();
    const { settings, ended } = holding(5_000);
    const router = new EngineRouter(
      [
        [
          target("old", ledger, [{ after: cut }, { before: () => notServingError("engine draining") }]),
          target("successor", ledger, [{ before: () => notServingError("not yet") }]),
        ],
      ],
      settings,
    );
    const close = { user_id: "u", account_id: accountOn(0, 1), symbol: "BTC-USD" };
    expect(await router.closePosition(close, origin)).toEqual({
      order: { order_id: "order-1", status: "NEW" },
      outcome: "created",
    });
    const ids = new Set(ledger.received.map(([, , id]) => id));
    expect(ids.size).toBe(1);
    expect(ledger.received.length).toBeGreaterThan(2);
    expect(ended[0]?.[0]).toBe("sent");
  });

  it("when a place with a client_id is cut and sent again, then the engine's replay reaches the caller as such", async () => {
    const ledger = new Ledger();
    const router = new EngineRouter(
      [[target("old", ledger, [{ after: cut }]), target("successor", ledger)]],
      holding(5_000).settings,
    );
    const answer = await router.placeOrder({ ...order(accountOn(0, 1)), client_id: "c-1" }, origin);
    expect(answer).toMatchObject({ outcome: "replayed" });
  });

  it("when a rejected place is replayed on its resend, then the caller gets it as rejected", async () => {
    const ledger = new Ledger();
    ledger.status = "REJECTED";
    const router = new EngineRouter(
      [[target("old", ledger, [{ after: cut }]), target("successor", ledger)]],
      holding(5_000).settings,
    );
    expect(await router.placeOrder(order(accountOn(0, 1)), origin)).toEqual({
      order: { order_id: "order-1", status: "REJECTED" },
      outcome: "rejected",
    });
  });

  it("when a place is cut on an engine of one target that shows no hand-over, then it is 503 and not sent again", async () => {
    const ledger = new Ledger();
    const router = new EngineRouter([target("engine", ledger, [{ after: cut }])], holding(5_000).settings);
    const failed = await router.placeOrder(order(accountOn(0, 1)), origin).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ServiceError);
    expect((failed as ServiceError).body()).toEqual({ error: "engine_unavailable" });
    expect(ledger.received).toHaveLength(1);
  });

  it("when a cancel is cut after it was sent, then it is 503, with no request id and no resend", async () => {
    const ledger = new Ledger();
    const router = new EngineRouter(
      [[target("old", ledger, [{ after: cut }]), target("successor", ledger)]],
      holding(5_000).settings,
    );
    const failed = await router.cancelOrder({ user_id: "u", order_id: orderOn(0, 1) }, origin).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: "engine_unavailable" });
    expect(ledger.received).toEqual([["old", "cancelOrder", undefined]]);
  });

  it("when the same body is placed twice by the caller, then each call gets its own request id", async () => {
    const ledger = new Ledger();
    const router = new EngineRouter([target("engine", ledger)]);
    const account = accountOn(0, 1);
    await router.placeOrder(order(account), origin);
    await router.placeOrder(order(account), origin);
    await router.testOrder(order(account), origin);
    const [first, second, test] = ledger.received.map(([, , id]) => id);
    expect(first).not.toBe(second);
    expect(ledger.placed.size).toBe(2);
    expect(test).toBeUndefined();
  });
});
