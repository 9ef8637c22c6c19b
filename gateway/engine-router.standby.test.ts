// The gateway's routing to a standby (docs/scale-out.md, "Standbys") against stand-in engines: every entry of
// ENGINE_GRPC_TARGETS lists the standby after its owner (`e0|s,e1|s`). A killed owner's calls go on to the
// standby at once when they provably did not run (no connection); while no target listens they are held if the
// entry served within HANDOVER_HOLD_MS, else 503 at once, and the standby serves them once it took the index; a
// standby serving another index refuses as not serving and the call moves on; a write cut on the dying owner is
// never sent to the standby, but a place or close, which goes on with its request id (the standby's replay of the
// journal holds the first result if it ran: gateway/engine-router.request-ids.test.ts).
import { describe, expect, it } from "vitest";
import { ServiceError } from "../kernel/errors.js";
import { EngineRouter, type EngineCalls } from "./engine-router.js";
import { untraced } from "./origin.js";
import { accountOn, cut, holding, noConnection, notServingError, order, orderOn } from "./router-fixtures.testing.js";

const origin = untraced("standby");

const notOwned = (): Error => notServingError("partition 2 is not owned by engine 1");

/** A stand-in target answering `{ engine: name }` while `state.failure` is unset, failing with it otherwise. */
function target(name: string, calls: string[], state: { failure?: () => Error }): EngineCalls {
  return {
    call: () => {
      calls.push(name);
      return state.failure === undefined ? Promise.resolve({ engine: name }) : Promise.reject(state.failure());
    },
  } as unknown as EngineCalls;
}

describe("a standby listed in every entry", () => {
  it("answers a killed owner's order 503 at once while the standby does not listen, then sends it there", async () => {
    const calls: string[] = [];
    const owner = { failure: noConnection };
    const standby: { failure?: () => Error } = { failure: noConnection };
    const { settings, ended } = holding(5_000);
    const router = new EngineRouter(
      [
        [target("e0", calls, {}), target("s", calls, standby)],
        [target("e1", calls, owner), target("s", calls, standby)],
      ],
      settings,
    );
    const account = accountOn(1, 2);
    const failed = await router.placeOrder(order(account), origin).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ServiceError);
    expect((failed as ServiceError).httpStatus).toBe(503);
    expect((failed as ServiceError).body()).toEqual({ error: "engine_unavailable" });
    expect(calls).toEqual(["e1", "s"]);
    // The standby took index 1 and listens.
    delete standby.failure;
    calls.length = 0;
    expect(await router.placeOrder(order(account), origin)).toEqual({ engine: "s" });
    expect(await router.getAccount({ user_id: "u", account_id: account }, origin)).toEqual({ engine: "s" });
    expect(calls).toEqual(["e1", "s", "s"]);
    // No hand-over was shown: nothing was held.
    expect(ended).toEqual([]);
  });

  it("holds a killed owner's calls while no target listens, if the entry served within the hold, then sends them to the standby", async () => {
    const calls: string[] = [];
    const owner: { failure?: () => Error } = {};
    let refusals = 3;
    const standby = {
      call: () => {
        calls.push("s");
        return refusals-- > 0 ? Promise.reject(noConnection()) : Promise.resolve({ engine: "s" });
      },
    } as unknown as EngineCalls;
    const { settings, ended } = holding(5_000);
    const router = new EngineRouter([[target("e0", calls, owner), standby]], settings);
    const account = accountOn(0, 1);
    expect(await router.placeOrder(order(account), origin)).toEqual({ engine: "e0" });
    // Killed: nothing listens at its address, and the standby has not taken the index yet.
    owner.failure = noConnection;
    calls.length = 0;
    expect(await router.placeOrder(order(account), origin)).toEqual({ engine: "s" });
    expect(calls).toEqual(["e0", "s", "e0", "s", "e0", "s", "e0", "s"]);
    expect(ended.map(([outcome]) => outcome)).toEqual(["sent"]);
  });

  it("answers 503 at once once the entry has served nothing for HANDOVER_HOLD_MS", async () => {
    let clock = 0;
    const calls: string[] = [];
    const owner: { failure?: () => Error } = {};
    const { settings, ended } = holding(5_000);
    const router = new EngineRouter([[target("e0", calls, owner), target("s", calls, { failure: noConnection })]], {
      ...settings,
      now: () => clock,
    });
    const account = accountOn(0, 1);
    expect(await router.placeOrder(order(account), origin)).toEqual({ engine: "e0" });
    owner.failure = noConnection;
    clock = 5_000;
    await expect(router.placeOrder(order(account), origin)).rejects.toMatchObject({ code: "engine_unavailable" });
    expect(calls).toEqual(["e0", "e0", "s"]);
    expect(ended).toEqual([]);
  });

  it("moves on past a standby that serves another index to the owner that serves the partition", async () => {
    const calls: string[] = [];
    const router = new EngineRouter([[target("s", calls, { failure: notOwned }), target("e0", calls, {})]]);
    expect(await router.placeOrder(order(accountOn(0, 1)), origin)).toEqual({ engine: "e0" });
    expect(calls).toEqual(["s", "e0"]);
  });

  it("never sends a cancel cut on the dying owner to the standby (it may have run)", async () => {
    const calls: string[] = [];
    const router = new EngineRouter(
      [[target("e0", calls, { failure: cut }), target("s", calls, {})]],
      holding(5_000).settings,
    );
    const failed = await router.cancelOrder({ user_id: "u", order_id: orderOn(0, 1) }, origin).catch((e: unknown) => e);
    expect((failed as ServiceError).body()).toEqual({ error: "engine_unavailable" });
    expect(calls).toEqual(["e0"]);
  });
});
