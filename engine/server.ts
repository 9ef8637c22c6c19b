// The engine's gRPC surface: engine.v1 (catalogue, accounts, orders) and market.v1 (price pushes). Handlers
// are thin: they pick the account's shard, send the command or query, and shape proto messages. Ownership,
// rules and numbers live in the core; decimal strings become numbers only here, at the edge.
import { randomUUID } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import { ServiceError, type Issue } from "../kernel/errors.js";
import type { Logger } from "../kernel/log.js";
import {
  CHANNEL_OPTIONS,
  type DirectCall,
  loadEngineProto,
  loadMarketProto,
  onShutdown,
  unary,
} from "../kernel/grpc.js";
import { ENGINE_SESSION_PATH } from "../kernel/session-codec.js";
import { sessionServer, type SessionMethod } from "../kernel/session-server.js";
import type { RpcMetrics } from "../kernel/rpc-metrics.js";
import type { EngineHandlers } from "../proto/gen/engine/v1/Engine.js";
import type { ListPlansResponse } from "../proto/gen/engine/v1/ListPlansResponse.js";
import type { ListRangeRequest__Output } from "../proto/gen/engine/v1/ListRangeRequest.js";
import type { ListTickersResponse } from "../proto/gen/engine/v1/ListTickersResponse.js";
import type { OrderResponse } from "../proto/gen/engine/v1/OrderResponse.js";
import type { Plan as PlanMessage } from "../proto/gen/engine/v1/Plan.js";
import type { Ticker } from "../proto/gen/engine/v1/Ticker.js";
import type { MarketDataHandlers } from "../proto/gen/market/v1/MarketData.js";
import type { Plan, PlanCatalogue } from "./basics/plans.js";
import type { Analytics } from "./accounts/risk-queries.js";
import type { AccountQuery, EngineTypes } from "./actor.js";
import type { Command, Reply } from "./core.js";
import { parseCalendar, type NewsCalendar, type NewsEvent } from "./market/calendar.js";
import { parseIsoDateTime } from "../kernel/time.js";
import { isUuid } from "../kernel/uuid.js";
import type { Calendar } from "../proto/gen/engine/v1/Calendar.js";
import type { GetCalendarRequest__Output } from "../proto/gen/engine/v1/GetCalendarRequest.js";
import type { Catalogue, TickerSpec } from "./market/catalogue.js";
import { isMarketOpen } from "./market/hours.js";
import type { PriceSource, TickQuote } from "./market/prices.js";
import { normalizeSymbol } from "./market/symbols.js";
import { roundToGrid, tickerUnits } from "./market/units.js";
import { accountIdFor } from "../kernel/partition.js";
import type { Reservation } from "./store/account-slots.js";
import { isDatabaseUnavailable } from "../kernel/db-deadline.js";
import type { ShardRuntime } from "./shard/runtime.js";
import { webhookHandlers } from "./webhooks/handlers.js";
import type { WebhookStore } from "./webhooks/store.js";

export interface EngineServerDeps {
  catalogue: Catalogue;
  plans: PlanCatalogue;
  prices: PriceSource;
  runtime: ShardRuntime<EngineTypes>;
  /** Applies pushed prices on every shard (and to `prices`); resolves after every shard applied them. */
  publish: (quotes: TickQuote[]) => Promise<void>;
  /** The news calendar market.v1 SetCalendar replaces. */
  calendar: NewsCalendar;
  /** Makes a new calendar durable and hands it to every shard; resolves once both are done. */
  applyCalendar: (events: NewsEvent[]) => Promise<void>;
  /** Whether market.v1 (PushPrices, SetCalendar) is accepted (PRICE_FEED=push). */
  acceptsPushes: boolean;
  /** Wall clock in Unix epoch milliseconds; injected so market hours are testable. */
  now: () => number;
  /** When set, every call needs `authorization: Bearer <token>` metadata. */
  internalToken: string | undefined;
  /** gRPC latency by method and code; none when metrics are off. */
  metrics?: RpcMetrics | undefined;
  log: Logger;
  /** The outbox and delivery tables (catch-up events, delivery log). */
  webhooks: WebhookStore;
  /** This engine's index and the number of engines: new accounts are minted in partitions it owns. */
  engine?: { index: number; count: number };
  /**
   * The per-user cap on accounts (docs/engine.md, "Limits"): a slot is reserved in the shared database before
   * the account is opened. No cap when absent (tests of other parts).
   */
  accountCap?: { slots: AccountSlotStore; limit: number };
}

