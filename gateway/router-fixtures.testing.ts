// Test-only: what the router's tests with stand-in engines send and how their engines fail
// (gateway/engine-hold.test.ts, gateway/engine-router.standby.test.ts, gateway/engine-router.request-ids.test.ts).
import { randomUUID } from "node:crypto";
import { Metadata, status } from "@grpc/grpc-js";
import { ServiceError, toGrpcStatus } from "../kernel/errors.js";
import { idInPartition, partitionOf } from "../kernel/partition.js";
import type { HoldMetrics, HoldOutcome, HoldSettings } from "./engine-hold.js";

/** A random account id in a partition of engine `engine` of `engines`. */
export function accountOn(engine: number, engines: number): string {
  for (;;) {
    const id = randomUUID();
    if (partitionOf(id) % engines === engine) return id;
  }
}

/** A random order id minted in a partition of engine `engine` of `engines`. */
export function orderOn(engine: number, engines: number): string {
  return idInPartition(partitionOf(accountOn(engine, engines)), randomUUID());
}

/** A MARKET order request of `accountId`. */
export const order = (accountId: string) => ({
  user_id: "u",
  account_id: accountId,
  symbol: "BTC-USD",
  side: "BUY",
  kind: "MARKET",
  quantity: "0.01",
});

/** A failed gRPC call as grpc-js reports it. */
export const grpcError = (code: status, details: string, metadata = new Metadata()): Error =>
  Object.assign(new Error(`${code} ${details}`), { code, details, metadata });

/** An engine's refusal as not serving (draining, or another owner's partition): refused before anything ran. */
export const notServingError = (details: string): Error => {
  const refused = toGrpcStatus(new ServiceError("engine_not_serving", {}, details));
  return grpcError(refused.code ?? status.UNAVAILABLE, refused.details ?? "", refused.metadata);
};

/** Nothing listens at the target. */
export const noConnection = (): Error => grpcError(status.UNAVAILABLE, "No connection established");

/** The connection dropped after the call was sent: it may have run. */
export const cut = (): Error => grpcError(status.UNAVAILABLE, "Connection dropped");

/** Hold settings on a clock that each pause moves forward; what the hold reported (outcome, seconds held). */
export function holding(holdMs: number, maxHeld = 100): { settings: HoldSettings; ended: [HoldOutcome, number][] } {
  let clock = 0;
  const ended: [HoldOutcome, number][] = [];
  const metrics: HoldMetrics = {
    ended: (outcome, seconds) => ended.push([outcome, seconds]),
    held: () => undefined,
  };
  const sleep = (ms: number): Promise<void> => {
    clock += ms;
    return Promise.resolve();
  };
  return { settings: { holdMs, maxHeld, now: () => clock, sleep, metrics }, ended };
}
