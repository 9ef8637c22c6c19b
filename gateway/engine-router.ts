// Scale-out routing (docs/scale-out.md): the gateway talks to N engine processes, engine k owning the
// partitions p % N == k. Account calls go to the owner of partitionOf(account_id), order calls to the owner of
// the partition the order id names, new accounts round-robin (the engine mints the id in a partition it owns),
// and calls that read no actor (catalogue, calendar, webhook events and deliveries) to any engine that answers.
// Each method's route is in gateway/engine-methods.ts. Engine k may have several targets (replicas of index k,
// only one holding its leases at a time): a call goes to the one that served last. While engine k hands its
// partitions over (a target refused a call as not serving, or ended its session; or, of several targets, none
// ran a call within HANDOVER_HOLD_MS of the last one served), a call it provably did not run (refused, or never
// reached it), a read, or a place or close call (sent again with the request id the router minted for it, which
// the engine deduplicates: docs/engine.md, "Request ids") is held and sent again, to each target in turn
// (gateway/engine-hold.ts); any other failure is `engine_unavailable` (503), never a silent reroute: any other
// call that may have run is never sent twice.
import { randomUUID } from "node:crypto";
import { status, type Client } from "@grpc/grpc-js";
import {
  SESSION_ENDED_UNREAD,
  ServiceError,
  fromGrpcError,
  isBrokenCall,
  isUnreachable,
  neverSent,
  readAgainOnBreak,
} from "../kernel/errors.js";
import { PARTITIONS, engineOfPartition, partitionOf, partitionOfId } from "../kernel/partition.js";
import {
  ENGINE_METHODS,
  engineMethods,
  type AnyRequest,
  type EngineMethod,
  type EngineMethods,
  type Route,
} from "./engine-methods.js";
import { HandoverHold, type HoldSettings } from "./engine-hold.js";
import type { Origin } from "./origin.js";

/** One engine, as the router needs it (EngineApi in gateway/clients.ts). */
export interface EngineCalls {
  readonly client: Client;
  call(method: EngineMethod, request: AnyRequest, origin: Origin): Promise<unknown>;
}

/**
 * engine_unavailable for a call the engine provably did not run (it never reached it, or the engine refused it
 * as not serving the partition): safe to send again, to it or another target.
 */
class NotSentError extends ServiceError {}

/** NotSentError that says the engine hands its partitions over: it refused the call, or ended its session. */
class HandingOverError extends NotSentError {}

/**
 * engine_unavailable for a call cut after it was sent: it may have run (only a read, or a call the engine
 * deduplicates by its request id, may be sent again).
 */
class MayHaveRunError extends ServiceError {}

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

const hasClientId = (request: AnyRequest): boolean =>
  typeof (request as { client_id?: unknown }).client_id === "string";

/**
 * The engine's replay of a place or close that the router sent again with its request id, as the first send
 * would have been answered: `created`, or `rejected` for an order the decision rejected (its status REJECTED),
 * so the caller, who sent it once, sees no `Idempotent-Replayed`.
 */
function asFirstAnswer(answer: unknown): unknown {
  if (typeof answer !== "object" || answer === null || !("outcome" in answer) || answer.outcome !== "replayed") {
    return answer;
  }
  const order = (answer as { order?: { status?: unknown } | null }).order;
  return { ...answer, outcome: order?.status === "REJECTED" ? "rejected" : "created" };
}

/** Engine k's targets: one, or several replicas of index k (ENGINE_GRPC_TARGETS entry `a|b`). */
export type EngineTargets = EngineCalls | readonly EngineCalls[];

const isTargetList = (entry: EngineTargets): entry is readonly EngineCalls[] => Array.isArray(entry);

/** An engine's own answer that it did not run the call: it does not serve the partition now. */
function notServed(error: unknown): boolean {
  return typeof error === "object" && error !== null && "metadata" in error && notServingCode(error);
}
const notServingCode = (error: object): boolean => fromGrpcError(error).code === "engine_not_serving";
/** A session call its engine never read: the engine ended the session cleanly (it is stopping). */
const endedUnread = (error: unknown): boolean =>
  neverSent(error) && (error as { details?: unknown }).details === SESSION_ENDED_UNREAD;

