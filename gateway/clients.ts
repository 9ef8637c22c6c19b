// gRPC clients of the gateway: one long-lived channel each to the wallet and the engine, behind small typed
// facades that return promises and attach the request id and the internal token.
import * as grpc from "@grpc/grpc-js";
import { CHANNEL_OPTIONS, loadEngineProto, outgoingMetadata } from "../kernel/grpc.js";
import type { RpcMetrics, RpcObserver } from "../kernel/rpc-metrics.js";
import { createWalletClient } from "../kernel/wallet-codec.js";
import { EngineRouter } from "./engine-router.js";
import { endSpan, startClientSpan, tracingOn } from "../kernel/tracing.js";
import type { WalletClient } from "../proto/gen/wallet/v1/Wallet.js";
import type { EngineClient } from "../proto/gen/engine/v1/Engine.js";
import type { CreateApiKeyRequest } from "../proto/gen/wallet/v1/CreateApiKeyRequest.js";
import type { CreateApiKeyResponse__Output } from "../proto/gen/wallet/v1/CreateApiKeyResponse.js";
import type { ListApiKeysResponse__Output } from "../proto/gen/wallet/v1/ListApiKeysResponse.js";
import type { RevokeApiKeyResponse__Output } from "../proto/gen/wallet/v1/RevokeApiKeyResponse.js";
import type { ValidateApiKeyRequest } from "../proto/gen/wallet/v1/ValidateApiKeyRequest.js";
import type { ValidateApiKeyResponse__Output } from "../proto/gen/wallet/v1/ValidateApiKeyResponse.js";
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

const DEADLINE_MS = 10_000;

function settle<T>(resolve: (value: T) => void, reject: (error: unknown) => void): grpc.requestCallback<T> {
  return (error, response) => {
    if (error) reject(error);
    else if (response === undefined) reject(new Error("empty gRPC response"));
    else resolve(response);
  };
}

const options = (): grpc.CallOptions => ({ deadline: Date.now() + DEADLINE_MS });

type Start<Res> = (
  metadata: grpc.Metadata,
  callOptions: grpc.CallOptions,
  callback: grpc.requestCallback<Res>,
) => unknown;

/** settle, recording the call's code and duration first. */
function settleTimed<T>(
  observe: RpcObserver,
  resolve: (value: T) => void,
  reject: (error: unknown) => void,
): grpc.requestCallback<T> {
  const started = performance.now();
  return (error, response) => {
    observe(error ? error.code : grpc.status.OK, (performance.now() - started) / 1000);
    if (error) reject(error);
    else if (response === undefined) reject(new Error("empty gRPC response"));
    else resolve(response);
  };
}

/**
 * Promise form of unary calls, with the request id, the internal token and (when tracing) the trace context;
 * with metrics on, each call's latency by method and code (`grpc_client_handling_seconds`).
 */
abstract class UnaryApi {
  private readonly observers = new Map<string, RpcObserver>();

  constructor(
    private readonly token: string | undefined,
    /** Full gRPC service name, for span names (`wallet.v1.Wallet/ValidateApiKey`). */
    private readonly service: string,
    private readonly metrics: RpcMetrics | undefined,
  ) {}

  protected call<Res>(method: string, requestId: string, start: Start<Res>): Promise<Res> {
    if (tracingOn()) return this.traced(method, requestId, start);
    return new Promise((resolve, reject) => {
      start(outgoingMetadata(requestId, this.token), options(), this.settler(method, resolve, reject));
    });
  }

  /** The call's callback, timed when metrics are on (the clock starts here, just before the call). */
  private settler<Res>(
    method: string,
    resolve: (value: Res) => void,
    reject: (error: unknown) => void,
  ): grpc.requestCallback<Res> {
    const metrics = this.metrics;
    if (metrics === undefined) return settle(resolve, reject);
    let observe = this.observers.get(method);
    if (observe === undefined) {
      observe = metrics.method(method);
      this.observers.set(method, observe);
    }
    return settleTimed(observe, resolve, reject);
  }

