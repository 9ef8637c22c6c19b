// The gateway's engine routing (docs/scale-out.md) against stand-in engines: owners by partition, round-robin
// for calls about no account, and an unreachable engine as engine_unavailable, never a reroute.
import { randomUUID } from "node:crypto";
import { Metadata, status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { idInPartition, partitionOf } from "../kernel/partition.js";
import { ServiceError, fromGrpcError, toGrpcStatus } from "../kernel/errors.js";
import { EngineRouter, type EngineCalls } from "./engine-router.js";
import { untraced } from "./origin.js";

const origin = untraced("r");

/** A stand-in engine answering with its index, or failing every call with `failure`. */
function engine(index: number, calls: number[], failure?: () => Error): EngineCalls {
  const answer = (): Promise<unknown> => {
    calls.push(index);
    return failure === undefined ? Promise.resolve({ engine: index }) : Promise.reject(failure());
  };
  return { call: answer } as unknown as EngineCalls;
}

/** What grpc-js reports when nothing listens at the target. */
const unreachable = (): Error =>
  Object.assign(new Error("14 UNAVAILABLE: No connection established"), {
    code: status.UNAVAILABLE,
    details: "No connection established",
    metadata: new Metadata(),
  });

/** What grpc-js reports for a call past its deadline. */
const timedOut = (): Error =>
  Object.assign(new Error("4 DEADLINE_EXCEEDED: Deadline exceeded"), {
    code: status.DEADLINE_EXCEEDED,
    details: "Deadline exceeded",
    metadata: new Metadata(),
  });

/** An engine's own registry error crossing gRPC. */
const registry = (code: "engine_unavailable" | "not_found") => (): Error => {
  const grpcStatus = toGrpcStatus(new ServiceError(code));
  return Object.assign(new Error(grpcStatus.details), grpcStatus);
};

function accountOn(engineIndex: number, engines: number): string {
  for (;;) {
    const id = randomUUID();
    if (partitionOf(id) % engines === engineIndex) return id;
  }
}

describe("EngineRouter", () => {
  it("names a call past its deadline engine_unavailable, and sends no read of it to another engine", async () => {
    const calls: number[] = [];
    const router = new EngineRouter([0, 1].map((i) => engine(i, calls, i === 0 ? timedOut : undefined)));
    const failed = await router.listTickers(origin).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ServiceError);
    expect(failed).toMatchObject({ code: "engine_unavailable" });
    // Named for the engine even where the listener's own backend is the wallet (the delivery log on /api).
    expect(fromGrpcError(failed, "wallet").code).toBe("engine_unavailable");
    expect(calls).toEqual([0]);
  });

  it("sends account calls to the engine owning partitionOf(account_id) % N, whatever the id's case", async () => {
    const calls: number[] = [];
    const router = new EngineRouter([0, 1, 2].map((i) => engine(i, calls)));
    for (const owner of [0, 1, 2]) {
      const id = accountOn(owner, 3);
      await router.getAccount({ user_id: "u", account_id: id.toUpperCase() }, origin);
      await router.placeOrder({ user_id: "u", account_id: id }, origin);
    }
    expect(calls).toEqual([0, 0, 1, 1, 2, 2]);
  });

  it("sends cancels to the engine owning the partition the order id names", async () => {
    const calls: number[] = [];
    const router = new EngineRouter([0, 1].map((i) => engine(i, calls)));
    await router.cancelOrder({ user_id: "u", order_id: idInPartition(7, randomUUID()) }, origin);
    await router.cancelOrder({ user_id: "u", order_id: idInPartition(8, randomUUID()) }, origin);
    expect(calls).toEqual([1, 0]);
  });

  it("spreads new accounts and catalogue reads round-robin over the engines", async () => {
    const calls: number[] = [];
    const router = new EngineRouter([0, 1].map((i) => engine(i, calls)));
    await router.createAccount({ user_id: "u", plan_id: "p" }, origin);
    await router.createAccount({ user_id: "u", plan_id: "p" }, origin);
    await router.listTickers(origin);
    expect(calls).toEqual([0, 1, 0]);
  });

  it("answers engine_unavailable for an account whose engine is unreachable, without asking another engine", async () => {
    const calls: number[] = [];
    const router = new EngineRouter([engine(0, calls), engine(1, calls, unreachable)]);
    const error = await router.getAccount({ user_id: "u", account_id: accountOn(1, 2) }, origin).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).httpStatus).toBe(503);
    expect((error as ServiceError).body()).toEqual({ error: "engine_unavailable" });
    expect(calls).toEqual([1]);
  });

  it("skips unreachable engines for calls about no account, and is unavailable only when none answers", async () => {
    const calls: number[] = [];
    const router = new EngineRouter([engine(0, calls, unreachable), engine(1, calls)]);
    expect(await router.createAccount({ user_id: "u", plan_id: "p" }, origin)).toEqual({ engine: 1 });
    const down = new EngineRouter([engine(0, [], unreachable), engine(1, [], unreachable)]);
    await expect(down.listTickers(origin)).rejects.toMatchObject({ code: "engine_unavailable" });
  });

  it("never sends a write to a second engine once the first may have run it (a call cut after it left)", async () => {
    const cut = (): Error =>
      Object.assign(new Error("14 UNAVAILABLE: Connection dropped"), {
        code: status.UNAVAILABLE,
        details: "Connection dropped",
        metadata: new Metadata(),
      });
    const calls: number[] = [];
    const router = new EngineRouter([engine(0, calls, cut), engine(1, calls)]);
    await expect(router.createAccount({ user_id: "u", plan_id: "p" }, origin)).rejects.toMatchObject({
      code: "engine_unavailable",
    });
    expect(calls).toEqual([0]);
    // A read may go on to the next engine either way.
    const reads: number[] = [];
    const reader = new EngineRouter([engine(0, reads, cut), engine(1, reads)]);
    expect(await reader.listTickers(origin)).toEqual({ engine: 1 });
  });

  it("passes an engine's own errors through to the registry mapping", async () => {
    const router = new EngineRouter([
      engine(0, [], registry("engine_unavailable")),
      engine(1, [], registry("not_found")),
    ]);
    const refused = await router.getAccount({ user_id: "u", account_id: accountOn(0, 2) }, origin).catch(fromGrpcError);
    expect(refused).toMatchObject({ code: "engine_unavailable" });
    const missing = await router.getAccount({ user_id: "u", account_id: accountOn(1, 2) }, origin).catch(fromGrpcError);
    expect(missing).toMatchObject({ code: "not_found" });
  });
});

