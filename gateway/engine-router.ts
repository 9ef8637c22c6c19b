// Scale-out routing (docs/scale-out.md): the gateway talks to N engine processes, engine k owning the
// partitions p % N == k. Account calls go to the owner of partitionOf(account_id), order calls to the owner of
// the partition the order id names, new accounts round-robin (the engine mints the id in a partition it owns),
// and calls that read no actor (catalogue, calendar, webhook events and deliveries) to any engine that answers.
// An engine that cannot be reached is `engine_unavailable` (503), never a silent reroute: only its owner may
// serve a partition.
import { Metadata, status, type Client } from "@grpc/grpc-js";
import { ERROR_METADATA_KEY, ServiceError } from "../kernel/errors.js";
import { PARTITIONS, engineOfPartition, partitionOf, partitionOfId } from "../kernel/partition.js";
import type { Origin } from "./origin.js";
import type { ListTickersResponse__Output } from "../proto/gen/engine/v1/ListTickersResponse.js";
import type { ListPlansResponse__Output } from "../proto/gen/engine/v1/ListPlansResponse.js";
import type { Account__Output } from "../proto/gen/engine/v1/Account.js";
import type { AccountRef } from "../proto/gen/engine/v1/AccountRef.js";
import type { AmendOrderRequest } from "../proto/gen/engine/v1/AmendOrderRequest.js";
import type { ClosePositionRequest } from "../proto/gen/engine/v1/ClosePositionRequest.js";
import type { CreateAccountRequest } from "../proto/gen/engine/v1/CreateAccountRequest.js";
import type { ListClosedPositionsResponse__Output } from "../proto/gen/engine/v1/ListClosedPositionsResponse.js";
import type { ListFillsResponse__Output } from "../proto/gen/engine/v1/ListFillsResponse.js";
import type { ListOrdersResponse__Output } from "../proto/gen/engine/v1/ListOrdersResponse.js";
import type { ListPositionsResponse__Output } from "../proto/gen/engine/v1/ListPositionsResponse.js";
import type { ListRangeRequest } from "../proto/gen/engine/v1/ListRangeRequest.js";
import type { OrderRef } from "../proto/gen/engine/v1/OrderRef.js";
import type { OrderReply__Output } from "../proto/gen/engine/v1/OrderReply.js";
import type { OrderResponse__Output } from "../proto/gen/engine/v1/OrderResponse.js";
import type { PlaceOrderRequest } from "../proto/gen/engine/v1/PlaceOrderRequest.js";
import type { Summary__Output } from "../proto/gen/engine/v1/Summary.js";
import type { Calendar__Output } from "../proto/gen/engine/v1/Calendar.js";
import type { GetCalendarRequest } from "../proto/gen/engine/v1/GetCalendarRequest.js";
import type { FundingReport__Output } from "../proto/gen/engine/v1/FundingReport.js";
import type { ListBreachesResponse__Output } from "../proto/gen/engine/v1/ListBreachesResponse.js";
import type { ListViolationsResponse__Output } from "../proto/gen/engine/v1/ListViolationsResponse.js";
import type { Analytics__Output } from "../proto/gen/engine/v1/Analytics.js";
import type { OrderTestResponse__Output } from "../proto/gen/engine/v1/OrderTestResponse.js";
import type { Delivery__Output } from "../proto/gen/engine/v1/Delivery.js";
import type { ListDeliveriesRequest } from "../proto/gen/engine/v1/ListDeliveriesRequest.js";
import type { ListDeliveriesResponse__Output } from "../proto/gen/engine/v1/ListDeliveriesResponse.js";
import type { ListEventsRequest } from "../proto/gen/engine/v1/ListEventsRequest.js";
import type { ListEventsResponse__Output } from "../proto/gen/engine/v1/ListEventsResponse.js";
import type { RedeliverRequest } from "../proto/gen/engine/v1/RedeliverRequest.js";

/** One engine's calls, as the router needs them (EngineApi in gateway/clients.ts has them). */
export interface EngineCalls {
  readonly client: Client;
  listTickers(origin: Origin): Promise<ListTickersResponse__Output>;
  listPlans(origin: Origin): Promise<ListPlansResponse__Output>;
  getCalendar(request: GetCalendarRequest, origin: Origin): Promise<Calendar__Output>;
  createAccount(request: CreateAccountRequest, origin: Origin): Promise<Account__Output>;
  getAccount(ref: AccountRef, origin: Origin): Promise<Account__Output>;
  getSummary(ref: AccountRef, origin: Origin): Promise<Summary__Output>;
  listPositions(ref: AccountRef, origin: Origin): Promise<ListPositionsResponse__Output>;
  listPositionHistory(request: ListRangeRequest, origin: Origin): Promise<ListClosedPositionsResponse__Output>;
  listTrades(request: ListRangeRequest, origin: Origin): Promise<ListFillsResponse__Output>;
  listOrders(ref: AccountRef, origin: Origin): Promise<ListOrdersResponse__Output>;
  listFunding(ref: AccountRef, origin: Origin): Promise<FundingReport__Output>;
  listEvents(request: ListEventsRequest, origin: Origin): Promise<ListEventsResponse__Output>;
  listDeliveries(request: ListDeliveriesRequest, origin: Origin): Promise<ListDeliveriesResponse__Output>;
  redeliver(request: RedeliverRequest, origin: Origin): Promise<Delivery__Output>;
  listBreaches(ref: AccountRef, origin: Origin): Promise<ListBreachesResponse__Output>;
  listViolations(ref: AccountRef, origin: Origin): Promise<ListViolationsResponse__Output>;
  getAnalytics(ref: AccountRef, origin: Origin): Promise<Analytics__Output>;
  placeOrder(request: PlaceOrderRequest, origin: Origin): Promise<OrderResponse__Output>;
  cancelOrder(ref: OrderRef, origin: Origin): Promise<OrderReply__Output>;
  amendOrder(request: AmendOrderRequest, origin: Origin): Promise<OrderReply__Output>;
  closePosition(request: ClosePositionRequest, origin: Origin): Promise<OrderResponse__Output>;
  testOrder(request: PlaceOrderRequest, origin: Origin): Promise<OrderTestResponse__Output>;
}