class Router {
  private next = 0;
  /** Engine k's targets. */
  readonly targets: readonly (readonly EngineCalls[])[];
  /** Per engine, the target that served last (where calls go first). */
  private readonly serving: number[];
  private readonly hold: HandoverHold;

  constructor(engines: readonly EngineTargets[], hold: HoldSettings = { holdMs: 0, maxHeld: 0 }) {
    if (engines.length < 1 || engines.length > PARTITIONS)
      throw new Error(`1 to ${PARTITIONS} engines, not ${engines.length}`);
    this.targets = engines.map((entry) => (isTargetList(entry) ? entry : [entry]));
    if (this.targets.some((entry) => entry.length === 0)) throw new Error("an engine without a target");
    this.serving = this.targets.map(() => 0);
    this.hold = new HandoverHold(hold);
    Object.assign(
      this,
      engineMethods((method, request, origin) => this.send(method, request, origin)),
    );
  }

  /** The target of engine `index` that served it last (where its calls, and its account streams, go first). */
  servingTarget(index: number): number {
    return this.serving[index] ?? 0;
  }

  /** Engine `index` shows it hands its partitions over (a target ended its session cleanly): hold its calls. */
  handingOver(index: number): void {
    this.hold.begin(index);
  }

  /** Calls held right now for a partition in hand-over. */
  get held(): number {
    return this.hold.held;
  }

  /** The engine owning an account (canonical ids are lower case, as the engine hashes them). */
  engineOfAccount(accountId: string): number {
    return engineOfPartition(partitionOf(accountId.toLowerCase()), this.targets.length);
  }

  /** The engine owning the partition an order id names; engine 0 for an id no engine minted (it answers 404). */
  engineOfOrder(orderId: string): number {
    const partition = partitionOfId(orderId.toLowerCase());
    return partition === undefined ? 0 : engineOfPartition(partition, this.targets.length);
  }

  /**
   * `method` on the engine its route (gateway/engine-methods.ts) names. A read cut by a broken session or
   * connection is sent once more to the same engine (its session reopens); a write is not (it may have run). A
   * deduplicated write carries a request id minted here, the same on every send of this call.
   */
  private send(method: EngineMethod, request: AnyRequest, origin: Origin): Promise<unknown> {
    const spec: { route: Route; read?: true; deduplicated?: true } = ENGINE_METHODS[method];
    const read = spec.read === true;
    const sent = spec.deduplicated === true ? { ...request, request_id: randomUUID() } : request;
    // Without a client_id, a replay can only answer this call's own resend: the caller sent it once.
    const once = spec.deduplicated === true && !hasClientId(request);
    const call = read
      ? (engine: EngineCalls): Promise<unknown> => readAgainOnBreak(() => engine.call(method, sent, origin))
      : once
        ? async (engine: EngineCalls): Promise<unknown> => asFirstAnswer(await engine.call(method, sent, origin))
        : (engine: EngineCalls): Promise<unknown> => engine.call(method, sent, origin);
    // A call that may have run is sent again (within a hold) only when running it twice does nothing more.
    const resend = read || spec.deduplicated === true;
    switch (spec.route) {
      case "account":
        return this.owner(this.engineOfAccount(idOf(request, "account_id")), call, resend);
      case "order":
        return this.owner(this.engineOfOrder(idOf(request, "order_id")), call, resend);
      case "read":
        return this.any(call, false);
      case "write":
        return this.any(call, true);
    }
  }

