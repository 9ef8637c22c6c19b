// The typed client: `KeysClient` for key management on /api and `TradingClient` for /v1, one method per
// operation of docs/openapi.yaml, list helpers that walk every page, placement that mints one `client_id`
// per call and keeps it across retries (client/src/calls.ts, shared with the socket session of
// client/src/session.ts). Requests go through client/src/transport.ts (retries, pacing).
import WebSocket from "ws";
import type { operations } from "./generated/openapi.js";
import { ApiError } from "./errors.js";
import { Pacer } from "./pacer.js";
import { calls, path, type BatchResult, type PlaceOptions, type TradingCall } from "./calls.js";
import type { Placement, TestResult } from "./results.js";
import { TradingSession, type SessionOptions } from "./session.js";
import { Transport, type RequestSpec, type TransportOptions } from "./transport.js";
import type {
  Account,
  AccountSummary,
  AmendOrderRequest,
  Analytics,
  ApiKey,
  ApiKeyList,
  Breach,
  BreachList,
  CanceledOrderList,
  Calendar,
  CancelAfter,
  ClosedPosition,
  ClosedPositionPage,
  ClientOrderList,
  ClosePositionRequest,
  CreateAccountRequest,
  CreateApiKeyRequest,
  CreateApiKeyResponse,
  Delivery,
  DeliveryPage,
  Fill,
  FillPage,
  FlattenResponse,
  FundingReport,
  Health,
  NotReady,
  Order,
  OrderPage,
  PlaceOrderRequest,
  Plan,
  PlanList,
  Position,
  PositionList,
  Query,
  Ready,
  RevokedApiKey,
  Ticker,
  TickerList,
  ValidateApiKeyRequest,
  ValidateApiKeyResponse,
  ViolationRecord,
  ViolationRecordList,
  WebhookEnvelope,
  WebhookEventPage,
  WorkingOrder,
  WorkingOrderList,
} from "./types.js";

type Shared = Omit<TransportOptions, "baseUrl" | "headers">;

/** `GET /healthz` and `GET /readyz`, served on both listeners without authentication. */
async function health(transport: Transport): Promise<Health> {
  return (await transport.request<Health>({ method: "GET", path: "/healthz", idempotent: true })).body;
}

/** Readiness as data: `not_ready` (a 503) is an answer, not an error, and is not retried. */
async function readiness(transport: Transport): Promise<Ready | NotReady> {
  try {
    return (await transport.request<Ready>({ method: "GET", path: "/readyz", idempotent: false })).body;
  } catch (error) {
    if (error instanceof ApiError && error.status === 503 && error.body.status === "not_ready")
      return { status: "not_ready" };
    throw error;
  }
}

export interface KeysClientOptions extends Shared {
  /** Base URL of the /api listener, e.g. http://127.0.0.1:8081 */
  baseUrl: string;
  /** The user the login proxy would name (`X-User-Id`). */
  userId: string;
  /** `WALLET_ADMIN_TOKEN`, when the gateway runs with one. */
  adminToken?: string;
}

export interface TradingClientOptions extends Shared {
  /** Base URL of the /v1 listener, e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
}

/** Where the next page of a time-range list starts: the last row's time and id (the `after_id` cursor). */
interface RangeCursor {
  from: string;
  after_id: string;
}

/** The time-range lists: the page each answers, where it is served and the cursor its last row gives. */
interface RangePages {
  listPositionHistory: ClosedPositionPage;
  listTrades: FillPage;
  listOrderHistory: OrderPage;
}
type RangeList = keyof RangePages;
type RangeRow<L extends RangeList> = RangePages[L]["data"][number];

const RANGE_LISTS: { [L in RangeList]: { path: string; cursorOf: (last: RangeRow<L>) => RangeCursor } } = {
  listPositionHistory: {
    path: "/v1/account/{account_id}/positions/history",
    cursorOf: (last) => ({ from: last.closed_at, after_id: last.position_id }),
  },
  listTrades: {
    path: "/v1/account/{account_id}/trades",
    cursorOf: (last) => ({ from: last.executed_at, after_id: last.fill_id }),
  },
  listOrderHistory: {
    path: "/v1/account/{account_id}/orders/history",
    cursorOf: (last) => ({ from: last.created_at, after_id: last.order_id }),
  },
};

/** Every row of a time-range list, oldest first: page after page, each starting after the last row seen. */
async function* walkRange<T>(
  page: (cursor: RangeCursor | undefined) => Promise<{ data: T[]; has_more: boolean }>,
  cursorOf: (last: T) => RangeCursor,
): AsyncGenerator<T> {
  let cursor: RangeCursor | undefined;
  for (;;) {
    const current = await page(cursor);
    yield* current.data;
    const last = current.data.at(-1);
    if (!current.has_more || last === undefined) return;
    cursor = cursorOf(last);
  }
}

/** Key management on /api (camelCase JSON). */
export class KeysClient {
  readonly transport: Transport;