/** What CreateAccount needs of engine/store/account-slots.ts. */
export interface AccountSlotStore {
  reserve(userId: string, accountId: string, limit: number): Promise<Reservation>;
  release(accountId: string): Promise<void>;
}

/** A database failure of the cap's reservation: engine_unavailable when it did not answer, else engine_error. */
function slotFailure(error: unknown): ServiceError {
  return isDatabaseUnavailable(error)
    ? new ServiceError("engine_unavailable", {}, "database did not answer: cannot count the user's accounts")
    : new ServiceError("engine_error", {}, "cannot count the user's accounts");
}

/** The wire form of one catalogue row: numbers instead of decimal strings, prices and hours as of `nowMs`. */
export function tickerMessage(spec: TickerSpec, prices: PriceSource, nowMs: number): Ticker {
  const quote = prices.get(spec.symbol);
  return {
    symbol: spec.symbol,
    base: spec.base,
    quote: spec.quote,
    asset_class: spec.asset_class,
    venues: [...spec.venues],
    max_leverage: spec.max_leverage,
    tick_size: Number(spec.tick_size),
    quantity_step: Number(spec.quantity_step),
    min_quantity: Number(spec.min_quantity),
    ...(quote === undefined ? {} : { mark_price: quote.mark, index_price: quote.index }),
    market_open: isMarketOpen(spec.asset_class, nowMs),
  };
}

/** The wire form of one plan (fresh arrays and objects, so the frozen catalogue is never handed out). */
export function planMessage(plan: Plan): PlanMessage {
  return {
    ...plan,
    max_leverage: { ...plan.max_leverage },
    news_freeze: { ...plan.news_freeze },
    allowed_venues: [...plan.allowed_venues],
  };
}

type WithoutNulls<T> = { [K in keyof T]: Exclude<T[K], null> | undefined };

/** Core records use null for "absent"; proto messages leave the field out. */
function message<T extends object>(record: T): WithoutNulls<T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (value !== null) out[key] = value;
  return out as WithoutNulls<T>;
}

/** A core reply that is an error becomes the registry error; anything else is returned. */
function unwrap<R extends Reply>(reply: R): Exclude<R, { kind: "error" }> {
  if (reply.kind === "error") throw new ServiceError(reply.code, { ...reply.fields });
  return reply as Exclude<R, { kind: "error" }>;
}

/** A pushed price may be at most this many times the ticker's reference price (docs/engine.md, "Pushed prices"). */
export const PRICE_CEILING_FACTOR = 1_000;

function accountIdOf(value: string): string {
  const id = value.toLowerCase();
  if (!isUuid(id)) throw new ServiceError("not_found");
  return id;
}

function requireUser(userId: string): string {
  if (userId === "") throw new ServiceError("unauthorized");
  return userId;
}

function orderResponse(reply: Reply): OrderResponse {
  const placed = unwrap(reply);
  if (!("fills" in placed)) throw new Error("not a place-order reply");
  return {
    order: message(placed.order),
    fills: placed.fills.map((fill) => message(fill)),
    violations: placed.violations.map((v) => ({ ...v })),
    outcome: placed.kind,
    // Responses journaled before risk_headroom existed replay without it.
    ...(placed.risk_headroom === undefined ? {} : { risk_headroom: { ...placed.risk_headroom } }),
  };
}

/** Builds (but does not bind) a gRPC server carrying the Engine and MarketData services. */
/** GetCalendar: the stored calendar filtered by optional ISO bounds and a symbol; bad filters are 400s. */
function calendarMessage(deps: EngineServerDeps, request: GetCalendarRequest__Output): Calendar {
  const issues: Issue[] = [];
  const bound = (name: "from" | "to"): number | undefined => {
    const text = request[name];
    if (text === "") return undefined;
    const at = parseIsoDateTime(text);
    if (Number.isNaN(at)) issues.push({ path: name, message: "must be an ISO 8601 date-time with a time zone" });
    return at;
  };
  const from = bound("from");
  const to = bound("to");
  if (from !== undefined && to !== undefined && from > to)
    issues.push({ path: "from", message: "must not be after to" });
  let spec: TickerSpec | undefined;
  if (request.symbol !== "") {
    const symbol = normalizeSymbol(request.symbol, deps.catalogue);
    spec = symbol === undefined ? undefined : deps.catalogue.bySymbol(symbol);
    if (spec === undefined) issues.push({ path: "symbol", message: "unknown symbol" });
  }
  if (issues.length > 0) throw ServiceError.invalid(issues);
  const events = deps.calendar.select({
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    ...(spec === undefined ? {} : { spec }),
  });
  return {
    events: events.map((event) => ({
      id: event.id,
      title: event.title,
      scheduled_at: event.scheduled_at,
      symbols: [...event.symbols],
      asset_classes: [...event.asset_classes],
    })),
  };
}

