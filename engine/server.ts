// The engine's gRPC surface (engine.v1.Engine). Handlers are thin: they read the catalogues, the price
// source and the clock they are given and shape the proto messages; decimal strings become numbers here.
import * as grpc from "@grpc/grpc-js";
import type { Logger } from "../kernel/log.js";
import { CHANNEL_OPTIONS, loadEngineProto, unary } from "../kernel/grpc.js";
import type { EngineHandlers } from "../proto/gen/engine/v1/Engine.js";
import type { ListPlansResponse } from "../proto/gen/engine/v1/ListPlansResponse.js";
import type { ListTickersResponse } from "../proto/gen/engine/v1/ListTickersResponse.js";
import type { Plan as PlanMessage } from "../proto/gen/engine/v1/Plan.js";
import type { Ticker } from "../proto/gen/engine/v1/Ticker.js";
import type { Plan, PlanCatalogue } from "./accounts/plans.js";
import type { Catalogue, TickerSpec } from "./market/catalogue.js";
import { isMarketOpen } from "./market/hours.js";
import type { PriceSource } from "./market/prices.js";

export interface EngineServerDeps {
  catalogue: Catalogue;
  plans: PlanCatalogue;
  prices: PriceSource;
  /** Wall clock in Unix epoch milliseconds; injected so market hours are testable. */
  now: () => number;
  /** When set, every call needs `authorization: Bearer <token>` metadata. */
  internalToken: string | undefined;
  log: Logger;
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

/** Builds (but does not bind) a gRPC server carrying the Engine service. */
export function createEngineServer(deps: EngineServerDeps): grpc.Server {
  const proto = loadEngineProto();
  const options = {
    internalToken: deps.internalToken,
    onError: (method: string, error: unknown) => {
      deps.log.error({ err: error, method }, "engine handler failed");
    },
  };
  const handlers: EngineHandlers = {
    ListTickers: unary(
      "ListTickers",
      (): ListTickersResponse => {
        const nowMs = deps.now();
        return { data: deps.catalogue.tickers.map((spec) => tickerMessage(spec, deps.prices, nowMs)) };
      },
      options,
    ),
    ListPlans: unary("ListPlans", (): ListPlansResponse => ({ data: deps.plans.plans.map(planMessage) }), options),
  };
  const server = new grpc.Server(CHANNEL_OPTIONS);
  server.addService(proto.engine.v1.Engine.service, handlers);
  return server;
}