  constructor(options: KeysClientOptions) {
    const { userId, adminToken, ...rest } = options;
    this.transport = new Transport({
      ...rest,
      pacer: false,
      headers: () => ({
        "x-user-id": userId,
        ...(adminToken === undefined ? {} : { authorization: `Bearer ${adminToken}` }),
      }),
    });
  }

  private async call<T>(spec: RequestSpec): Promise<T> {
    return (await this.transport.request<T>(spec)).body;
  }

  health(): Promise<Health> {
    return health(this.transport);
  }

  readiness(): Promise<Ready | NotReady> {
    return readiness(this.transport);
  }

  /** The gateway's Prometheus metrics (text), served on the /api listener only. */
  async metrics(): Promise<string> {
    return (await this.transport.request({ method: "GET", path: "/metrics", idempotent: true })).text;
  }

  async list(): Promise<ApiKey[]> {
    return (await this.call<ApiKeyList>({ method: "GET", path: "/api/api-keys", idempotent: true })).apiKeys;
  }

  /** Not repeated once the server may have made it (a second key could result); a 429 is waited out. */
  create(body: CreateApiKeyRequest): Promise<CreateApiKeyResponse> {
    return this.call({ method: "POST", path: "/api/api-keys", body, idempotent: false });
  }

  revoke(id: string): Promise<RevokedApiKey> {
    return this.call({ method: "DELETE", path: path("/api/api-keys/{id}", id), idempotent: true });
  }

  validate(body: ValidateApiKeyRequest): Promise<ValidateApiKeyResponse> {
    return this.call({ method: "POST", path: "/api/api-keys/validate", body, idempotent: true });
  }

  deliveries(id: string, query: Query<"listDeliveries"> = {}): Promise<DeliveryPage> {
    return this.call({ method: "GET", path: path("/api/api-keys/{id}/deliveries", id), query, idempotent: true });
  }

  /** Every delivery of the key, newest first, page by page. */
  async *allDeliveries(id: string, pageSize = 200): AsyncGenerator<Delivery> {
    let before: string | undefined;
    for (;;) {
      const page = await this.deliveries(id, { limit: pageSize, ...(before === undefined ? {} : { before }) });
      yield* page.deliveries;
      const last = page.deliveries.at(-1);
      if (!page.hasMore || last === undefined) return;
      before = last.deliveryId;
    }
  }

  redeliver(
    id: string,
    deliveryId: string,
  ): Promise<operations["redeliver"]["responses"][202]["content"]["application/json"]> {
    return this.call({
      method: "POST",
      path: path("/api/api-keys/{id}/deliveries/{delivery_id}/redeliver", id, deliveryId),
      idempotent: false,
    });
  }
}

/** Trading on /v1 (snake_case JSON). Placement answers a `Placement`; errors are `ApiError`/`NetworkError`. */
export class TradingClient {
  readonly transport: Transport;
  /** Opens the stream's socket; the credentials stay in this closure, never on a field a log could print. */
  private readonly openStream: () => WebSocket;

  constructor(options: TradingClientOptions) {
    const { apiKey, apiSecret, ...rest } = options;
    const credentials = (): Record<string, string> => ({ "x-api-key": apiKey, "x-api-secret": apiSecret });
    const streamUrl = new URL("/v1/stream", options.baseUrl.replace(/^http/, "ws")).toString();
    // No redirect is followed, here as in the transport: the credentials would go with it.
    this.openStream = () => new WebSocket(streamUrl, { headers: credentials(), followRedirects: false });
    this.transport = new Transport({ ...rest, pacer: rest.pacer ?? new Pacer(), headers: credentials });
  }