/** The `direct` entry of a handler made by unary() (every Engine method is one). */
function directOf(name: string, handler: unknown): DirectCall<unknown, unknown> {
  if (typeof handler !== "function" || !("direct" in handler) || typeof handler.direct !== "function") {
    throw new Error(`Engine.${name} is not a unary() handler`);
  }
  return handler.direct as DirectCall<unknown, unknown>;
}

export function createEngineServer(deps: EngineServerDeps): grpc.Server {
  const options = {
    internalToken: deps.internalToken,
    service: "engine.v1.Engine",
    metrics: deps.metrics,
    onError: (method: string, error: unknown, requestId: string | undefined) => {
      deps.log.error({ err: error, method, request_id: requestId }, "engine handler failed");
    },
  };
  const marketOptions = { ...options, service: "market.v1.MarketData" };
  const { runtime } = deps;
  const command = async (userId: string, accountId: string, cmd: Command): Promise<Reply> =>
    runtime.command(accountIdOf(accountId), { userId: requireUser(userId), command: cmd });
  const query = async <R>(userId: string, accountId: string, q: AccountQuery): Promise<R> =>
    (await runtime.query(accountIdOf(accountId), { userId: requireUser(userId), query: q })) as R;

  /** A `from`/`to`/`limit` list of one account: closed positions or fills. */
  const page = async (r: ListRangeRequest__Output, type: "history" | "trades") => {
    const result = await query<{ data: object[]; has_more: boolean }>(r.user_id, r.account_id, {
      type,
      from: r.from,
      to: r.to,
      limit: r.limit,
      after_id: r.after_id,
    });
    return { data: result.data.map((row) => message(row)), has_more: result.has_more };
  };

  const handlers: EngineHandlers = {
    ...webhookHandlers(deps.webhooks, deps.now, options),
    ListTickers: unary(
      "ListTickers",
      (): ListTickersResponse => {
        const nowMs = deps.now();
        return { data: deps.catalogue.tickers.map((spec) => tickerMessage(spec, deps.prices, nowMs)) };
      },
      options,
    ),
    ListPlans: unary("ListPlans", (): ListPlansResponse => ({ data: deps.plans.plans.map(planMessage) }), options),
    GetCalendar: unary("GetCalendar", (request) => calendarMessage(deps, request), options),

    CreateAccount: unary(
      "CreateAccount",
      async (request) => {
        const userId = requireUser(request.user_id);
        const accountId = accountIdFor(deps.engine?.index ?? 0, deps.engine?.count ?? 1, randomUUID);
        const cap = deps.accountCap;
        if (cap !== undefined) {
          const reservation = await cap.slots.reserve(userId, accountId, cap.limit).catch((error: unknown) => {
            deps.log.error({ err: error }, "account slot reservation failed");
            throw slotFailure(error);
          });
          if (!reservation.ok) throw new ServiceError("account_limit_reached", { limit: reservation.limit });
        }
        // A call that failed may or may not have opened the account: its slot stays reserved until the account is
        // journaled or the reservation lapses. A refusal (bad plan or venue) opened nothing: its slot is given back.
        const opened = await command(userId, accountId, {
          type: "OpenAccount",
          request: {
            account_id: accountId,
            user_id: userId,
            plan_id: request.plan_id,
            default_venue: request.default_venue ?? null,
            label: request.label ?? null,
          },
        });
        if (opened.kind === "error" && cap !== undefined) {
          await cap.slots.release(accountId).catch((error: unknown) => {
            deps.log.warn({ err: error }, "releasing a refused account's slot failed (it lapses on its own)");
          });
        }
        const reply = unwrap(opened);
        if (!("account" in reply)) throw new Error("not an account reply");
        return query(request.user_id, accountId, { type: "account" });
      },
      options,
    ),
    GetAccount: unary("GetAccount", (r) => query(r.user_id, r.account_id, { type: "account" }), options),
    GetSummary: unary("GetSummary", (r) => query(r.user_id, r.account_id, { type: "summary" }), options),
    ListPositions: unary("ListPositions", (r) => query(r.user_id, r.account_id, { type: "positions" }), options),
    ListOrders: unary(
      "ListOrders",
      async (r) => {
        const page = await query<{ data: object[] }>(r.user_id, r.account_id, { type: "orders" });
        return { data: page.data.map((order) => message(order)) };
      },
      options,
    ),
    ListFunding: unary("ListFunding", (r) => query(r.user_id, r.account_id, { type: "funding" }), options),
    ListBreaches: unary("ListBreaches", (r) => query(r.user_id, r.account_id, { type: "breaches" }), options),
    ListViolations: unary("ListViolations", (r) => query(r.user_id, r.account_id, { type: "violations" }), options),
    GetAnalytics: unary(
      "GetAnalytics",
      async (r) => {
        const result = await query<Analytics>(r.user_id, r.account_id, { type: "analytics" });
        // proto3 optionals: null (no value yet) is an absent field on the wire.
        return {
          closed_positions: result.closed_positions,
          exposure: result.exposure,
          ...(result.win_rate === null ? {} : { win_rate: result.win_rate }),
          ...(result.avg_r_multiple === null ? {} : { avg_r_multiple: result.avg_r_multiple }),
          ...(result.profit_factor === null ? {} : { profit_factor: result.profit_factor }),
        };
      },
      options,
    ),
    ListPositionHistory: unary("ListPositionHistory", (r) => page(r, "history"), options),
    ListTrades: unary("ListTrades", (r) => page(r, "trades"), options),

    PlaceOrder: unary(
      "PlaceOrder",
      async (r) => {
        const { user_id: userId, ...request } = r;
        return orderResponse(
          await command(userId, r.account_id, {
            type: "PlaceOrder",
            request: { ...request, account_id: accountIdOf(r.account_id) },
          }),
        );
      },
      options,
    ),
    TestOrder: unary(
      "TestOrder",
      async (r) => {
        const { user_id: userId, ...request } = r;
        const reply = unwrap(
          await command(userId, r.account_id, {
            type: "TestOrder",
            request: { ...request, account_id: accountIdOf(r.account_id) },
          }),
        );
        if (!("risk_headroom" in reply) || "order" in reply) throw new Error("not an order-test reply");
        return { violations: reply.violations.map((v) => ({ ...v })), risk_headroom: { ...reply.risk_headroom } };
      },
      options,
    ),
    ClosePosition: unary(
      "ClosePosition",
      async (r) => {
        const { user_id: userId, ...request } = r;
        return orderResponse(
          await command(userId, r.account_id, {
            type: "ClosePosition",
            request: { ...request, account_id: accountIdOf(r.account_id) },
          }),
        );
      },
      options,
    ),
    CancelOrder: unary(
      "CancelOrder",
      async (r) => {
        const reply = unwrap(
          await runtime.commandByKey(accountIdOf(r.order_id), {
            userId: requireUser(r.user_id),
            command: { type: "CancelOrder", request: { order_id: r.order_id.toLowerCase() } },
          }),
        );
        if (!("order" in reply)) throw new Error("not an order reply");
        return { order: message(reply.order) };
      },
      options,
    ),
    AmendOrder: unary(
      "AmendOrder",
      async (r) => {
        const reply = unwrap(
          await runtime.commandByKey(accountIdOf(r.order_id), {
            userId: requireUser(r.user_id),
            command: {
              type: "AmendOrder",
              request: {
                order_id: r.order_id.toLowerCase(),
                ...(r.trigger_price === undefined ? {} : { trigger_price: r.trigger_price }),
                ...(r.limit_price === undefined ? {} : { limit_price: r.limit_price }),
                ...(r.quantity === undefined ? {} : { quantity: r.quantity }),
              },
            },
          }),
        );
        if (!("order" in reply)) throw new Error("not an order reply");
        return { order: message(reply.order) };
      },
      options,
    ),
  };

  let calendarQueue: Promise<void> = Promise.resolve();
  /** Every market.v1 method: market data comes from outside only when the engine runs PRICE_FEED=push. */
  const refuseUnlessPushFeed = (): void => {
    if (deps.acceptsPushes) return;
    throw new ServiceError(
      "market_data_refused",
      {},
      "market.v1 is refused: the engine runs its price simulator (PRICE_FEED=simulator); start it with PRICE_FEED=push",
    );
  };
  const market: MarketDataHandlers = {
    PushPrices: unary(
      "PushPrices",
      async (request) => {
        refuseUnlessPushFeed();
        const issues: Issue[] = [];
        const quotes: TickQuote[] = [];
        const seen = new Set<string>();
        request.prices.forEach((price, i) => {
          const symbol = normalizeSymbol(price.symbol, deps.catalogue);
          const spec = symbol === undefined ? undefined : deps.catalogue.bySymbol(symbol);
          if (symbol === undefined || spec === undefined) {
            issues.push({ path: `prices.${i}.symbol`, message: "unknown symbol" });
            return;
          }
          // One price per symbol per push: a push is one market update, decided at its prices. Successive
          // prices of one symbol (each with its triggers and fills) are successive pushes.
          if (seen.has(symbol)) {
            issues.push({
              path: `prices.${i}.symbol`,
              message: "appears twice: send successive prices as successive pushes",
            });
            return;
          }
          seen.add(symbol);
          const tick = tickerUnits(spec).tick;
          const mark = Number.isFinite(price.mark_price) ? roundToGrid(price.mark_price, tick) : undefined;
          const index = Number.isFinite(price.index_price) ? roundToGrid(price.index_price, tick) : undefined;
          // Far above any price the symbol could trade at (its reference × 1,000): a position's notional at
          // such a price would leave the engine's exact integer range.
          const ceiling = Number(spec.reference_price) * PRICE_CEILING_FACTOR;
          if (mark === undefined || mark <= 0)
            issues.push({ path: `prices.${i}.mark_price`, message: "must be a positive price" });
          else if (price.mark_price > ceiling)
            issues.push({ path: `prices.${i}.mark_price`, message: `must be at most ${String(ceiling)}` });
          if (index === undefined || index <= 0)
            issues.push({ path: `prices.${i}.index_price`, message: "must be a positive price" });
          else if (price.index_price > ceiling)
            issues.push({ path: `prices.${i}.index_price`, message: `must be at most ${String(ceiling)}` });
          if (mark !== undefined && mark > 0 && index !== undefined && index > 0)
            quotes.push({ symbol, mark, index, skew: 0 });
        });
        if (issues.length > 0) throw ServiceError.invalid(issues);
        await deps.publish(quotes);
        return {};
      },
      marketOptions,
    ),
    SetCalendar: unary(
      "SetCalendar",
      async (request) => {
        refuseUnlessPushFeed();
        const parsed = parseCalendar(request.events, deps.catalogue);
        if ("issues" in parsed) throw ServiceError.invalid(parsed.issues);
        // One replacement at a time, store → shards → served, so concurrent calls cannot leave the stored
        // calendar (what a restart loads) and the served one different.
        const replaced = calendarQueue.then(async () => {
          await deps.applyCalendar(parsed.ok);
          deps.calendar.replace(parsed.ok);
        });
        calendarQueue = replaced.catch(() => undefined);
        await replaced;
        deps.log.info({ events: parsed.ok.length }, "news calendar replaced");
        return {};
      },
      marketOptions,
    ),
  };

  const service = loadEngineProto().engine.v1.Engine.service;
  const server = new grpc.Server(CHANNEL_OPTIONS);
  server.addService(service, handlers);
  server.addService(loadMarketProto().market.v1.MarketData.service, market);
  // Every Engine method, also as frames on one long-lived stream per gateway (kernel/session-server.ts).
  const methods = new Map<string, SessionMethod>();
  for (const [name, handler] of Object.entries(handlers)) {
    const definition: grpc.MethodDefinition<unknown, unknown> | undefined = service[name];
    if (definition === undefined) throw new Error(`Engine.${name} is not in the proto`);
    // The handler and the (de)serializers come from the same method: their types agree.
    methods.set(name, {
      direct: directOf(name, handler),
      requestDeserialize: definition.requestDeserialize,
      responseSerialize: definition.responseSerialize,
    });
  }
  const sessions = sessionServer(ENGINE_SESSION_PATH, methods, { internalToken: deps.internalToken, log: deps.log });
  server.addService(sessions.definition, sessions.implementation);
  onShutdown(server, () => {
    sessions.drain();
  });
  return server;
}