  private traced<Res>(method: string, requestId: string, start: Start<Res>): Promise<Res> {
    const metadata = outgoingMetadata(requestId, this.token);
    const span = startClientSpan(`${this.service}/${method}`, metadata);
    if (span === undefined) {
      return new Promise((resolve, reject) => {
        start(metadata, options(), this.settler(method, resolve, reject));
      });
    }
    return new Promise((resolve, reject) => {
      const done = this.settler(method, resolve, reject);
      start(metadata, options(), (error, response) => {
        endSpan(span, error ?? undefined);
        done(error, response);
      });
    });
  }
}

export class WalletApi extends UnaryApi {
  constructor(
    readonly client: WalletClient,
    token: string | undefined,
    metrics?: RpcMetrics,
  ) {
    super(token, "wallet.v1.Wallet", metrics);
  }

  createApiKey(request: CreateApiKeyRequest, requestId: string): Promise<CreateApiKeyResponse__Output> {
    return this.call("CreateApiKey", requestId, (m, o, cb) => this.client.CreateApiKey(request, m, o, cb));
  }

  listApiKeys(userId: string, requestId: string): Promise<ListApiKeysResponse__Output> {
    return this.call("ListApiKeys", requestId, (m, o, cb) => this.client.ListApiKeys({ user_id: userId }, m, o, cb));
  }

  revokeApiKey(userId: string, id: string, requestId: string): Promise<RevokeApiKeyResponse__Output> {
    return this.call("RevokeApiKey", requestId, (m, o, cb) =>
      this.client.RevokeApiKey({ user_id: userId, id }, m, o, cb),
    );
  }

  validateApiKey(request: ValidateApiKeyRequest, requestId: string): Promise<ValidateApiKeyResponse__Output> {
    return this.call("ValidateApiKey", requestId, (m, o, cb) => this.client.ValidateApiKey(request, m, o, cb));
  }
}

export class EngineApi extends UnaryApi {
  constructor(
    readonly client: EngineClient,
    token: string | undefined,
    metrics?: RpcMetrics,
  ) {
    super(token, "engine.v1.Engine", metrics);
  }

  listTickers(requestId: string): Promise<ListTickersResponse__Output> {
    return this.call("ListTickers", requestId, (m, o, cb) => this.client.ListTickers({}, m, o, cb));
  }

  listPlans(requestId: string): Promise<ListPlansResponse__Output> {
    return this.call("ListPlans", requestId, (m, o, cb) => this.client.ListPlans({}, m, o, cb));
  }

  getCalendar(request: GetCalendarRequest, requestId: string): Promise<Calendar__Output> {
    return this.call("GetCalendar", requestId, (m, o, cb) => this.client.GetCalendar(request, m, o, cb));
  }

  createAccount(request: CreateAccountRequest, requestId: string): Promise<Account__Output> {
    return this.call("CreateAccount", requestId, (m, o, cb) => this.client.CreateAccount(request, m, o, cb));
  }

  getAccount(ref: AccountRef, requestId: string): Promise<Account__Output> {
    return this.call("GetAccount", requestId, (m, o, cb) => this.client.GetAccount(ref, m, o, cb));
  }

  getSummary(ref: AccountRef, requestId: string): Promise<Summary__Output> {
    return this.call("GetSummary", requestId, (m, o, cb) => this.client.GetSummary(ref, m, o, cb));
  }

  listPositions(ref: AccountRef, requestId: string): Promise<ListPositionsResponse__Output> {
    return this.call("ListPositions", requestId, (m, o, cb) => this.client.ListPositions(ref, m, o, cb));
  }

  listPositionHistory(request: ListRangeRequest, requestId: string): Promise<ListClosedPositionsResponse__Output> {
    return this.call("ListPositionHistory", requestId, (m, o, cb) =>
      this.client.ListPositionHistory(request, m, o, cb),
    );
  }

  listTrades(request: ListRangeRequest, requestId: string): Promise<ListFillsResponse__Output> {
    return this.call("ListTrades", requestId, (m, o, cb) => this.client.ListTrades(request, m, o, cb));
  }

  listOrders(ref: AccountRef, requestId: string): Promise<ListOrdersResponse__Output> {
    return this.call("ListOrders", requestId, (m, o, cb) => this.client.ListOrders(ref, m, o, cb));
  }

  listFunding(ref: AccountRef, requestId: string): Promise<FundingReport__Output> {
    return this.call("ListFunding", requestId, (m, o, cb) => this.client.ListFunding(ref, m, o, cb));
  }