/** A gRPC failure that never reached an engine's handler (connection refused, channel down). */
function isUnreachable(error: unknown): boolean {
  if (typeof error !== "object" || error === null || !("code" in error) || error.code !== status.UNAVAILABLE) {
    return false;
  }
  // An engine's own engine_unavailable carries the registry code and is mapped as usual.
  const metadata = "metadata" in error ? error.metadata : undefined;
  return !(metadata instanceof Metadata) || metadata.get(ERROR_METADATA_KEY).length === 0;
}

/**
 * An unreachable engine's failure that proves the call never left this process: grpc-js had no connection to
 * send it on. A call cut after it was sent (a dropped connection, a reset stream) may have run on the engine.
 */
function neverSent(error: unknown): boolean {
  if (!isUnreachable(error)) return false;
  const details = typeof error === "object" && error !== null && "details" in error ? error.details : undefined;
  return typeof details === "string" && details.startsWith("No connection established");
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

export class EngineRouter {
  private next = 0;

  constructor(readonly engines: readonly EngineCalls[]) {
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
  private async any<R>(call: (engine: EngineCalls) => Promise<R>, write = false): Promise<R> {
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

  private byAccount<R>(accountId: string, call: (engine: EngineCalls) => Promise<R>): Promise<R> {
    return this.on(this.engineOfAccount(accountId), call);
  }

  private byOrder<R>(orderId: string, call: (engine: EngineCalls) => Promise<R>): Promise<R> {
    return this.on(this.engineOfOrder(orderId), call);
  }

  listTickers: EngineCalls["listTickers"] = (origin) => this.any((e) => e.listTickers(origin));
  listPlans: EngineCalls["listPlans"] = (origin) => this.any((e) => e.listPlans(origin));
  getCalendar: EngineCalls["getCalendar"] = (request, origin) => this.any((e) => e.getCalendar(request, origin));
  listDeliveries: EngineCalls["listDeliveries"] = (request, origin) =>
    this.any((e) => e.listDeliveries(request, origin));
  redeliver: EngineCalls["redeliver"] = (request, origin) => this.any((e) => e.redeliver(request, origin), true);

  /** Round-robin over the engines that answer: each mints the id in a partition it owns. */
  createAccount: EngineCalls["createAccount"] = (request, origin) =>
    this.any((e) => e.createAccount(request, origin), true);

  getAccount: EngineCalls["getAccount"] = (ref, origin) =>
    this.byAccount(ref.account_id ?? "", (e) => e.getAccount(ref, origin));
  getSummary: EngineCalls["getSummary"] = (ref, origin) =>
    this.byAccount(ref.account_id ?? "", (e) => e.getSummary(ref, origin));
  listPositions: EngineCalls["listPositions"] = (ref, origin) =>
    this.byAccount(ref.account_id ?? "", (e) => e.listPositions(ref, origin));
  listPositionHistory: EngineCalls["listPositionHistory"] = (request, origin) =>
    this.byAccount(request.account_id ?? "", (e) => e.listPositionHistory(request, origin));
  listTrades: EngineCalls["listTrades"] = (request, origin) =>
    this.byAccount(request.account_id ?? "", (e) => e.listTrades(request, origin));
  listOrders: EngineCalls["listOrders"] = (ref, origin) =>
    this.byAccount(ref.account_id ?? "", (e) => e.listOrders(ref, origin));
  listFunding: EngineCalls["listFunding"] = (ref, origin) =>
    this.byAccount(ref.account_id ?? "", (e) => e.listFunding(ref, origin));
  listBreaches: EngineCalls["listBreaches"] = (ref, origin) =>
    this.byAccount(ref.account_id ?? "", (e) => e.listBreaches(ref, origin));
  listViolations: EngineCalls["listViolations"] = (ref, origin) =>
    this.byAccount(ref.account_id ?? "", (e) => e.listViolations(ref, origin));
  getAnalytics: EngineCalls["getAnalytics"] = (ref, origin) =>
    this.byAccount(ref.account_id ?? "", (e) => e.getAnalytics(ref, origin));
  /** The catch-up log is committed rows of the shared database: any engine reads it, even the owner's down. */
  listEvents: EngineCalls["listEvents"] = (request, origin) => this.any((e) => e.listEvents(request, origin));
  placeOrder: EngineCalls["placeOrder"] = (request, origin) =>
    this.byAccount(request.account_id ?? "", (e) => e.placeOrder(request, origin));
  testOrder: EngineCalls["testOrder"] = (request, origin) =>
    this.byAccount(request.account_id ?? "", (e) => e.testOrder(request, origin));
  closePosition: EngineCalls["closePosition"] = (request, origin) =>
    this.byAccount(request.account_id ?? "", (e) => e.closePosition(request, origin));
  cancelOrder: EngineCalls["cancelOrder"] = (ref, origin) =>
    this.byOrder(ref.order_id ?? "", (e) => e.cancelOrder(ref, origin));
  amendOrder: EngineCalls["amendOrder"] = (request, origin) =>
    this.byOrder(request.order_id ?? "", (e) => e.amendOrder(request, origin));
}