  /** The pacer's counters (requests sent, requests that waited for a slot). */
  get pacing(): { sent: number; held: number } | undefined {
    return this.transport.pacer?.stats;
  }

  private async get<T>(template: string, ids: string[], query?: RequestSpec["query"]): Promise<T> {
    const spec: RequestSpec = { method: "GET", path: path(template, ...ids), idempotent: true };
    if (query !== undefined) spec.query = query;
    return (await this.transport.request<T>(spec)).body;
  }

  /** One page of a time-range list of the account. */
  private rangePage<L extends RangeList>(list: L, accountId: string, query: Query<L>): Promise<RangePages[L]> {
    return this.get(RANGE_LISTS[list].path, [accountId], query);
  }

  /** Every row of a time-range list in [from, to], oldest first, walking `has_more` with `from`/`after_id`. */
  private walk<L extends RangeList>(
    list: L,
    accountId: string,
    query: Omit<Query<L>, "after_id">,
  ): AsyncGenerator<RangeRow<L>> {
    return walkRange((cursor) => this.rangePage(list, accountId, { ...query, ...cursor }), RANGE_LISTS[list].cursorOf);
  }

  health(): Promise<Health> {
    return health(this.transport);
  }

  readiness(): Promise<Ready | NotReady> {
    return readiness(this.transport);
  }

  async tickers(): Promise<Ticker[]> {
    return (await this.get<TickerList>("/v1/tickers", [])).data;
  }

  /** One ticker by symbol (`BTC-USD`); undefined when the service lists none. */
  async ticker(symbol: string): Promise<Ticker | undefined> {
    return (await this.tickers()).find((t) => t.symbol === symbol);
  }

  async plans(): Promise<Plan[]> {
    return (await this.get<PlanList>("/v1/plans", [])).data;
  }

  calendar(query: Query<"getCalendar"> = {}): Promise<Calendar> {
    return this.get("/v1/calendar", [], query);
  }

  /** Not idempotent (every success is a new account): repeated on 429 only. */
  async openAccount(body: CreateAccountRequest): Promise<Account> {
    return (await this.transport.request<Account>({ method: "POST", path: "/v1/account", body, idempotent: false }))
      .body;
  }

  account(accountId: string): Promise<Account> {
    return this.get("/v1/account/{account_id}", [accountId]);
  }

  summary(accountId: string): Promise<AccountSummary> {
    return this.get("/v1/account/{account_id}/summary", [accountId]);
  }

  async positions(accountId: string): Promise<Position[]> {
    return (await this.get<PositionList>("/v1/account/{account_id}/positions", [accountId])).data;
  }

  positionHistory(accountId: string, query: Query<"listPositionHistory"> = {}): Promise<ClosedPositionPage> {
    return this.rangePage("listPositionHistory", accountId, query);
  }

  /** Every closed position in [from, to], oldest first, walking `has_more` with `from`/`after_id`. */
  allPositionHistory(
    accountId: string,
    query: Omit<Query<"listPositionHistory">, "after_id"> = {},
  ): AsyncGenerator<ClosedPosition> {
    return this.walk("listPositionHistory", accountId, query);
  }

  trades(accountId: string, query: Query<"listTrades"> = {}): Promise<FillPage> {
    return this.rangePage("listTrades", accountId, query);
  }

  /** Every fill in [from, to], oldest first, walking `has_more` with `from`/`after_id`. */
  allTrades(accountId: string, query: Omit<Query<"listTrades">, "after_id"> = {}): AsyncGenerator<Fill> {
    return this.walk("listTrades", accountId, query);
  }

  async workingOrders(accountId: string): Promise<WorkingOrder[]> {
    return (await this.get<WorkingOrderList>("/v1/account/{account_id}/orders", [accountId])).data;
  }

  /** The order placed with `clientId` on the account, in any state (the newest one), or undefined. */
  async orderByClientId(accountId: string, clientId: string): Promise<Order | undefined> {
    const list = await this.get<ClientOrderList>("/v1/account/{account_id}/orders", [accountId], {
      client_id: clientId,
    });
    return list.data[0];
  }

