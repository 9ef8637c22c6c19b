// Scale-out routing (docs/scale-out.md): the gateway talks to N engine processes, engine k owning the
// partitions p % N == k. Account calls go to the owner of partitionOf(account_id), order calls to the owner of
// the partition the order id names, new accounts round-robin (the engine mints the id in a partition it owns),
// and calls that read no actor (catalogue, calendar, webhook events and deliveries) to any engine that answers.
// Each method's route is in gateway/engine-methods.ts. An engine that cannot be reached is
// `engine_unavailable` (503), never a silent reroute: only its owner may serve a partition.
import { status, type Client } from "@grpc/grpc-js";
import { ServiceError, isUnreachable, neverSent, readAgainOnBreak } from "../kernel/errors.js";
import { PARTITIONS, engineOfPartition, partitionOf, partitionOfId } from "../kernel/partition.js";
import {
  ENGINE_METHODS,
  engineMethods,
  type AnyRequest,
  type EngineMethod,
  type EngineMethods,
  type Route,
} from "./engine-methods.js";
import type { Origin } from "./origin.js";

/** One engine, as the router needs it (EngineApi in gateway/clients.ts). */
export interface EngineCalls {
  readonly client: Client;
  call(method: EngineMethod, request: AnyRequest, origin: Origin): Promise<unknown>;
}

/** engine_unavailable for a call that never reached the engine: safe to send to another one. */
class NotSentError extends ServiceError {}

/**
 * engine_unavailable for a call past its deadline (GRPC_DEADLINE_MS): named for the engine on either listener,
 * and not sent to another engine (the database they share may be what is slow).
 */
class TimedOutError extends ServiceError {}

function isDeadline(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === status.DEADLINE_EXCEEDED;
}

/** The id a route by account or order reads ("" when the request has none: its owner answers 404). */
function idOf(request: AnyRequest, field: "account_id" | "order_id"): string {
  const value = (request as Partial<Record<typeof field, unknown>>)[field];
  return typeof value === "string" ? value : "";
}

class Router {
  private next = 0;

  constructor(readonly engines: readonly EngineCalls[]) {
    if (engines.length < 1 || engines.length > PARTITIONS)
      throw new Error(`1 to ${PARTITIONS} engines, not ${engines.length}`);
    Object.assign(
      this,
      engineMethods((method, request, origin) => this.send(method, request, origin)),
    );
  }

  /** The engine owning an account (canonical ids are lower case, as the engine hashes them). */
  engineOfAccount(accountId: string): number {
    return engineOfPartition(partitionOf(accountId.toLowerCase()), this.engines.length);
  }

  /** The engine owning the partition an order id names; engine 0 for an id no engine minted (it answers 404). */
  engineOfOrder(orderId: string): number {
    const partition = partitionOfId(orderId.toLowerCase());
    return partition === undefined ? 0 : engineOfPartition(partition, this.engines.length);
  }

  /**
   * `method` on the engine its route (gateway/engine-methods.ts) names. A read cut by a broken session or
   * connection is sent once more to the same engine (its session reopens); a write is not (it may have run).
   */
  private send(method: EngineMethod, request: AnyRequest, origin: Origin): Promise<unknown> {
    const spec: { route: Route; read?: true } = ENGINE_METHODS[method];
    const call =
      spec.read === true
        ? (engine: EngineCalls): Promise<unknown> => readAgainOnBreak(() => engine.call(method, request, origin))
        : (engine: EngineCalls): Promise<unknown> => engine.call(method, request, origin);
    switch (spec.route) {
      case "account":
        return this.on(this.engineOfAccount(idOf(request, "account_id")), call);
      case "order":
        return this.on(this.engineOfOrder(idOf(request, "order_id")), call);
      case "read":
        return this.any(call, false);
      case "write":
        return this.any(call, true);
    }
  }

  private async on<R>(index: number, call: (engine: EngineCalls) => Promise<R>): Promise<R> {
    const engine = this.engines[index];
    if (engine === undefined) throw new Error(`no engine ${index}`);
    try {
      return await call(engine);
    } catch (error) {
      if (neverSent(error)) throw new NotSentError("engine_unavailable", {}, `engine ${index} is unreachable`);
      if (isUnreachable(error)) throw new ServiceError("engine_unavailable", {}, `engine ${index} is unreachable`);
      if (isDeadline(error))
        throw new TimedOutError("engine_unavailable", {}, `engine ${index} did not answer in time`);
      throw error;
    }
  }

  /**
   * Starting with the next engine in turn, the first that can be reached; engine_unavailable if none. A
   * write (`write`) moves on only when the call provably never left (no connection): one cut after it was sent
   * may have run, and sending it again elsewhere could do it twice (two accounts for one CreateAccount).
   */
  private async any<R>(call: (engine: EngineCalls) => Promise<R>, write: boolean): Promise<R> {
    const count = this.engines.length;
    const first = this.next;
    this.next = (this.next + 1) % count;
    for (let step = 0; ; step++) {
      try {
        return await this.on((first + step) % count, call);
      } catch (error) {
        const unavailable =
          error instanceof ServiceError && error.code === "engine_unavailable" && !(error instanceof TimedOutError);
        const retry = write ? error instanceof NotSentError : unavailable;
        if (!retry || step === count - 1) throw error;
      }
    }
  }
}

/** Every engine process, each call routed to the one its route names; one function per engine method. */
export type EngineRouter = Router & EngineMethods;
/** The constructor fills in the table's functions (gateway/engine-methods.ts), which the class cannot declare. */
export const EngineRouter = Router as new (engines: readonly EngineCalls[]) => EngineRouter;