  /**
   * A call to the owner of a partition: each of engine `index`'s targets in turn, starting with the one that
   * served last; while none serves it and it provably did not run (or, `resend`, running it again does nothing
   * more), it is held and tried again until the hold's bound, then engine_unavailable.
   */
  private async owner<R>(index: number, call: (engine: EngineCalls) => Promise<R>, resend: boolean): Promise<R> {
    const targets = this.targets[index];
    if (targets === undefined) throw new Error(`no engine ${index}`);
    let held: ReturnType<HandoverHold["enter"]>;
    try {
      for (;;) {
        const first = this.serving[index] ?? 0;
        let unavailable: ServiceError | undefined;
        for (let step = 0; step < targets.length; step++) {
          const at = (first + step) % targets.length;
          try {
            const result = await this.on(index, targets[at] as EngineCalls, call);
            this.serving[index] = at;
            this.hold.served(index);
            return result;
          } catch (error) {
            const again = error instanceof NotSentError || (resend && error instanceof MayHaveRunError);
            if (!again) throw error;
            if (error instanceof HandingOverError) this.hold.begin(index);
            unavailable = error;
          }
        }
        // Held only while the engine hands over: one of its targets said so within HANDOVER_HOLD_MS, or, for an
        // entry of several targets, every one of them just proved the call did not run within HANDOVER_HOLD_MS of
        // the last call the entry served (the stopping engine gone before its successor or standby listens, or a
        // killed owner before the standby took its index). An engine of one target that stopped answering, or an
        // entry that has not served for HANDOVER_HOLD_MS, is 503 at once, as without a hold.
        const moving = this.hold.handingOver(index) || (targets.length > 1 && this.hold.servedLately(index));
        held ??= moving ? this.hold.enter() : undefined;
        if (held === undefined || !(await held.wait())) {
          held = undefined; // left the hold (expired) or never entered it
          throw new ServiceError("engine_unavailable", {}, unavailable?.message);
        }
      }
    } finally {
      held?.sent();
    }
  }

  /** One call to one engine target, its failure named for the router (see the error classes above). */
  private async on<R>(index: number, engine: EngineCalls, call: (engine: EngineCalls) => Promise<R>): Promise<R> {
    try {
      return await call(engine);
    } catch (error) {
      if (notServed(error) || endedUnread(error))
        throw new HandingOverError("engine_unavailable", {}, `engine ${index} does not serve the partition now`);
      if (neverSent(error)) throw new NotSentError("engine_unavailable", {}, `engine ${index} is unreachable`);
      if (isUnreachable(error) || isBrokenCall(error))
        throw new MayHaveRunError("engine_unavailable", {}, `engine ${index} is unreachable`);
      if (isDeadline(error))
        throw new TimedOutError("engine_unavailable", {}, `engine ${index} did not answer in time`);
      throw error;
    }
  }

  /**
   * Starting with the next engine in turn (each of its targets in turn), the first that can be reached;
   * engine_unavailable if none. A write (`write`) moves on only when the call provably did not run (no
   * connection, or the engine refused it as not serving): one cut after it was sent may have run, and sending
   * it again elsewhere could do it twice (two accounts for one CreateAccount).
   */
  private async any<R>(call: (engine: EngineCalls) => Promise<R>, write: boolean): Promise<R> {
    const count = this.targets.length;
    const first = this.next;
    this.next = (this.next + 1) % count;
    const tries = this.targets.flatMap((_, step) => {
      const index = (first + step) % count;
      const targets = this.targets[index] ?? [];
      const from = this.serving[index] ?? 0;
      return targets.map((_target, t) => ({ index, at: (from + t) % targets.length }));
    });
    for (const [step, { index, at }] of tries.entries()) {
      try {
        const result = await this.on(index, this.targets[index]?.[at] as EngineCalls, call);
        this.serving[index] = at;
        return result;
      } catch (error) {
        const retry = error instanceof NotSentError || (!write && error instanceof MayHaveRunError);
        if (!retry || step === tries.length - 1) throw error;
      }
    }
    throw new Error("no engine");
  }
}

/** Every engine process, each call routed to the one its route names; one function per engine method. */
export type EngineRouter = Router & EngineMethods;
/** The constructor fills in the table's functions (gateway/engine-methods.ts), which the class cannot declare. */
export const EngineRouter = Router as new (engines: readonly EngineTargets[], hold?: HoldSettings) => EngineRouter;
