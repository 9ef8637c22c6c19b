// Scale-out routing (docs/scale-out.md): the gateway talks to N engine processes, engine k owning the partitions
// p % N == k. Account calls go to the owner of partitionOf(account_id), order calls to the owner of the partition
// the order id names, new accounts round-robin (the engine mints the id in a partition it owns), and calls that
// read no actor (catalogue, calendar, webhook events and deliveries) to any engine that answers. An engine that cannot
// be reached is `engine_unavailable` (503), never a silent reroute: only its owner may serve a partition.
import { Metadata, status } from "@grpc/grpc-js";
import { ERROR_METADATA_KEY, ServiceError } from "../kernel/errors.js";
import { PARTITIONS, engineOfPartition, partitionOf, partitionOfId } from "../engine/shard/partition.js";
import type { EngineApi } from "./clients.js";

/** A gRPC failure that never reached an engine's handler (connection refused, channel down). */
function isUnreachable(error: unknown): boolean {
  if (typeof error !== "object" || error === null || !("code" in error) || error.code !== status.UNAVAILABLE) {
    return false;
  }
  // An engine's own engine_unavailable carries the registry code and is mapped as usual.
  const metadata = "metadata" in error ? error.metadata : undefined;
  return !(metadata instanceof Metadata) || metadata.get(ERROR_METADATA_KEY).length === 0;
}

export class EngineRouter {
  private next = 0;

  constructor(readonly engines: readonly EngineApi[]) {
    if (engines.length < 1 || engines.length > PARTITIONS)
      throw new Error(`1 to ${PARTITIONS} engines, not ${engines.length}`);
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

  private async on<R>(index: number, call: (engine: EngineApi) => Promise<R>): Promise<R> {
    const engine = this.engines[index];
    if (engine === undefined) throw new Error(`no engine ${index}`);
    try {
      return await call(engine);
    } catch (error) {
      if (isUnreachable(error)) throw new ServiceError("engine_unavailable", {}, `engine ${index} is unreachable`);
      throw error;
    }
  }

  /** Starting with the next engine in turn, the first that can be reached; engine_unavailable if none. */
  private async any<R>(call: (engine: EngineApi) => Promise<R>): Promise<R> {
    const count = this.engines.length;
    const first = this.next;
    this.next = (this.next + 1) % count;
    for (let step = 0; ; step++) {
      try {
        return await this.on((first + step) % count, call);
      } catch (error) {
        const unavailable = error instanceof ServiceError && error.code === "engine_unavailable";
        if (!unavailable || step === count - 1) throw error;
      }
    }
  }

  private byAccount<R>(accountId: string, call: (engine: EngineApi) => Promise<R>): Promise<R> {
    return this.on(this.engineOfAccount(accountId), call);
  }

  private byOrder<R>(orderId: string, call: (engine: EngineApi) => Promise<R>): Promise<R> {
    return this.on(this.engineOfOrder(orderId), call);
  }

  listTickers: EngineApi["listTickers"] = (requestId) => this.any((e) => e.listTickers(requestId));
  listPlans: EngineApi["listPlans"] = (requestId) => this.any((e) => e.listPlans(requestId));
  getCalendar: EngineApi["getCalendar"] = (request, requestId) => this.any((e) => e.getCalendar(request, requestId));
  listDeliveries: EngineApi["listDeliveries"] = (request, requestId) =>
    this.any((e) => e.listDeliveries(request, requestId));
  redeliver: EngineApi["redeliver"] = (request, requestId) => this.any((e) => e.redeliver(request, requestId));

  /** Round-robin over the engines that answer: each mints the id in a partition it owns. */
  createAccount: EngineApi["createAccount"] = (request, requestId) =>
    this.any((e) => e.createAccount(request, requestId));

  getAccount: EngineApi["getAccount"] = (ref, requestId) =>
    this.byAccount(ref.account_id ?? "", (e) => e.getAccount(ref, requestId));
  getSummary: EngineApi["getSummary"] = (ref, requestId) =>
    this.byAccount(ref.account_id ?? "", (e) => e.getSummary(ref, requestId));
  listPositions: EngineApi["listPositions"] = (ref, requestId) =>
    this.byAccount(ref.account_id ?? "", (e) => e.listPositions(ref, requestId));
  listPositionHistory: EngineApi["listPositionHistory"] = (request, requestId) =>
    this.byAccount(request.account_id ?? "", (e) => e.listPositionHistory(request, requestId));
  listTrades: EngineApi["listTrades"] = (request, requestId) =>
    this.byAccount(request.account_id ?? "", (e) => e.listTrades(request, requestId));
  listOrders: EngineApi["listOrders"] = (ref, requestId) =>
    this.byAccount(ref.account_id ?? "", (e) => e.listOrders(ref, requestId));
  listFunding: EngineApi["listFunding"] = (ref, requestId) =>
    this.byAccount(ref.account_id ?? "", (e) => e.listFunding(ref, requestId));
  listBreaches: EngineApi["listBreaches"] = (ref, requestId) =>
    this.byAccount(ref.account_id ?? "", (e) => e.listBreaches(ref, requestId));
  listViolations: EngineApi["listViolations"] = (ref, requestId) =>
    this.byAccount(ref.account_id ?? "", (e) => e.listViolations(ref, requestId));
  getAnalytics: EngineApi["getAnalytics"] = (ref, requestId) =>
    this.byAccount(ref.account_id ?? "", (e) => e.getAnalytics(ref, requestId));
  /** The catch-up log is committed rows of the shared database: any engine reads it, even the owner's down. */
  listEvents: EngineApi["listEvents"] = (request, requestId) => this.any((e) => e.listEvents(request, requestId));
  placeOrder: EngineApi["placeOrder"] = (request, requestId) =>
    this.byAccount(request.account_id ?? "", (e) => e.placeOrder(request, requestId));
  testOrder: EngineApi["testOrder"] = (request, requestId) =>
    this.byAccount(request.account_id ?? "", (e) => e.testOrder(request, requestId));
  closePosition: EngineApi["closePosition"] = (request, requestId) =>
    this.byAccount(request.account_id ?? "", (e) => e.closePosition(request, requestId));
  cancelOrder: EngineApi["cancelOrder"] = (ref, requestId) =>
    this.byOrder(ref.order_id ?? "", (e) => e.cancelOrder(ref, requestId));
  amendOrder: EngineApi["amendOrder"] = (request, requestId) =>
    this.byOrder(request.order_id ?? "", (e) => e.amendOrder(request, requestId));
}