  listEvents(request: ListEventsRequest, requestId: string): Promise<ListEventsResponse__Output> {
    return this.call("ListEvents", requestId, (m, o, cb) => this.client.ListEvents(request, m, o, cb));
  }

  listDeliveries(request: ListDeliveriesRequest, requestId: string): Promise<ListDeliveriesResponse__Output> {
    return this.call("ListDeliveries", requestId, (m, o, cb) => this.client.ListDeliveries(request, m, o, cb));
  }

  redeliver(request: RedeliverRequest, requestId: string): Promise<Delivery__Output> {
    return this.call("Redeliver", requestId, (m, o, cb) => this.client.Redeliver(request, m, o, cb));
  }

  listBreaches(ref: AccountRef, requestId: string): Promise<ListBreachesResponse__Output> {
    return this.call("ListBreaches", requestId, (m, o, cb) => this.client.ListBreaches(ref, m, o, cb));
  }

  listViolations(ref: AccountRef, requestId: string): Promise<ListViolationsResponse__Output> {
    return this.call("ListViolations", requestId, (m, o, cb) => this.client.ListViolations(ref, m, o, cb));
  }

  getAnalytics(ref: AccountRef, requestId: string): Promise<Analytics__Output> {
    return this.call("GetAnalytics", requestId, (m, o, cb) => this.client.GetAnalytics(ref, m, o, cb));
  }

  placeOrder(request: PlaceOrderRequest, requestId: string): Promise<OrderResponse__Output> {
    return this.call("PlaceOrder", requestId, (m, o, cb) => this.client.PlaceOrder(request, m, o, cb));
  }

  cancelOrder(ref: OrderRef, requestId: string): Promise<OrderReply__Output> {
    return this.call("CancelOrder", requestId, (m, o, cb) => this.client.CancelOrder(ref, m, o, cb));
  }

  amendOrder(request: AmendOrderRequest, requestId: string): Promise<OrderReply__Output> {
    return this.call("AmendOrder", requestId, (m, o, cb) => this.client.AmendOrder(request, m, o, cb));
  }

  closePosition(request: ClosePositionRequest, requestId: string): Promise<OrderResponse__Output> {
    return this.call("ClosePosition", requestId, (m, o, cb) => this.client.ClosePosition(request, m, o, cb));
  }

  /** Runs every pre-trade check of an order against the account as it is; places nothing. */
  testOrder(request: PlaceOrderRequest, requestId: string): Promise<OrderTestResponse__Output> {
    return this.call("TestOrder", requestId, (m, o, cb) => this.client.TestOrder(request, m, o, cb));
  }
}

export interface Clients {
  wallet: WalletApi;
  /** Every engine process, each call routed to the one owning its account (gateway/engine-router.ts). */
  engine: EngineRouter;
  close(): void;
}

/**
 * `engineTargets[k]` is engine k's host:port (ENGINE_GRPC_TARGETS; one entry for a single engine). `metrics`:
 * client-side latency by method and code (`grpc_client_handling_seconds`); none when metrics are off.
 */
export function createClients(
  walletTarget: string,
  engineTargets: readonly string[],
  internalToken: string | undefined,
  metrics?: RpcMetrics,
): Clients {
  const credentials = grpc.credentials.createInsecure();
  // ValidateApiKey, the hottest call, with the hand-written codec (kernel/wallet-codec.ts).
  const wallet = createWalletClient(walletTarget, credentials, CHANNEL_OPTIONS);
  const Engine = loadEngineProto().engine.v1.Engine;
  // An engine that died is 503 until its channel reconnects: retry a restarted engine within 2 s, not minutes.
  const engineOptions = { ...CHANNEL_OPTIONS, "grpc.max_reconnect_backoff_ms": 2_000 };
  const engines = engineTargets.map((target) => new Engine(target, credentials, engineOptions));
  return {
    wallet: new WalletApi(wallet, internalToken, metrics),
    engine: new EngineRouter(engines.map((engine) => new EngineApi(engine, internalToken, metrics))),
    close() {
      wallet.close();
      for (const engine of engines) engine.close();
    },
  };
}

/** Resolves true when the client's channel connects within `timeoutMs`. */
export async function reachable(client: grpc.Client, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    client.waitForReady(Date.now() + timeoutMs, (error) => {
      resolve(error === undefined || error === null);
    });
  });
}