  /** One order of the caller in any state, working or final (forgotten ones come from the order archive). */
  async order(orderId: string): Promise<Order> {
    return (await this.get<{ order: Order }>("/v1/order/{order_id}", [orderId])).order;
  }

  orderHistory(accountId: string, query: Query<"listOrderHistory"> = {}): Promise<OrderPage> {
    return this.rangePage("listOrderHistory", accountId, query);
  }

  /** Every order created in [from, to], oldest first, walking `has_more` with `from`/`after_id`. */
  allOrders(accountId: string, query: Omit<Query<"listOrderHistory">, "after_id"> = {}): AsyncGenerator<Order> {
    return this.walk("listOrderHistory", accountId, query);
  }

  funding(accountId: string): Promise<FundingReport> {
    return this.get("/v1/account/{account_id}/funding", [accountId]);
  }

  async breaches(accountId: string): Promise<Breach[]> {
    return (await this.get<BreachList>("/v1/account/{account_id}/breaches", [accountId])).data;
  }

  async violations(accountId: string): Promise<ViolationRecord[]> {
    return (await this.get<ViolationRecordList>("/v1/account/{account_id}/violations", [accountId])).data;
  }

  analytics(accountId: string): Promise<Analytics> {
    return this.get("/v1/account/{account_id}/analytics", [accountId]);
  }

  events(accountId: string, query: Query<"listEvents"> = {}): Promise<WebhookEventPage> {
    return this.get("/v1/account/{account_id}/events", [accountId], query);
  }

  /**
   * `GET /v1/stream` (docs/streaming.md): a WebSocket authenticated with this key. Send `StreamOp`s as JSON
   * (`{"op":"subscribe","account_id":…,"after":N}`); read acks, errors, webhook envelopes and tickers. A refused
   * upgrade is the socket's `unexpected-response` (401, 403, 409 `stream_limit_reached`, 429).
   */
  stream(): WebSocket {
    return this.openStream();
  }

  /** Every event after `after` (default from the first), by `sequence`, walking `has_more`. */
  async *allEvents(accountId: string, after = 0, pageSize = 1000): AsyncGenerator<WebhookEnvelope> {
    let cursor = after;
    for (;;) {
      const page = await this.events(accountId, { after: cursor, limit: pageSize });
      yield* page.data;
      const last = page.data.at(-1);
      if (!page.has_more || last === undefined) return;
      cursor = last.sequence;
    }
  }

  /** Runs one trading call over REST (`Idempotent-Replayed: true` is a replayed answer). */
  private async run<R, B>(call: TradingCall<R, B>): Promise<R> {
    const answer = await this.transport.request<B>(call.rest);
    const replayed = answer.headers.get("idempotent-replayed") === "true";
    return call.result({ status: answer.status, body: answer.body, replayed, attempts: answer.attempts });
  }

  /**
   * Places an order. Without a `client_id` one is minted for this call; every retry (timeout, 500, 503, 429)
   * sends the same body with it, so at most one order results. A risk rejection is `kind: "rejected"`.
   */
  placeOrder(order: PlaceOrderRequest, options: PlaceOptions = {}): Promise<Placement> {
    return this.run(calls.placeOrder(order, options));
  }

  /** Closes (part of) a position, with the same `client_id` discipline as `placeOrder`. */
  closePosition(request: ClosePositionRequest, options: PlaceOptions = {}): Promise<Placement> {
    return this.run(calls.closePosition(request, options));
  }

  /** The violations and headroom an order would get, placing nothing. */
  testOrder(order: PlaceOrderRequest): Promise<TestResult> {
    return this.run(calls.testOrder(order));
  }

  /** Sets new absolute values, so repeating it after a lost answer changes nothing more. */
  amendOrder(orderId: string, changes: AmendOrderRequest): Promise<Order> {
    return this.run(calls.amendOrder(orderId, changes));
  }

  cancelOrder(orderId: string): Promise<Order> {
    return this.run(calls.cancelOrder(orderId));
  }

