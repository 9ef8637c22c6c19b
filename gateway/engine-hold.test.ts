// The gateway's hold of calls to a partition in hand-over (docs/scale-out.md, "Hand-over") against stand-in
// engines: a call the old owner refused as not serving (or that never reached it) is held and sent to the
// successor; a call that may have run is never sent twice (but a place or close, deduplicated by its request
// id: gateway/engine-router.request-ids.test.ts); past the hold's time or size bound it is 503.
import { status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { SESSION_ENDED_UNREAD, ServiceError } from "../kernel/errors.js";
import type { HoldOutcome } from "./engine-hold.js";
import { EngineRouter, type EngineCalls } from "./engine-router.js";
import { untraced } from "./origin.js";
import {
  accountOn,
  cut,
  grpcError,
  holding,
  noConnection,
  notServingError,
  order,
  orderOn,
} from "./router-fixtures.testing.js";

const origin = untraced("hold");

/** A draining engine's answer: refused before anything ran. */
const notServing = (): Error => notServingError("engine draining");
/** The session ended cleanly before the engine read the call. */
const unread = (): Error => grpcError(status.UNAVAILABLE, SESSION_ENDED_UNREAD);

/** A stand-in engine target: answers `name`, or fails its calls with the failures given, in turn, first. */
function target(name: string, calls: string[], failures: (() => Error)[] = [], always?: () => Error): EngineCalls {
  let failed = 0;
  return {
    call: () => {
      calls.push(name);
      if (always !== undefined) return Promise.reject(always());
      const failure = failures[failed];
      if (failure !== undefined) {
        failed++;
        return Promise.reject(failure());
      }
      return Promise.resolve({ engine: name });
    },
  } as unknown as EngineCalls;
}

describe("the hold of calls to a partition in hand-over", () => {
  it("sends an order the old owner refused as not serving to its successor, and later ones there first", async () => {
    const calls: string[] = [];
    const { settings, ended } = holding(5_000);
    const router = new EngineRouter(
      [[target("old", calls, [], notServing), target("successor", calls)], target("other", calls)],
      settings,
    );
    const account = accountOn(0, 2);
    expect(await router.placeOrder(order(account), origin)).toEqual({ engine: "successor" });
    expect(await router.getAccount({ user_id: "u", account_id: account }, origin)).toEqual({ engine: "successor" });
    expect(calls).toEqual(["old", "successor", "successor"]);
    // Served without waiting: nothing was held.
    expect(ended).toEqual([]);
  });

  it("holds an order while no target serves it (draining, then not listening) and sends it once one does", async () => {
    const calls: string[] = [];
    const { settings, ended } = holding(5_000);
    const router = new EngineRouter(
      [target("engine", calls, [notServing, noConnection, unread, noConnection])],
      settings,
    );
    expect(await router.placeOrder(order(accountOn(0, 1)), origin)).toEqual({ engine: "engine" });
    expect(calls).toHaveLength(5);
    expect(ended).toHaveLength(1);
    expect(ended[0]?.[0]).toBe("sent");
    expect(router.held).toBe(0);
  });

  it("never sends a cancel again once it may have run, even with a successor ready", async () => {
    const calls: string[] = [];
    const router = new EngineRouter(
      [[target("old", calls, [cut]), target("successor", calls)]],
      holding(5_000).settings,
    );
    const failed = await router.cancelOrder({ user_id: "u", order_id: orderOn(0, 1) }, origin).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ServiceError);
    expect((failed as ServiceError).body()).toEqual({ error: "engine_unavailable" });
    expect(calls).toEqual(["old"]);
  });

  it("holds a read cut on the old owner and reads from the successor", async () => {
    const calls: string[] = [];
    const router = new EngineRouter(
      [[target("old", calls, [], cut), target("successor", calls)]],
      holding(5_000).settings,
    );
    const read = await router.getAccount({ user_id: "u", account_id: accountOn(0, 1) }, origin);
    expect(read).toEqual({ engine: "successor" });
    // The old owner's read was sent once more after the break (readAgainOnBreak), then the successor's.
    expect(calls).toEqual(["old", "old", "successor"]);
  });

  it("answers 503 engine_unavailable once the hold's time is up, never the engine's own code", async () => {
    const calls: string[] = [];
    const { settings, ended } = holding(1_000);
    const router = new EngineRouter([target("engine", calls, [], notServing)], settings);
    const failed = await router.placeOrder(order(accountOn(0, 1)), origin).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: "engine_unavailable" });
    expect((failed as ServiceError).httpStatus).toBe(503);
    expect(calls.length).toBeGreaterThan(2);
    expect(ended).toEqual([["expired", 1]]);
    expect(router.held).toBe(0);
  });

  it("answers at once when HANDOVER_HOLD_MAX calls are held already", async () => {
    let release: () => void = () => undefined;
    const paused = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ended: HoldOutcome[] = [];
    const router = new EngineRouter([target("engine", [], [notServing])], {
      holdMs: 5_000,
      maxHeld: 1,
      sleep: () => paused,
      metrics: { ended: (outcome) => ended.push(outcome), held: () => undefined },
    });
    const first = router.placeOrder(order(accountOn(0, 1)), origin);
    await new Promise((resolve) => setImmediate(resolve));
    expect(router.held).toBe(1);
    const refused = new EngineRouter([target("engine", [], [], notServing)], {
      holdMs: 5_000,
      maxHeld: 0,
      metrics: { ended: (outcome) => ended.push(outcome), held: () => undefined },
    });
    await expect(refused.placeOrder(order(accountOn(0, 1)), origin)).rejects.toMatchObject({
      code: "engine_unavailable",
    });
    release();
    expect(await first).toEqual({ engine: "engine" });
    expect(ended).toEqual(["full", "sent"]);
  });

  it("holds nothing for an engine that shows no hand-over (it crashed: no connection): 503 at once", async () => {
    const calls: string[] = [];
    const { settings, ended } = holding(5_000);
    const router = new EngineRouter([target("engine", calls, [], noConnection)], settings);
    await expect(router.placeOrder(order(accountOn(0, 1)), origin)).rejects.toMatchObject({
      code: "engine_unavailable",
    });
    expect(calls).toEqual(["engine"]);
    expect(ended).toEqual([]);
  });

  it("holds nothing for an engine of one target that served, then stopped answering: 503 at once", async () => {
    const calls: string[] = [];
    const { settings, ended } = holding(5_000);
    let killed = false;
    const engine = {
      call: () => {
        calls.push("engine");
        return killed ? Promise.reject(noConnection()) : Promise.resolve({ engine: "engine" });
      },
    } as unknown as EngineCalls;
    const router = new EngineRouter([engine], settings);
    const account = accountOn(0, 1);
    expect(await router.placeOrder(order(account), origin)).toEqual({ engine: "engine" });
    killed = true;
    await expect(router.placeOrder(order(account), origin)).rejects.toMatchObject({ code: "engine_unavailable" });
    expect(calls).toEqual(["engine", "engine"]);
    expect(ended).toEqual([]);
  });

  it("holds nothing without HANDOVER_HOLD_MS: a refused call is 503 at once", async () => {
    const calls: string[] = [];
    const router = new EngineRouter([target("engine", calls, [notServing])]);
    await expect(router.placeOrder(order(accountOn(0, 1)), origin)).rejects.toMatchObject({
      code: "engine_unavailable",
    });
    expect(calls).toEqual(["engine"]);
  });

  it("moves a new account on to the next engine when one refuses it as not serving", async () => {
    const calls: string[] = [];
    const router = new EngineRouter([target("draining", calls, [], notServing), target("up", calls)]);
    expect(await router.createAccount({ user_id: "u", plan_id: "p" }, origin)).toEqual({ engine: "up" });
    expect(calls).toEqual(["draining", "up"]);
  });
});