describe("a call cut by a broken session", () => {
  /** What grpc-js reports when the HTTP/2 session a call was on is reset under it. */
  const reset = (): Error =>
    Object.assign(new Error("13 INTERNAL: Received RST_STREAM with code 2"), {
      code: status.INTERNAL,
      details: "Received RST_STREAM with code 2 triggered by internal client error: Session closed with error code 2",
      metadata: new Metadata(),
    });

  /** An engine whose first `failures` calls fail with `failure`, the later ones answer. */
  function flaky(calls: number[], failures: number, failure: () => Error): EngineCalls {
    return {
      call: () => {
        calls.push(0);
        return calls.length <= failures ? Promise.reject(failure()) : Promise.resolve({ engine: 0 });
      },
    } as unknown as EngineCalls;
  }

  it("sends a read once more to the same engine, and answers with the second answer", async () => {
    const calls: number[] = [];
    const router = new EngineRouter([flaky(calls, 1, reset)]);
    await expect(router.getAccount({ account_id: accountOn(0, 1) }, origin)).resolves.toEqual({ engine: 0 });
    expect(calls).toEqual([0, 0]);
  });

  it("sends a read only once more: a second break is engine_unavailable", async () => {
    const calls: number[] = [];
    const router = new EngineRouter([flaky(calls, 2, reset)]);
    const failed = await router.getAccount({ account_id: accountOn(0, 1) }, origin).catch((e: unknown) => e);
    expect(fromGrpcError(failed).code).toBe("engine_unavailable");
    expect(calls).toEqual([0, 0]);
  });

  it("never sends a write again (it may have run), and names it engine_unavailable, not engine_error", async () => {
    const calls: number[] = [];
    const router = new EngineRouter([flaky(calls, 1, reset)]);
    const request = { account_id: accountOn(0, 1), symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "1" };
    const failed = await router.placeOrder(request, origin).catch((e: unknown) => e);
    expect(fromGrpcError(failed).code).toBe("engine_unavailable");
    expect(calls).toEqual([0]);
  });

  it("does not send a read again that the engine itself refused or that ran out of time", async () => {
    for (const failure of [registry("not_found"), timedOut]) {
      const calls: number[] = [];
      const router = new EngineRouter([flaky(calls, 1, failure)]);
      await router.getAccount({ account_id: accountOn(0, 1) }, origin).catch(() => undefined);
      expect(calls).toEqual([0]);
    }
  });
});