  /**
   * Arms or re-arms the account's dead-man's switch (its deadline `timeoutMs` from the engine's now; 0 disarms):
   * send it again before the deadline as a heartbeat (docs/risk.md, "Cancel-after"). Repeating it after a lost
   * answer only moves the deadline on.
   */
  setCancelAfter(accountId: string, timeoutMs: number): Promise<CancelAfter> {
    return this.run(calls.setCancelAfter(accountId, timeoutMs));
  }

  /**
   * Cancels every working order of the account (of `symbol` only, when given) in one step; answers those it
   * canceled. Repeating it after a lost answer cancels what works then (nothing, if nothing was placed since).
   */
  cancelAllOrders(accountId: string, symbol?: string): Promise<CanceledOrderList["data"]> {
    return this.run(calls.cancelAllOrders(accountId, symbol));
  }

  /**
   * Closes every position at the market, in one step, after canceling every working order that protects no open
   * position; a position whose close is rejected or partial keeps its protective orders working (its
   * `closes[i].kept_orders`). Retried after a lost answer: a second flatten has only what was placed since, and
   * what the first left open, to cancel or close (the account's intent: flat).
   */
  flatten(accountId: string): Promise<FlattenResponse> {
    return this.run(calls.flatten(accountId));
  }

  /**
   * Places 1 to 20 orders, judged in turn as `placeOrder` would judge each; `data[i]` answers `orders[i]`.
   * Each order without a `client_id` gets one minted for this call (answered in `clientIds`), so a retry never
   * places an order twice. The pacer counts the batch as one request per order, as the gateway does.
   */
  placeOrders(orders: PlaceOrderRequest[], options: PlaceOptions = {}): Promise<BatchResult> {
    return this.run(calls.placeOrders(orders, options));
  }

  /**
   * A socket session on `GET /v1/stream` (client/src/session.ts): the trading methods above as operations on one
   * socket, pipelined, with the same results, errors and retry rules, and account events that resume exactly
   * across reconnects. Resolves once the socket is open; a refused upgrade is its `ApiError`.
   */
  connect(options: SessionOptions = {}): Promise<TradingSession> {
    return TradingSession.open(this.openStream, this.transport, options);
  }

  cancelAfter(accountId: string): Promise<CancelAfter> {
    return this.get("/v1/account/{account_id}/cancel-after", [accountId]);
  }
}

/** The method serving each operation of docs/openapi.yaml (a new operation fails to compile until it has one). */
export const OPERATIONS: Record<keyof operations, `${"KeysClient" | "TradingClient"}.${string}`> = {
  listApiKeys: "KeysClient.list",
  createApiKey: "KeysClient.create",
  revokeApiKey: "KeysClient.revoke",
  validateApiKey: "KeysClient.validate",
  listDeliveries: "KeysClient.deliveries",
  redeliver: "KeysClient.redeliver",
  listTickers: "TradingClient.tickers",
  listPlans: "TradingClient.plans",
  getCalendar: "TradingClient.calendar",
  createAccount: "TradingClient.openAccount",
  getAccount: "TradingClient.account",
  getAccountSummary: "TradingClient.summary",
  listPositions: "TradingClient.positions",
  listPositionHistory: "TradingClient.positionHistory",
  listTrades: "TradingClient.trades",
  listWorkingOrders: "TradingClient.workingOrders",
  listOrderHistory: "TradingClient.orderHistory",
  getOrder: "TradingClient.order",
  listFunding: "TradingClient.funding",
  listBreaches: "TradingClient.breaches",
  listViolations: "TradingClient.violations",
  getAnalytics: "TradingClient.analytics",
  listEvents: "TradingClient.events",
  openStream: "TradingClient.stream",
  placeOrder: "TradingClient.placeOrder",
  testOrder: "TradingClient.testOrder",
  cancelOrder: "TradingClient.cancelOrder",
  amendOrder: "TradingClient.amendOrder",
  closePosition: "TradingClient.closePosition",
  setCancelAfter: "TradingClient.setCancelAfter",
  getCancelAfter: "TradingClient.cancelAfter",
  cancelAllOrders: "TradingClient.cancelAllOrders",
  flattenAccount: "TradingClient.flatten",
  placeOrderBatch: "TradingClient.placeOrders",
  getHealth: "TradingClient.health",
  getReadiness: "TradingClient.readiness",
  getMetrics: "KeysClient.metrics",
};
